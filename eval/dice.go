package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/quce"
)

// DiceConfig holds the settings of the DiCE "random" baseline.
type DiceConfig struct {
	// Samples is the number of random candidates drawn per instance and per round (DiCE's
	// sample_size, 1000 by default).
	Samples int `json:"samples"`
	// MaxFeatures bounds the rounds: round k changes k randomly chosen features (chosen with
	// replacement, as DiCE does, so up to k distinct ones). 0 means every feature.
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
	Features       int       // k of the round that found it, or of the last round tried (features drawn for change)
	Candidates     int       // candidates tried
}

// dice is RunDice with the model's compiled classifier.
func (m *model) dice(ctx context.Context, xs [][]float64, targets []int, lo, hi []float64, cfg DiceConfig, threshold float64, seed uint64) ([]*DiceResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, nil
	}
	j := m.clf.NumFeatures()
	if len(lo) != j || len(hi) != j {
		return nil, fmt.Errorf("eval: DiCE range has %d/%d entries for %d features", len(lo), len(hi), j)
	}
	maxK := cfg.MaxFeatures
	if maxK == 0 || maxK > j {
		maxK = j
	}
	probs0, err := m.classProbs(ctx, xs)
	if err != nil {
		return nil, err
	}
	tgt, err := targetsFor(probs0, targets, threshold)
	if err != nil {
		return nil, err
	}
	out := make([]*DiceResult, len(xs))
	rngs := make([]*rand.Rand, len(xs))
	for i, x := range xs {
		out[i] = &DiceResult{Original: quce.PredictedClass(probs0[i], threshold), Target: tgt[i]}
		rngs[i] = rand.New(rand.NewPCG(seed, hashRow(x)))
	}
	for k := 1; k <= maxK; k++ {
		var pending []int
		for i, r := range out {
			if r.Counterfactual == nil {
				pending = append(pending, i)
			}
		}
		if len(pending) == 0 {
			break
		}
		cands := make([][]float64, 0, len(pending)*cfg.Samples)
		for _, i := range pending {
			for c := 0; c < cfg.Samples; c++ {
				cand := append([]float64(nil), xs[i]...)
				for f := 0; f < k; f++ {
					feat := rngs[i].IntN(j)
					cand[feat] = lo[feat] + rngs[i].Float64()*(hi[feat]-lo[feat])
				}
				cands = append(cands, cand)
			}
		}
		probs, err := m.classProbs(ctx, cands)
		if err != nil {
			return nil, err
		}
		for n, i := range pending {
			r := out[i]
			r.Candidates += cfg.Samples
			r.Features = k
			best := math.Inf(1)
			for c := 0; c < cfg.Samples; c++ {
				idx := n*cfg.Samples + c
				p := probs[idx][r.Target]
				if r.Counterfactual == nil {
					r.ProbEnd = max(r.ProbEnd, p)
				}
				if p < threshold {
					continue
				}
				if d := L1(cands[idx], xs[i]); d < best {
					best = d
					r.Counterfactual, r.ProbEnd, r.Features = cands[idx], p, k
				}
			}
		}
	}
	return out, nil
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
// (see DiceConfig): for
// k = 1, 2, ... it draws cfg.Samples candidates per instance, each x with k randomly chosen
// features replaced by values drawn uniformly from that feature's range [lo_j, hi_j]
// (the training split's minimum and maximum, standardised); the first round with a
// candidate in the target class τ (F(τ|·) ≥ ϑ; targets[i], or the default target when
// targets is nil or targets[i] < 0) ends the search for that instance, and the
// valid candidate closest to x in L1 is kept. Every instance has its own generator, seeded
// by seed and the instance's values, so a result does not depend on the batch it is in.
// This is DiCE's random sampler without its optional post-hoc sparsity step.
func RunDice(ctx context.Context, b compute.Backend, clf *quce.Classifier, xs [][]float64, targets []int, lo, hi []float64, cfg DiceConfig, threshold float64, seed uint64) ([]*DiceResult, error) {
	return newModel(b, clf).dice(ctx, xs, targets, lo, hi, cfg, threshold, seed)
}
