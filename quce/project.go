package quce

import (
	"context"
	"math"
	"slices"

	"github.com/quce-go/quce/data"
)

// legalRange is a discrete column's box in original units: the user's bounds where set, else
// the column's observed range, widened to the instance's value x (a new instance may lie
// outside the training data). lo and hi are ±Inf where open. A continuous column's box is
// the user's alone.
func legalRange(c data.Column, lo, hi, x float64) (float64, float64) {
	if !discrete(c) {
		return lo, hi
	}
	if math.IsInf(lo, -1) {
		lo = min(c.Min, x)
	}
	if math.IsInf(hi, 1) {
		hi = max(c.Max, x)
	}
	return lo, hi
}

// nearestLegal is the legal value of a one-input column nearest to v inside [lo, hi]
// (original units; an ordinal column's value is its rank). The box always holds a legal
// value: it contains the instance's own.
func nearestLegal(c data.Column, v, lo, hi float64) float64 {
	switch c.Type {
	case data.Continuous:
		return min(max(v, lo), hi)
	case data.Binary:
		a, b := c.Min, c.Max
		if !inside(a, lo, hi) || inside(b, lo, hi) && math.Abs(v-b) < math.Abs(v-a) {
			return b
		}
		return a
	}
	// Integer, and ordinal ranks.
	return min(max(math.Round(v), math.Ceil(lo-1e-6)), math.Floor(hi+1e-6))
}

func inside(v, lo, hi float64) bool {
	return v >= lo-1e-6*max(1, math.Abs(lo)) && v <= hi+1e-6*max(1, math.Abs(hi))
}

// origBox is input f's box for row r in original units.
func (e *Explainer) origBox(r *row, f int) (lo, hi float64) {
	return e.original(f, r.lo[f]), e.original(f, r.hi[f])
}

func (e *Explainer) original(f int, v float32) float64 {
	return float64(v)*e.scaler.Std[f] + e.scaler.Mean[f]
}

// standardised is input f's value v (original units) as the models see it; the instance's own
// value maps to exactly its input, so an unchanged column compares equal.
func (e *Explainer) standardised(r *row, f int, v float64) float32 {
	if math.Abs(v-r.x0orig[f]) <= 1e-6*max(1, math.Abs(v)) {
		return r.x0[f]
	}
	return float32((v - e.scaler.Mean[f]) / e.scaler.Std[f])
}

// legalize returns the legal row nearest to x for row r: a frozen column keeps the
// instance's value, a categorical column takes its largest input's category, numeric,
// binary and ordinal columns their nearest legal value inside the row's box.
func (e *Explainer) legalize(r *row, x []float32) []float32 {
	out := slices.Clone(x)
	for _, c := range e.cols {
		span := out[c.Start : c.Start+c.Width]
		switch {
		case r.move[c.Start] == 0:
			copy(span, r.x0[c.Start:c.Start+c.Width])
		case c.Type == data.Categorical:
			best := 0
			for k, v := range span {
				if v > span[best] {
					best = k
				}
			}
			clear(span)
			span[best] = 1
		case discrete(c):
			lo, hi := e.origBox(r, c.Start)
			span[0] = e.standardised(r, c.Start, nearestLegal(c, e.original(c.Start, span[0]), lo, hi))
		}
	}
	return out
}

// move is a repair move: the point after changing one column.
type move struct {
	column int
	point  []float32
}

// moves lists the one-column changes of the legal point x that stay legal and inside the
// box: every other category, the other binary value, ordinal ranks ±1, integers ±1 and ±
// about a quarter of their spread (so wide columns such as amounts can move by a useful
// amount). Continuous columns are left to the search.
func (e *Explainer) moves(r *row, x []float32) []move {
	var out []move
	with := func(ci int, set func(p []float32)) {
		p := slices.Clone(x)
		set(p)
		if !slices.Equal(p, x) {
			out = append(out, move{column: ci, point: p})
		}
	}
	for ci, c := range e.cols {
		f := c.Start
		if !discrete(c) || r.move[f] == 0 {
			continue
		}
		if c.Type == data.Categorical {
			for k := 0; k < c.Width; k++ {
				with(ci, func(p []float32) {
					clear(p[f : f+c.Width])
					p[f+k] = 1
				})
			}
			continue
		}
		lo, hi := e.origBox(r, f)
		v := math.Round(e.original(f, x[f]))
		steps := []float64{-1, 1}
		switch c.Type {
		case data.Binary:
			steps = []float64{c.Min + c.Max - 2*e.original(f, x[f])}
			v = e.original(f, x[f])
		case data.Integer:
			if s := math.Round(0.25 * e.scaler.Std[f]); s > 1 {
				steps = append(steps, -s, s)
			}
		}
		for _, s := range steps {
			if nv := v + s; inside(nv, lo, hi) {
				with(ci, func(p []float32) { p[f] = e.standardised(r, f, nv) })
			}
		}
	}
	return out
}

// endSearch marks where the search (or a given path) ended, before projection and resets.
func endSearch(rows []*row) {
	for _, r := range rows {
		r.searched, r.relaxedProb = r.n, r.last.prob
	}
}

// walkTo walks every row with a target from its last point to the target in resetPieces
// straight segments, measuring each (so Φ integrates over them). step numbers the points
// for messages; it returns the next free number.
func (e *Explainer) walkTo(ctx context.Context, cfg Config, rows []*row, targets [][]float32, step int) (int, error) {
	starts := make([][]float32, len(rows))
	for i, r := range rows {
		if targets[i] != nil {
			starts[i] = r.last.x
		}
	}
	for piece := 1; piece <= resetPieces; piece++ {
		for i, r := range rows {
			if targets[i] == nil || r.failure != "" {
				continue
			}
			pt := targets[i]
			if piece < resetPieces {
				pt = make([]float32, len(pt))
				for f := range pt {
					pt[f] = starts[i][f] + (targets[i][f]-starts[i][f])*float32(piece)/resetPieces
				}
			}
			r.advance(pt)
		}
		if err := e.measure(ctx, cfg, rows, step+piece); err != nil {
			return 0, err
		}
	}
	return step + resetPieces, nil
}

// project moves every row's end point to its nearest legal row (see legalize), then
// repairs rows that lost validity on the way: while F(τ|·) < ϑ, the one-column move (see
// moves) with the highest F(τ|·) is taken if it raises F, for at most as many moves as there
// are columns. Both are walked as path segments. Rows whose columns are all continuous are
// untouched.
func (e *Explainer) project(ctx context.Context, cfg Config, rows []*row) error {
	if !e.hasDiscrete() {
		return nil
	}
	step := cfg.Steps + 1
	targets := make([][]float32, len(rows))
	for i, r := range rows {
		if err := every(ctx, i); err != nil {
			return err
		}
		if p := e.legalize(r, r.last.x); r.failure == "" && !slices.Equal(p, r.last.x) {
			targets[i], r.projected = p, true
		}
	}
	step, err := e.walkTo(ctx, cfg, rows, targets, step)
	if err != nil {
		return err
	}
	for range e.cols {
		if err := ctx.Err(); err != nil {
			return err
		}
		var pts, tg [][]float32
		cands := make([][]move, len(rows))
		for i, r := range rows {
			if err := every(ctx, i); err != nil {
				return err
			}
			if r.failure != "" || float64(r.last.prob) >= cfg.Threshold {
				continue
			}
			cands[i] = e.moves(r, r.last.x)
			for _, m := range cands[i] {
				pts, tg = append(pts, m.point), append(tg, r.onehot)
			}
		}
		if len(pts) == 0 {
			return nil
		}
		probs, _, err := e.probeMany(ctx, pts, tg)
		if err != nil {
			return err
		}
		clear(targets)
		k, any := 0, false
		for i, r := range rows {
			best, bestP := -1, r.last.prob
			for c := range cands[i] {
				if probs[k+c] > bestP {
					best, bestP = c, probs[k+c]
				}
			}
			if best >= 0 {
				targets[i] = cands[i][best].point
				r.repairs = append(r.repairs, cands[i][best].column)
				any = true
			}
			k += len(cands[i])
		}
		if !any {
			return nil
		}
		if step, err = e.walkTo(ctx, cfg, rows, targets, step); err != nil {
			return err
		}
	}
	return nil
}
