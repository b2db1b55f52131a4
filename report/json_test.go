package report

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// Number writes a float64 byte for byte as encoding/json does (which the outputs were written
// with before), null for what JSON cannot hold.
func TestNumberAsEncodingJSON(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.999999e-7, 1e-7, -1e-7, 1.5e-10, 1e20, 1e21, 9.99e20, 1.2345e300,
		math.SmallestNonzeroFloat64, math.MaxFloat64, 123456789.125, 0.000123, float64(float32(0.1)), 4.053600464421103}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		xs = append(xs, (r.Float64()-0.5)*math.Pow(10, float64(r.IntN(60)-30)))
	}
	for _, x := range xs {
		want, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := Number(x).MarshalJSON(); string(got) != string(want) {
			t.Errorf("Number(%v) = %s, encoding/json %s", x, got, want)
		}
	}
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, _ := Number(x).MarshalJSON(); string(got) != "null" {
			t.Errorf("Number(%v) = %s, want null", x, got)
		}
	}
}

func TestVectorAndMatrixJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"nil vector", Vector(nil), "null"},
		{"empty vector", Vector{}, "[]"},
		{"vector", Vector{1, math.NaN(), -2.5e-8}, "[1,null,-2.5e-8]"},
		{"nil matrix", Matrix(nil), "[]"},
		{"matrix", Matrix{{1, 2}, nil, {}, {math.Inf(1)}}, "[[1,2],null,[],[null]]"},
		{"in a struct", struct {
			M Matrix `json:"m"`
		}{Matrix{{0.5}}}, `{"m":[[0.5]]}`},
	} {
		got, err := json.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
