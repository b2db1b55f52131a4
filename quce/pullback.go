package quce

import (
	"context"
	"slices"

	"github.com/quce-go/quce/data"
)

// pullBackProbes is how many points of the segment from x_c towards x each level of the
// pull-back's probe tries: two levels place the end within 1/256 of the segment.
const pullBackProbes = 16

// pullBack implements Auto.PullBack. QUCE's search keeps moving after the class flips;
// every row whose end is valid with the margin (F(τ|x_c) ≥ ϑ + Config.Margin) is probed along the
// straight segment from its end x_c towards x: the continuous inputs at
// x_c + t·(x − x_c), t in 1/16 steps, then in 1/256 steps after the farthest acceptable
// one; integer and ordinal columns at the legal value nearest to that (see towardsX). The
// farthest t where F(τ|·) ≥ ϑ + Margin, L_ε is within max(bound, L_ε(x_c)) and no more
// pairs of category values are unseen than at x_c (an ordinal column moves) is walked as
// resetPieces more segments of the path (measured like any other, so Φ integrates over them), and kept only if the walked
// end is still that valid and plausible; otherwise the row is restored. Each point lies
// between x_c and x, both inside the box (frozen inputs equal at both), so every
// constraint holds, and the distance to x shrinks by the factor 1 − t (an integer or
// ordinal column's by about as much, rounded to a legal value).
func pullBack(ctx context.Context, cfg Config, pr programs, in inputs, rows []*row) error {
	need := float32(cfg.Threshold + cfg.Margin)
	bound := func(r *row) float32 { return max(float32(cfg.Plausibility), r.last.unc) }
	var walk []*row
	for i, r := range rows {
		if err := every(ctx, i); err != nil {
			return err
		}
		if r.failure == "" && r.last.prob >= need {
			walk = append(walk, r)
		}
	}
	if len(walk) == 0 {
		return nil
	}
	best := make([]float64, len(walk)) // the farthest acceptable t so far (0: x_c itself)
	unseen := make([]int, len(walk))   // the unseen pairs of category values at x_c
	for i, r := range walk {
		unseen[i] = in.unseenPairs(r, r.last.x)
	}
	width := 1.0
	for range 2 {
		width /= pullBackProbes
		var pts, tg [][]float32
		var owner []int
		var ts []float64
		for i, r := range walk {
			for k := 1; k < pullBackProbes; k++ {
				if t := best[i] + float64(k)*width; t < 1 {
					pts, tg, owner, ts = append(pts, in.towardsX(r, t)), append(tg, r.onehot), append(owner, i), append(ts, t)
				}
			}
		}
		probs, _, err := pr.probeMany(ctx, pts, tg)
		if err != nil {
			return err
		}
		unc, err := pr.uncertaintyChunked(ctx, pts)
		if err != nil {
			return err
		}
		for k, i := range owner {
			if probs[k] >= need && unc[k] <= bound(walk[i]) && in.unseenPairs(walk[i], pts[k]) <= unseen[i] {
				best[i] = max(best[i], ts[k])
			}
		}
	}
	marks := make([]rowMark, len(walk))
	targets := make([][]float32, len(walk))
	for i, r := range walk {
		if best[i] > 0 {
			marks[i], targets[i] = r.mark(), in.towardsX(r, best[i])
		}
	}
	if !slices.ContainsFunc(targets, func(t []float32) bool { return t != nil }) {
		return nil
	}
	step := cfg.Steps + 1 + 2*resetPieces*len(in.cols)
	if _, err := walkTo(ctx, cfg, pr, walk, targets, step); err != nil {
		return err
	}
	for i, r := range walk {
		if targets[i] == nil {
			continue
		}
		m := marks[i]
		if r.failure == "" && r.last.step == m.n+resetPieces-1 && r.last.prob >= need && r.last.unc <= max(float32(cfg.Plausibility), m.last.unc) &&
			in.unseenPairs(r, r.last.x) <= unseen[i] {
			r.pulledBack = best[i]
		} else {
			r.restore(m)
		}
	}
	return nil
}

// towardsX is the point a fraction t of the way from r's end back to its instance, inside
// r's box: the continuous inputs at x_c + t·(x − x_c); an integer or ordinal column at the
// legal value nearest to that, in the data's units (it lies between x_c's and x's values,
// both legal and inside the box, so it is legal and inside too); binary and categorical
// columns keep x_c's value, which a fraction of the way cannot change.
func (in inputs) towardsX(r *row, t float64) []float32 {
	pt := slices.Clone(r.last.x)
	for _, c := range in.cols {
		switch {
		case c.Type == data.Integer || c.Type == data.Ordinal:
			f := c.Start
			v := in.toData(f, pt[f])
			v = nearestLegal(c, v+t*(r.x0orig[f]-v), min(v, r.x0orig[f]), max(v, r.x0orig[f]))
			pt[f] = in.standardised(r.box(), f, v)
		case discrete(c):
		default:
			for f := c.Start; f < c.Start+c.Width; f++ {
				v := float32(float64(pt[f]) + t*float64(r.x0[f]-pt[f]))
				pt[f] = min(max(v, r.lo[f]), r.hi[f])
			}
		}
	}
	return pt
}

// uncertaintyChunked is L_ε (trained form) at many points, evaluated in fixed-size chunks
// so that one compiled shape serves every call.
func (pr programs) uncertaintyChunked(ctx context.Context, pts [][]float32) ([]float32, error) {
	out := make([]float32, 0, len(pts))
	zero := make([]float32, pr.numFeatures())
	size := pr.batching.ProbeRows
	for start := 0; start < len(pts); start += size {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk := slices.Clone(pts[start:min(start+size, len(pts))])
		for len(chunk) < size {
			chunk = append(chunk, zero)
		}
		unc, _, _, err := pr.pointsMany(chunk)
		if err != nil {
			return nil, err
		}
		out = append(out, unc[:min(size, len(pts)-start)]...)
	}
	return out, nil
}
