package report

import (
	"math"
	"strconv"
)

// Number is a float64 that may be non-finite (a failed path's uncertainty, say): JSON has no
// NaN or Inf, so it is written as null.
type Number float64

// MarshalJSON implements json.Marshaler.
func (v Number) MarshalJSON() ([]byte, error) { return appendNumber(nil, float64(v)), nil }

// Vector is numbers written as Number writes each; a nil Vector is written as null.
type Vector []float64

// MarshalJSON implements json.Marshaler.
func (v Vector) MarshalJSON() ([]byte, error) { return appendVector(nil, v), nil }

// Matrix is rows written as Vector writes each.
type Matrix [][]float64

// MarshalJSON implements json.Marshaler.
func (m Matrix) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range m {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendVector(b, v)
	}
	return append(b, ']'), nil
}

// Vectors and matrices are written here, number by number, rather than by encoding/json: a
// path is hundreds of points, and a json.Marshal call per number was most of the time of
// writing an explanation's JSON (42% of `explain -counterfactuals 3 -json` on W-BC).

// appendVector appends v as Vector writes it.
func appendVector(b []byte, v []float64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNumber(b, x)
	}
	return append(b, ']')
}

// appendNumber appends x as encoding/json writes a float64 (the shortest decimal that reads
// back as x, in exponent form below 1e-6 and from 1e21 on, its exponent without a leading
// zero), or null when x is not finite.
func appendNumber(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 → e-7
		b = b[:n-1]
	}
	return b
}
