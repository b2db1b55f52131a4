package eval

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// DiceRandom is DiCE's "random" strategy: random changes to a few features within the
// training range until the class flips; the closest valid candidate is kept (with several
// counterfactuals asked for, more valid candidates beside it, as DiCE picks them). No path.
const DiceRandom Method = "dice-random"

type diceRunner struct{}

func init() { register(diceRunner{}) }

func (diceRunner) about() about {
	return about{name: DiceRandom, title: "DiCE-random", label: "DiCE (random)", aliases: []string{"dice", "dice_random", "dicerandom"},
		color: okabeIto.vermillion, order: 60, inDefault: true, ownCounterfactual: true}
}

func (diceRunner) run(ctx context.Context, s *split) ([]*outcome, error) {
	s.logf("eval: %s: DiCE-random on %d instances (%d samples per round)", s.name, len(s.xs), s.o.Dice.Samples)
	cols, sc := s.d.Explainer.Columns(), s.d.Explainer.Scaler()
	spaces := make([]*diceSpace, len(s.xs))
	for i, b := range s.boxes {
		spaces[i] = newDiceSpace(cols, sc, b, s.lo, s.hi)
	}
	dr, err := s.mdl.dice(ctx, spaces, s.targets, s.o.Dice, s.o.Config.Threshold, s.o.Seed, s.o.Config.Counterfactuals)
	if err != nil {
		return nil, fmt.Errorf("eval: DiCE-random on the %s split: %w", s.name, err)
	}
	return diceOutcomes(s.base, s.xs, dr, s.d.Explainer, s.queries)
}

// diceOutcomes turns DiCE-random's results into outcomes, each counterfactual in the data's
// units exactly as the explainer reports its own (quce.Explainer.DataUnits).
func diceOutcomes(base []InstanceResult, xs [][]float64, dr []*DiceResult, e *quce.Explainer, queries []quce.Query) ([]*outcome, error) {
	out := make([]*outcome, len(dr))
	for i, d := range dr {
		r := base[i]
		r.Original, r.Target = d.Original, d.Target
		r.ProbEnd = d.ProbEnd
		if d.Counterfactual != nil {
			r.Valid = true
			r.Counterfactual = d.Counterfactual
			var err error
			if r.CounterfactualOriginal, err = e.DataUnits(queries[i], d.Counterfactual); err != nil {
				return nil, err
			}
			for _, o := range d.Counterfactuals[min(1, len(d.Counterfactuals)):] {
				u, err := e.DataUnits(queries[i], o)
				if err != nil {
					return nil, err
				}
				r.Options = append(r.Options, u)
			}
		} else {
			r.Failure = fmt.Sprintf("no candidate reached the target class (%d candidates changing up to %d features; best F(τ|·) = %.3g < ϑ)", d.Candidates, d.Features, d.ProbEnd)
			if d.NonFinite > 0 {
				r.Failure += fmt.Sprintf("; the model's F(τ|·) was not finite for %d of them", d.NonFinite)
			}
		}
		out[i] = &outcome{res: r, x: xs[i], options: d.Counterfactuals}
	}
	return out, nil
}

// DiceConfig holds the settings of the DiCE "random" baseline.
type DiceConfig struct {
	// Samples is the number of random candidates drawn per instance and per round (DiCE's
	// sample_size, 1000 by default).
	Samples int `json:"samples"`
	// MaxFeatures bounds the rounds: round k changes k randomly chosen columns (chosen with
	// replacement among those that may change, as DiCE does, so up to k distinct ones; a
	// categorical column is one). 0 means as many rounds as there are columns.
	MaxFeatures int `json:"max_features"`
}

// DefaultDiceConfig is DiCE's default sample size of 1000 and rounds up to every feature.
func DefaultDiceConfig() DiceConfig { return DiceConfig{Samples: 1000} }

// Validate reports the first bad setting.
func (c DiceConfig) Validate() error {
	if c.Samples < 1 {
		return fmt.Errorf("eval: DiCE samples = %d; fix: use at least 1 (1000 is the default)", c.Samples)
	}
	if c.MaxFeatures < 0 {
		return fmt.Errorf("eval: DiCE max features = %d; fix: use 0 (every feature) or a positive count", c.MaxFeatures)
	}
	return nil
}

// DiceResult is the DiCE-random result for one instance.
type DiceResult struct {
	Counterfactual []float64 // the closest valid candidate (standardised); nil when none was found
	Original       int       // f(x)
	Target         int       // τ
	ProbEnd        float64   // F(τ|x_c); without a counterfactual, the highest F(τ|·) of any candidate
	Features       int       // k of the round that found it, or of the last round tried (columns drawn for change)
	Candidates     int       // candidates tried
	NonFinite      int       // candidates whose F(τ|·) was not finite (never valid)
	// Counterfactuals are, when several were asked for, up to that many distinct valid
	// candidates, the first being Counterfactual (see dice); nil otherwise.
	Counterfactuals [][]float64
}

// diceSpace is where DiCE-random draws one instance's candidates: the columns that may
// change, each with its legal values inside the instance's box, so that every candidate is a
// row the data could hold and keeps the constraints.
type diceSpace struct {
	cols []data.Column
	sc   *data.Scaler
	box  box
	free []int // the columns that may change
	// lo and hi are a numeric input's range: the training range (standardised) clamped
	// into the box. Clamping both ends keeps lo ≤ hi, so a training range wholly outside the
	// box (an increase-only feature already above it) shrinks to the box's nearest end, and
	// a side the user left open (-bounds name=lo:) is drawn up to the training range.
	lo, hi []float64
}

// newDiceSpace is the space of the instance with box b; trainLo and trainHi are the training
// range of every input, standardised.
func newDiceSpace(cols []data.Column, sc *data.Scaler, b box, trainLo, trainHi []float64) *diceSpace {
	d := &diceSpace{cols: cols, sc: sc, box: b, lo: make([]float64, len(trainLo)), hi: make([]float64, len(trainHi))}
	for ci, c := range cols {
		if b.move[c.Start] {
			d.free = append(d.free, ci)
		}
	}
	for f := range trainLo {
		d.lo[f] = min(max(trainLo[f], b.slo[f]), b.shi[f])
		d.hi[f] = min(max(trainHi[f], b.slo[f]), b.shi[f])
	}
	return d
}

// draw returns the instance with k columns, drawn with replacement among the free ones (as
// DiCE does), set to random legal values: a continuous column uniform in its range, a
// categorical column one of its categories inside the box, a binary column one of its values
// inside the box, an integer or ordinal column an integer or rank in its range, each equally
// likely.
func (d *diceSpace) draw(rng *rand.Rand, k int) []float64 {
	cand := slices.Clone(d.box.x)
	for range k {
		c := d.cols[d.free[rng.IntN(len(d.free))]]
		f := c.Start
		switch c.Type {
		case data.Continuous:
			cand[f] = d.lo[f] + rng.Float64()*(d.hi[f]-d.lo[f])
		case data.Categorical:
			cats := categories(c, d.box.hi)
			setCategory(cand, c, cats[rng.IntN(len(cats))])
		case data.Binary:
			vals := binaryValues(c, d.box.lo[f], d.box.hi[f])
			cand[f] = d.box.standardised(d.sc, f, vals[rng.IntN(len(vals))])
		default: // integer, and ordinal ranks
			lo, hi := intRange(d.lo[f]*d.sc.Std[f]+d.sc.Mean[f], d.hi[f]*d.sc.Std[f]+d.sc.Mean[f])
			cand[f] = d.box.standardised(d.sc, f, lo+float64(rng.IntN(int(hi-lo)+1)))
		}
	}
	return cand
}

// dice is DiCE-random with the model's compiled classifier, one space per instance, for up
// to total counterfactuals per instance (DiCE's total_CFs; 0 or 1: one).
//
// The first counterfactual is always the valid candidate closest to x (L1) of the first
// round with any valid one. With total > 1 the others follow dice_ml's DiceRandom
// (_generate_counterfactuals in dice_ml/explainer_interfaces/dice_random.py): every valid
// candidate of every round is kept, duplicates dropped; the rounds go on until a round of at
// least two changed columns, with valid candidates, ends with total or more kept ("always
// change at least 2 features before stopping"), or every round is done; and where more than
// total were kept, DiCE takes a uniform sample of total of them (DataFrame.sample). Here the
// sample is of total − 1 beside the first, drawn with the instance's own generator, so that
// the first, and every metric of it, is what one counterfactual gives. Not DiCE's: round k
// draws its k columns afresh rather than one more on the candidates of the round before (k
// draws with replacement either way), and there is no post-hoc sparsity step.
func (m *model) dice(ctx context.Context, spaces []*diceSpace, targets []int, cfg DiceConfig, threshold float64, seed uint64, total int) ([]*DiceResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(spaces) == 0 {
		return nil, nil
	}
	xs := make([][]float64, len(spaces))
	for i, d := range spaces {
		xs[i] = d.box.x
	}
	maxK := len(spaces[0].cols)
	if cfg.MaxFeatures > 0 {
		maxK = min(maxK, cfg.MaxFeatures)
	}
	probs0, tgt, err := m.startingClasses(ctx, xs, targets, threshold)
	if err != nil {
		return nil, err
	}
	out := make([]*DiceResult, len(xs))
	rngs := make([]*rand.Rand, len(xs))
	kept := make([]*dicePool, len(xs))
	for i, x := range xs {
		out[i] = &DiceResult{Original: quce.PredictedClass(probs0[i], threshold), Target: tgt[i]}
		rngs[i] = rand.New(rand.NewPCG(seed, hashRow(x)))
		if total > 1 {
			kept[i] = &dicePool{seen: map[string]bool{}}
		}
	}
	for round := 1; round <= maxK; round++ {
		var pending []int
		for i, r := range out {
			if r.Counterfactual == nil || kept[i] != nil && !kept[i].done {
				pending = append(pending, i)
			}
		}
		if len(pending) == 0 {
			break
		}
		cands := make([][]float64, 0, len(pending)*cfg.Samples)
		for _, i := range pending {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for range cfg.Samples {
				cands = append(cands, spaces[i].draw(rngs[i], round))
			}
		}
		probs, err := m.probs.At(ctx, cands)
		if err != nil {
			return nil, err
		}
		for n, i := range pending {
			r := out[i]
			r.Candidates += cfg.Samples
			first := r.Counterfactual == nil // no valid candidate yet: this round may find the first
			if first {
				r.Features = round
			}
			best, valid := math.Inf(1), 0
			for c := 0; c < cfg.Samples; c++ {
				idx := n*cfg.Samples + c
				p := probs[idx][r.Target]
				if math.IsNaN(p) || math.IsInf(p, 0) {
					r.NonFinite++
				}
				if r.Counterfactual == nil && p > r.ProbEnd {
					r.ProbEnd = p
				}
				// Written so that a NaN probability (a model that outputs NaN) is never valid.
				if !(p >= threshold) {
					continue
				}
				valid++
				kept[i].add(cands[idx])
				if d := L1(cands[idx], xs[i]); first && d < best {
					best = d
					r.Counterfactual, r.ProbEnd, r.Features = cands[idx], p, round
				}
			}
			// DiCE's stopping rule, which it checks only after a round with valid candidates.
			if kept[i] != nil && round >= 2 && valid > 0 && len(kept[i].rows) >= total {
				kept[i].done = true
			}
		}
	}
	for i, r := range out {
		if kept[i] != nil && r.Counterfactual != nil {
			r.Counterfactuals = kept[i].pick(rngs[i], r.Counterfactual, total)
		}
	}
	return out, nil
}

// dicePool holds an instance's distinct valid candidates (with total > 1).
type dicePool struct {
	rows [][]float64
	seen map[string]bool // the rows' values, as keys (rowKey)
	done bool            // DiCE would stop drawing for the instance
}

// add keeps the candidate unless an equal one is kept already, as DiCE's drop_duplicates. A
// nil pool, an instance asked for one counterfactual, keeps nothing.
func (p *dicePool) add(row []float64) {
	if p == nil {
		return
	}
	key := rowKey(row)
	if !p.seen[key] {
		p.seen[key] = true
		p.rows = append(p.rows, row)
	}
}

// pick is first and up to total − 1 other kept rows, uniformly sampled without replacement
// (a partial Fisher–Yates shuffle with rng), in the order drawn.
func (p *dicePool) pick(rng *rand.Rand, first []float64, total int) [][]float64 {
	out := [][]float64{first}
	var rest [][]float64
	for _, r := range p.rows {
		if !slices.Equal(r, first) {
			rest = append(rest, r)
		}
	}
	for j := 0; j < len(rest) && len(out) < total; j++ {
		o := j + rng.IntN(len(rest)-j)
		rest[j], rest[o] = rest[o], rest[j]
		out = append(out, rest[j])
	}
	return out
}

// rowKey is a row's exact values as a string, a map key.
func rowKey(x []float64) string {
	b := make([]byte, 0, 8*len(x))
	for _, v := range x {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return string(b)
}

// hashRow keys a generator by a row's values.
func hashRow(x []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range x {
		u := math.Float64bits(v)
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// RunDice runs DiCE's "random" strategy for standardised rows xs with the classifier clf
// (see DiceConfig), every feature a free continuous column: for k = 1, 2, ... it draws
// cfg.Samples candidates per instance, each x with k randomly chosen features replaced by
// values drawn uniformly from that feature's range [lo_j, hi_j] (the training split's
// minimum and maximum, standardised); the first round with a candidate in the target class τ
// (F(τ|·) ≥ ϑ; targets[i], or the default target when targets is nil or targets[i] < 0) ends
// the search for that instance, and the valid candidate closest to x in L1 is kept. Every
// instance has its own generator, seeded by seed and the instance's values, so a result does
// not depend on the batch it is in. This is DiCE's random sampler without its optional
// post-hoc sparsity step. Run draws by column instead, legal values under the constraints
// (see Options.Constraints).
func RunDice(ctx context.Context, b compute.Backend, clf *quce.Classifier, xs [][]float64, targets []int, lo, hi []float64, cfg DiceConfig, threshold float64, seed uint64) ([]*DiceResult, error) {
	j := clf.NumFeatures()
	if len(lo) != j || len(hi) != j {
		return nil, fmt.Errorf("eval: DiCE range has %d/%d entries for %d features", len(lo), len(hi), j)
	}
	cols := inputColumns(j)
	spaces := make([]*diceSpace, len(xs))
	for i, x := range xs {
		if len(x) != j {
			return nil, fmt.Errorf("eval: row %d has %d features, the classifier %d", i, len(x), j)
		}
		spaces[i] = newDiceSpace(cols, nil, openBox(x), lo, hi)
	}
	return newModel(b, clf).dice(ctx, spaces, targets, cfg, threshold, seed, 1)
}
