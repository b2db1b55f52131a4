package data

import (
	"math"
	"testing"
)

func TestScalerRoundTrip(t *testing.T) {
	d := WBC()
	train, test, err := Split(d, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	tr, te := d.Subset(train), d.Subset(test)
	s := FitScaler(tr.X)
	if len(s.Mean) != 30 || len(s.Std) != 30 {
		t.Fatalf("scaler has %d means, %d stds", len(s.Mean), len(s.Std))
	}
	z := s.Transform(tr.X)
	// Transformed training columns have mean 0 and population std 1.
	for j := 0; j < 30; j++ {
		var sum, sq float64
		for _, row := range z {
			sum += row[j]
		}
		mean := sum / float64(len(z))
		for _, row := range z {
			sq += (row[j] - mean) * (row[j] - mean)
		}
		std := math.Sqrt(sq / float64(len(z)))
		if math.Abs(mean) > 1e-9 || math.Abs(std-1) > 1e-9 {
			t.Errorf("feature %d: transformed mean %g, std %g", j, mean, std)
		}
	}
	for name, X := range map[string][][]float64{"train": tr.X, "test": te.X} {
		back := s.Inverse(s.Transform(X))
		for i := range X {
			row := s.InverseRow(s.TransformRow(X[i]))
			for j := range X[i] {
				tol := 1e-12 * math.Max(1, math.Abs(X[i][j]))
				if math.Abs(back[i][j]-X[i][j]) > tol || math.Abs(row[j]-X[i][j]) > tol {
					t.Fatalf("%s[%d][%d]: %v -> %v / %v", name, i, j, X[i][j], back[i][j], row[j])
				}
			}
		}
	}
	// Transform does not modify its input.
	if tr.X[0][0] != d.X[train[0]][0] {
		t.Errorf("Transform modified its input")
	}
	// TransformRow agrees with Transform.
	r0 := s.TransformRow(tr.X[0])
	for j := range r0 {
		if r0[j] != z[0][j] {
			t.Fatalf("TransformRow and Transform differ at %d", j)
		}
	}
}

func TestScalerConstantAndKnownValues(t *testing.T) {
	X := [][]float64{{1, 0.1, -2}, {3, 0.1, -2}, {5, 0.1, 4}}
	s := FitScaler(X)
	wantMean := []float64{3, 0.1, 0}
	wantStd := []float64{math.Sqrt(8.0 / 3), 1, math.Sqrt(8)} // population std; constant -> 1
	// The observed range of the fitted rows, exactly: the default box of a counterfactual.
	wantMin, wantMax := []float64{1, 0.1, -2}, []float64{5, 0.1, 4}
	for j := range wantMean {
		if math.Abs(s.Mean[j]-wantMean[j]) > 1e-12 || math.Abs(s.Std[j]-wantStd[j]) > 1e-12 {
			t.Errorf("feature %d: mean %v std %v, want %v %v", j, s.Mean[j], s.Std[j], wantMean[j], wantStd[j])
		}
		if s.Min[j] != wantMin[j] || s.Max[j] != wantMax[j] {
			t.Errorf("feature %d: range %v … %v, want %v … %v", j, s.Min[j], s.Max[j], wantMin[j], wantMax[j])
		}
	}
	z := s.Transform(X)
	for i := range z {
		if z[i][1] != 0 {
			t.Errorf("constant feature transformed to %v, want 0", z[i][1])
		}
		for _, v := range z[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("transform gave %v", v)
			}
		}
	}
	// A single row: every feature is constant.
	s1 := FitScaler([][]float64{{7, -1}})
	if s1.Std[0] != 1 || s1.Std[1] != 1 || s1.Mean[0] != 7 {
		t.Errorf("single-row scaler: %+v", s1)
	}
	// Huge values do not overflow.
	sh := FitScaler([][]float64{{-1e308}, {1e308}})
	if sh.Std[0] != 1e308 || sh.Mean[0] != 0 {
		t.Errorf("huge values: mean %v std %v, want 0 1e308", sh.Mean[0], sh.Std[0])
	}
	// Empty input.
	if se := FitScaler(nil); len(se.Mean) != 0 || se.Transform(nil) != nil {
		t.Errorf("empty scaler: %+v", se)
	}
}

func TestScalerPanicsOnWrongWidth(t *testing.T) {
	s := FitScaler([][]float64{{1, 2}, {3, 4}})
	defer func() {
		if recover() == nil {
			t.Errorf("TransformRow with 3 values did not panic")
		}
	}()
	s.TransformRow([]float64{1, 2, 3})
}

func TestFloatConversion(t *testing.T) {
	X := [][]float64{{1.5, -2, 1e-3}, {}, {3.25}}
	f := ToFloat32(X)
	if len(f) != 3 || len(f[0]) != 3 || len(f[1]) != 0 || len(f[2]) != 1 {
		t.Fatalf("ToFloat32 shape %v", f)
	}
	if f[0][0] != 1.5 || f[0][2] != float32(1e-3) || f[2][0] != 3.25 {
		t.Errorf("ToFloat32 = %v", f)
	}
	back := ToFloat64(f)
	for i := range X {
		for j := range X[i] {
			if math.Abs(back[i][j]-X[i][j]) > 1e-7*math.Max(1, math.Abs(X[i][j])) {
				t.Errorf("round trip [%d][%d]: %v -> %v", i, j, X[i][j], back[i][j])
			}
		}
	}
	f[0][0] = 9
	if X[0][0] != 1.5 {
		t.Errorf("ToFloat32 shares memory")
	}
	if ToFloat32(nil) != nil || ToFloat64(nil) != nil {
		t.Errorf("nil input should give nil")
	}
}
