package quce

import (
	"context"
	"math"
	"slices"

	"github.com/quce-go/quce/data"
)

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

// toData is input f's standardised value v in the data's units, as the scaler maps it.
func (in inputs) toData(f int, v float32) float64 {
	return float64(v)*in.scaler.Std[f] + in.scaler.Mean[f]
}

// standardised is input f's value v (original units) as the models see it; the instance's own
// value maps to exactly its input, so an unchanged column compares equal.
func (in inputs) standardised(b *queryBox, f int, v float64) float32 {
	if math.Abs(v-b.x0orig[f]) <= 1e-6*max(1, math.Abs(v)) {
		return b.x0[f]
	}
	return float32((v - in.scaler.Mean[f]) / in.scaler.Std[f])
}

// dataUnits is the standardised point x of a query with box b in the data's units, exactly,
// as every output reports it (counterfactuals and path points, of QUCE and of the
// baselines). Float32 cannot hold most values of the data (-0.342, 72000.1), so a value
// within float32 rounding of one that matters is reported as that value: an input at the
// instance's float32 value is the instance's own value (so a frozen, reset or unchanged
// column reads as it was read); a binary, integer or ordinal input at a legal value is that
// value; an input at a side of the box is that side. Every value lies inside the box in the
// data's units (the search's box is rounded inwards, see inward, so the clamp that ensures
// it moves no point the search made by more than rounding).
func (in inputs) dataUnits(b *queryBox, x []float32) []float64 {
	out := make([]float64, len(x))
	in.dataUnitsInto(out, b, x)
	return out
}

// dataUnitsInto writes dataUnits(b, x) into out. It runs for every kept point of every
// path (a 4 096-row search keeps some 800 000), so the box's sides come standardised
// (queryBox.zlo, zhi) and each input's rounding is computed once.
func (in inputs) dataUnitsInto(out []float64, b *queryBox, x []float32) {
	for _, c := range in.cols {
		legalValues := discrete(c) && c.Type != data.Categorical
		for f := c.Start; f < c.Start+c.Width; f++ {
			xf := x[f]
			if xf == b.x0[f] {
				out[f] = b.x0orig[f]
				continue
			}
			v := min(max(in.toData(f, xf), b.olo[f]), b.ohi[f])
			switch ulp := ulp32(xf); {
			case legalValues:
				if legal := nearestLegal(c, v, b.olo[f], b.ohi[f]); nearZ(xf, in.standardisedExact(f, legal), ulp) {
					v = legal
				}
			case nearZ(xf, b.zlo[f], ulp):
				v = b.olo[f]
			case nearZ(xf, b.zhi[f], ulp):
				v = b.ohi[f]
			}
			out[f] = v
		}
	}
}

// near reports whether input f's float32 value x is within float32 rounding (one unit in
// the last place) of the value v in the data's units.
func (in inputs) near(f int, x float32, v float64) bool {
	return nearZ(x, in.standardisedExact(f, v), ulp32(x))
}

// standardisedExact is input f's value v (original units) standardised in float64.
func (in inputs) standardisedExact(f int, v float64) float64 {
	return (v - in.scaler.Mean[f]) / in.scaler.Std[f]
}

// nearZ reports whether the float32 value x is within ulp (ulp32(x)) of z, a standardised
// value in float64.
func nearZ(x float32, z, ulp float64) bool { return math.Abs(float64(x)-z) <= ulp }

// ulp32 is the gap from |x| to the next float32 up, x's unit in the last place:
// Nextafter32(|x|, +Inf) − |x|, which for a finite |x| (0 included) is the float32 of the
// next bit pattern (math.Nextafter32 is not inlined, and this runs for every input of every
// kept point).
func ulp32(x float32) float64 {
	a := math.Float32bits(x) &^ (1 << 31)
	if a >= 0x7f800000 { // ±Inf or NaN
		abs := math.Float32frombits(a)
		return float64(math.Nextafter32(abs, float32(math.Inf(1))) - abs)
	}
	return float64(math.Float32frombits(a+1) - math.Float32frombits(a))
}

// legalize returns the legal row nearest to x for the box b: a frozen column keeps the
// instance's value, a categorical column takes its largest input's category among those its
// box allows, numeric, binary and ordinal columns their nearest legal value inside the box.
func (in inputs) legalize(b *queryBox, x []float32) []float32 {
	out := slices.Clone(x)
	for _, c := range in.cols {
		span := out[c.Start : c.Start+c.Width]
		switch {
		case b.move[c.Start] == 0:
			copy(span, b.x0[c.Start:c.Start+c.Width])
		case c.Type == data.Categorical:
			best := -1
			for k, v := range span {
				if allowed(b, c.Start+k) && (best < 0 || v > span[best]) {
					best = k
				}
			}
			clear(span)
			span[best] = 1
		case discrete(c):
			span[0] = in.standardised(b, c.Start, nearestLegal(c, in.toData(c.Start, span[0]), b.olo[c.Start], b.ohi[c.Start]))
		}
	}
	return out
}

// allowed reports whether the box lets the one-hot input f be 1: its category was observed
// in the training split (or is the instance's), or the user's bounds allow it.
func allowed(b *queryBox, f int) bool { return b.ohi[f] >= 1 }

// minRepair is the smallest change of an integer column, in its standard deviations, that
// a repair move makes (see moves).
const minRepair = 0.1

// move is a repair move: the point after changing one column.
type move struct {
	column int
	point  []float32
}

// moves lists the one-column changes of the legal point x that stay legal and inside the
// box: every other category, the other binary value, ordinal ranks ±1, integers by ± a
// tenth of their spread (at least 1) and ± about a quarter of it (so wide columns such as
// amounts can move by a useful amount). A move of an integer column smaller than a tenth of
// its standard deviation (MonthlyIncome 6725 → 6727) is below the resolution at which the
// column means anything to a person, so it is not offered. Continuous columns are left to
// the search.
func (in inputs) moves(r *row, x []float32) []move {
	var out []move
	with := func(ci int, set func(p []float32)) {
		p := slices.Clone(x)
		set(p)
		if !slices.Equal(p, x) {
			out = append(out, move{column: ci, point: p})
		}
	}
	for ci, c := range in.cols {
		f := c.Start
		if !discrete(c) || r.move[f] == 0 {
			continue
		}
		if c.Type == data.Categorical {
			for k := 0; k < c.Width; k++ {
				if !allowed(r.box(), f+k) {
					continue
				}
				with(ci, func(p []float32) {
					clear(p[f : f+c.Width])
					p[f+k] = 1
				})
			}
			continue
		}
		lo, hi := r.olo[f], r.ohi[f]
		v := math.Round(in.toData(f, x[f]))
		steps := []float64{-1, 1}
		switch c.Type {
		case data.Binary:
			steps = []float64{c.Min + c.Max - 2*in.toData(f, x[f])}
			v = in.toData(f, x[f])
		case data.Integer:
			small := max(1, math.Round(minRepair*in.scaler.Std[f]))
			steps = []float64{-small, small}
			if s := math.Round(0.25 * in.scaler.Std[f]); s > small {
				steps = append(steps, -s, s)
			}
		}
		for _, s := range steps {
			if nv := v + s; inside(nv, lo, hi) {
				with(ci, func(p []float32) { p[f] = in.standardised(r.box(), f, nv) })
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
// for messages; it returns the next free number. The segments are known before any is
// measured, so all of them, of every row, are measured together (one execution for up to
// Batching.UnitRows of them) and then recorded in order along each path.
func walkTo(ctx context.Context, cfg Config, pr programs, rows []*row, targets [][]float32, step int) (int, error) {
	type walker struct {
		r   *row
		pts [][]float32 // the ends of its segments; the last is the target
	}
	var walkers []walker
	var segs []segment
	for i, r := range rows {
		if targets[i] == nil || r.failure != "" {
			continue
		}
		w := walker{r: r, pts: make([][]float32, resetPieces)}
		start, prev := r.last.x, r.cur
		for piece := 1; piece <= resetPieces; piece++ {
			pt := targets[i]
			if piece < resetPieces {
				pt = make([]float32, len(pt))
				for f := range pt {
					pt[f] = start[f] + (targets[i][f]-start[f])*float32(piece)/resetPieces
				}
			}
			w.pts[piece-1] = pt
			segs = append(segs, segment{prev: prev, cur: pt, onehot: r.onehot})
			prev = pt
		}
		walkers = append(walkers, w)
	}
	m, err := pr.measureSegments(ctx, cfg, segs, 0)
	if err != nil {
		return 0, err
	}
	j := pr.numFeatures()
	for piece := 1; piece <= resetPieces; piece++ {
		for wi, w := range walkers {
			if w.r.failure != "" {
				continue // failed on an earlier piece: its path ends there
			}
			w.r.advance(w.pts[piece-1])
			m.recordFrom(cfg, w.r, wi*resetPieces+piece-1, j, step+piece)
		}
	}
	return step + resetPieces, nil
}

// project moves every row's end point to its nearest legal row (see legalize), then
// repairs rows that fell short on the way: while F(τ|·) < ϑ + Config.Margin, or the row
// pairs category values no training row pairs (see Settings.SeenCategories), the
// one-column move (see moves) that leaves the fewest unseen pairs, and among those has the
// highest F(τ|·), is taken if it leaves fewer unseen pairs, or as many and a higher F; for
// at most as many moves as there are columns. Both are walked as path segments. Repairs
// never cost a row its validity: a row that was valid after the projection and is not
// after its repairs is restored to before them. Rows whose columns are all continuous are
// untouched.
func project(ctx context.Context, cfg Config, pr programs, in inputs, rows []*row) error {
	if !in.hasDiscrete() {
		return nil
	}
	step := cfg.Steps + 1
	targets := make([][]float32, len(rows))
	for i, r := range rows {
		if err := every(ctx, i); err != nil {
			return err
		}
		if p := in.legalize(r.box(), r.last.x); r.failure == "" && !slices.Equal(p, r.last.x) {
			targets[i], r.projected = p, true
		}
	}
	step, err := walkTo(ctx, cfg, pr, rows, targets, step)
	if err != nil {
		return err
	}
	need := cfg.Threshold + cfg.Margin
	unseen := make([]int, len(rows))
	marks := make([]*rowMark, len(rows))
	for i, r := range rows {
		if r.failure == "" {
			unseen[i] = in.unseenPairs(r, r.last.x)
		}
	}
	defer func() {
		for i, r := range rows {
			if m := marks[i]; m != nil && float64(m.last.prob) >= cfg.Threshold && (r.failure != "" || float64(r.last.prob) < cfg.Threshold) {
				r.restore(*m)
				r.repairs = nil
			}
		}
	}()
	for range in.cols {
		if err := ctx.Err(); err != nil {
			return err
		}
		var pts, tg [][]float32
		cands := make([][]move, len(rows))
		for i, r := range rows {
			if err := every(ctx, i); err != nil {
				return err
			}
			if r.failure != "" || float64(r.last.prob) >= need && unseen[i] == 0 {
				continue
			}
			cands[i] = in.moves(r, r.last.x)
			for _, m := range cands[i] {
				pts, tg = append(pts, m.point), append(tg, r.onehot)
			}
		}
		if len(pts) == 0 {
			return nil
		}
		probs, _, err := pr.probeMany(ctx, pts, tg)
		if err != nil {
			return err
		}
		clear(targets)
		k, any := 0, false
		for i, r := range rows {
			best, bestU, bestP := -1, unseen[i], r.last.prob
			for c, m := range cands[i] {
				u, p := in.unseenPairs(r, m.point), probs[k+c]
				if u < bestU || u == bestU && p > bestP && (best >= 0 || float64(r.last.prob) < need) {
					best, bestU, bestP = c, u, p
				}
			}
			if best >= 0 {
				if marks[i] == nil {
					m := r.mark()
					marks[i] = &m
				}
				targets[i], unseen[i] = cands[i][best].point, bestU
				r.repairs = append(r.repairs, cands[i][best].column)
				any = true
			}
			k += len(cands[i])
		}
		if !any {
			return nil
		}
		if step, err = walkTo(ctx, cfg, pr, rows, targets, step); err != nil {
			return err
		}
	}
	return nil
}
