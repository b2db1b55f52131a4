package data

import (
	"fmt"
	"math"
)

// Scaler is a standard scaler: Transform maps every feature x to
// (x - Mean) / Std. Std is the population standard deviation (divide by N)
// of the rows it was fitted on; for a constant feature Std is stored as 1
// (and Mean as the constant), so transforming never divides by zero.
type Scaler struct {
	Mean, Std []float64
	// Min and Max are each feature's observed range over the rows it was
	// fitted on (the training split), in original units: the default room a
	// counterfactual has to move (see quce.Query). They are nil in a Scaler
	// built by hand, which then sets no default range.
	Min, Max []float64
}

// FitScaler fits a Scaler on the rows X (normally the training rows only).
// X must be rectangular; FitScaler panics otherwise (a programming error).
// An empty X gives a Scaler with no features.
func FitScaler(X [][]float64) *Scaler {
	if len(X) == 0 {
		return &Scaler{Mean: []float64{}, Std: []float64{}, Min: []float64{}, Max: []float64{}}
	}
	nf := len(X[0])
	for i, row := range X {
		if len(row) != nf {
			panic(fmt.Sprintf("data.FitScaler: row %d has %d values, row 0 has %d", i, len(row), nf))
		}
	}
	n := float64(len(X))
	s := &Scaler{Mean: make([]float64, nf), Std: make([]float64, nf), Min: make([]float64, nf), Max: make([]float64, nf)}
	for j := 0; j < nf; j++ {
		lo, hi, sum := X[0][j], X[0][j], 0.0
		for _, row := range X {
			v := row[j]
			lo, hi = min(lo, v), max(hi, v)
			sum += v
		}
		s.Min[j], s.Max[j] = lo, hi
		if lo == hi { // constant feature (or a single row)
			s.Mean[j], s.Std[j] = lo, 1
			continue
		}
		mean := sum / n
		if math.IsInf(mean, 0) { // the sum overflowed
			mean = 0
			for _, row := range X {
				mean += row[j] / n
			}
		}
		// Two-pass variance, scaled by the largest deviation to avoid
		// overflow when squaring very large values.
		scale := 0.0
		for _, row := range X {
			scale = max(scale, math.Abs(row[j]-mean))
		}
		ss := 0.0
		for _, row := range X {
			d := (row[j] - mean) / scale
			ss += d * d
		}
		std := scale * math.Sqrt(ss/n)
		if !(std > 0) || math.IsInf(std, 0) {
			std = 1
		}
		s.Mean[j], s.Std[j] = mean, std
	}
	return s
}

// Transform returns standardised copies of the rows X. It panics if a row
// does not have len(s.Mean) values.
func (s *Scaler) Transform(X [][]float64) [][]float64 {
	return s.apply(X, s.TransformRowTo)
}

// Inverse undoes Transform: it returns copies of the rows X mapped back to
// the original units.
func (s *Scaler) Inverse(X [][]float64) [][]float64 {
	return s.apply(X, s.InverseRowTo)
}

// TransformRow returns a standardised copy of the row x.
func (s *Scaler) TransformRow(x []float64) []float64 {
	out := make([]float64, len(x))
	s.TransformRowTo(out, x)
	return out
}

// InverseRow returns a copy of the standardised row x in original units.
func (s *Scaler) InverseRow(x []float64) []float64 {
	out := make([]float64, len(x))
	s.InverseRowTo(out, x)
	return out
}

// TransformRowTo writes the standardised x into dst (len(dst) >= len(x)).
func (s *Scaler) TransformRowTo(dst, x []float64) {
	s.check(x)
	for j, v := range x {
		dst[j] = (v - s.Mean[j]) / s.Std[j]
	}
}

// InverseRowTo writes the standardised row x, in original units, into dst.
func (s *Scaler) InverseRowTo(dst, x []float64) {
	s.check(x)
	for j, v := range x {
		dst[j] = v*s.Std[j] + s.Mean[j]
	}
}

func (s *Scaler) check(x []float64) {
	if len(x) != len(s.Mean) || len(s.Std) != len(s.Mean) {
		panic(fmt.Sprintf("data.Scaler: row has %d values, scaler was fitted on %d features", len(x), len(s.Mean)))
	}
}

func (s *Scaler) apply(X [][]float64, f func(dst, x []float64)) [][]float64 {
	if X == nil {
		return nil
	}
	out := make([][]float64, len(X))
	buf := make([]float64, len(X)*len(s.Mean))
	for i, row := range X {
		n := len(s.Mean)
		out[i] = buf[:n:n]
		buf = buf[n:]
		f(out[i], row)
	}
	return out
}

// ToFloat32 converts X to float32 (rounding to nearest). The result does
// not share memory with X.
func ToFloat32(X [][]float64) [][]float32 {
	if X == nil {
		return nil
	}
	total := 0
	for _, row := range X {
		total += len(row)
	}
	buf := make([]float32, total)
	out := make([][]float32, len(X))
	for i, row := range X {
		r := buf[:len(row):len(row)]
		buf = buf[len(row):]
		for j, v := range row {
			r[j] = float32(v)
		}
		out[i] = r
	}
	return out
}

// ToFloat64 converts X to float64 (exactly). The result does not share
// memory with X.
func ToFloat64(X [][]float32) [][]float64 {
	if X == nil {
		return nil
	}
	total := 0
	for _, row := range X {
		total += len(row)
	}
	buf := make([]float64, total)
	out := make([][]float64, len(X))
	for i, row := range X {
		r := buf[:len(row):len(row)]
		buf = buf[len(row):]
		for j, v := range row {
			r[j] = float64(v)
		}
		out[i] = r
	}
	return out
}
