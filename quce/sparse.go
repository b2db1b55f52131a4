package quce

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// rowMark is what a trial reset changes in a row, so that a rejected one can be undone.
type rowMark struct {
	phi                []float64
	n                  int
	sumUnc, sumPaper   float64
	kept               int
	last               pointStats
	prev, cur, prevGrd []float32
	curRecorded        bool
	failure            string
	active             bool
}

func (r *row) mark() rowMark {
	return rowMark{phi: slices.Clone(r.phi), n: r.n, sumUnc: r.sumUnc, sumPaper: r.sumPaper, kept: len(r.kept.points),
		last: r.last, prev: r.prev, cur: r.cur, prevGrd: r.prevGrad, curRecorded: r.curRecorded, failure: r.failure, active: r.active}
}

func (r *row) restore(m rowMark) {
	r.phi, r.n, r.sumUnc, r.sumPaper, r.kept.points = m.phi, m.n, m.sumUnc, m.sumPaper, r.kept.points[:m.kept]
	r.last, r.prev, r.cur, r.prevGrad, r.curRecorded, r.failure, r.active = m.last, m.prev, m.cur, m.prevGrd, m.curRecorded, m.failure, m.active
}

// resetPieces is how many segments one reset is walked in. A reset moves one feature by
// up to a few standard deviations, far more than an optimisation step; in one segment the
// rule's K points would miss the classifier's kinks along it (gap up to 7e-3 on W-BC),
// in eight it stays below 1e-3.
const resetPieces = 8

// sparsify implements Config.Sparse. Every valid row tries its changed columns in order of
// increasing change (Σ |x_c − x| over the column's standardised inputs): setting the column
// back to x's value is walked as resetPieces more segments of the path (measured like any
// other, so Φ integrates over them), kept only if the new end is still valid with the
// margin (F(τ|·) ≥ ϑ + Config.Margin) and no less plausible than the bound; otherwise the
// row is restored to before the trial. A reset that would pair category values no training
// row pairs (more unseen pairs than before it, see Settings.SeenCategories) is not tried. Frozen
// columns never changed, and x's values are legal and inside the bounds, so resets keep
// every constraint. One execution per piece serves every row.
func sparsify(ctx context.Context, cfg Config, pr programs, in inputs, rows []*row) error {
	cols := in.cols
	type plan struct {
		order []int // columns to try, smallest change first
		next  int
		bound float32
	}
	plans := make([]*plan, len(rows))
	for i, r := range rows {
		if err := every(ctx, i); err != nil {
			return err
		}
		if r.failure != "" || float64(r.last.prob) < cfg.Threshold {
			continue
		}
		change := make([]float64, len(cols))
		var order []int
		for ci, c := range cols {
			for f := c.Start; f < c.Start+c.Width; f++ {
				change[ci] += math.Abs(float64(r.last.x[f] - r.x0[f]))
			}
			if change[ci] > 0 {
				order = append(order, ci)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(change[a], change[b]) })
		plans[i] = &plan{order: order, bound: max(float32(cfg.Plausibility), r.last.unc)}
		r.resets = []int{}
	}
	step := cfg.Steps + 1 + resetPieces*len(cols)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		marks := make([]*rowMark, len(rows))
		targets := make([][]float32, len(rows))
		for i, r := range rows {
			p := plans[i]
			for p != nil && p.next < len(p.order) && targets[i] == nil {
				c := cols[p.order[p.next]]
				t := slices.Clone(r.last.x)
				copy(t[c.Start:c.Start+c.Width], r.x0[c.Start:c.Start+c.Width])
				if in.unseenPairs(r, t) > in.unseenPairs(r, r.last.x) {
					p.next++
					continue
				}
				m := r.mark()
				marks[i], targets[i] = &m, t
			}
		}
		if !slices.ContainsFunc(marks, func(m *rowMark) bool { return m != nil }) {
			return nil
		}
		var err error
		if step, err = walkTo(ctx, cfg, pr, rows, targets, step); err != nil {
			return err
		}
		for i, r := range rows {
			if marks[i] == nil {
				continue
			}
			p := plans[i]
			kept := r.failure == "" && r.last.step == marks[i].n+resetPieces-1 &&
				float64(r.last.prob) >= cfg.Threshold+cfg.Margin && r.last.unc <= p.bound
			if kept {
				r.resets = append(r.resets, p.order[p.next])
			} else {
				r.restore(*marks[i])
			}
			p.next++
		}
	}
}
