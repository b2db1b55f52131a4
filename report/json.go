package report

import (
	"encoding/json"
	"math"
)

// Number is a float64 that may be non-finite (a failed path's uncertainty, say): JSON has no
// NaN or Inf, so it is written as null.
type Number float64

// MarshalJSON implements json.Marshaler.
func (v Number) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

// Vector is numbers written as Number writes each; a nil Vector is written as null.
type Vector []float64

// MarshalJSON implements json.Marshaler.
func (v Vector) MarshalJSON() ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	out := make([]Number, len(v))
	for i, x := range v {
		out[i] = Number(x)
	}
	return json.Marshal(out)
}

// Matrix is rows written as Vector writes each.
type Matrix [][]float64

// MarshalJSON implements json.Marshaler.
func (m Matrix) MarshalJSON() ([]byte, error) {
	out := make([]Vector, len(m))
	for i, v := range m {
		out[i] = v
	}
	return json.Marshal(out)
}
