package population

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// The estimators (docs/METHOD.md#the-population-view): the mean of a measure over a set of
// rows, with a percentile bootstrap interval; the difference between the means of two
// sets, with a percentile bootstrap interval that resamples each set on its own, and a
// two-sided permutation test that shuffles the rows' set labels.

// rng is the random stream of one estimate: seeded by the summary's seed and by what is
// estimated, so each estimate is the same whichever others are made.
func rng(seed uint64, parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// quantile is the q-quantile of sorted values, interpolated linearly between order
// statistics (Hyndman and Fan's type 7, R's and NumPy's default).
func quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// resampledMean is the mean of len(v) values drawn from v with replacement.
func resampledMean(r *rand.Rand, v []float64) float64 {
	s := 0.0
	for range v {
		s += v[r.IntN(len(v))]
	}
	return s / float64(len(v))
}

// interval is the percentile interval at level of b draws of a statistic.
func interval(draws []float64, level float64) (lo, hi float64) {
	slices.Sort(draws)
	a := (1 - level) / 2
	return quantile(draws, a), quantile(draws, 1-a)
}

// bootstrapMean is the percentile bootstrap interval of the mean of v at level, from b
// resamples; NaN for fewer than 2 values, which no resample can vary.
func bootstrapMean(r *rand.Rand, v []float64, b int, level float64) (lo, hi float64) {
	if len(v) < 2 {
		return math.NaN(), math.NaN()
	}
	draws := make([]float64, b)
	for k := range draws {
		draws[k] = resampledMean(r, v)
	}
	return interval(draws, level)
}

// bootstrapDifference is the percentile bootstrap interval of mean(a) − mean(b), each set
// resampled on its own (its size kept), from n resamples; NaN when a set has fewer than 2
// values.
func bootstrapDifference(r *rand.Rand, a, b []float64, n int, level float64) (lo, hi float64) {
	if len(a) < 2 || len(b) < 2 {
		return math.NaN(), math.NaN()
	}
	draws := make([]float64, n)
	for k := range draws {
		draws[k] = resampledMean(r, a) - resampledMean(r, b)
	}
	return interval(draws, level)
}

// permutationP is the two-sided permutation p-value of mean(a) − mean(b): the share of n
// random relabellings of the pooled values (len(a) of them to a, the rest to b) whose
// difference is at least as large in size as the observed one, counting the observed
// labelling too, (1 + k) / (1 + n), so that it is never 0 (Phipson and Smyth, 2010). NaN
// when a set is empty.
func permutationP(r *rand.Rand, a, b []float64, n int) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	pool := slices.Concat(a, b)
	total, scale := 0.0, 0.0
	for _, v := range pool {
		total += v
		scale = math.Max(scale, math.Abs(v))
	}
	na, nb := float64(len(a)), float64(len(b))
	observed := math.Abs(mean(a) - mean(b))
	// Relabellings whose difference equals the observed one must count, whatever the
	// order of the sums rounds it to.
	tol := 1e-9 * scale
	k := 0
	for range n {
		// A random len(a)-subset: the first len(a) places of a partial Fisher-Yates shuffle.
		sa := 0.0
		for i := range len(a) {
			j := i + r.IntN(len(pool)-i)
			pool[i], pool[j] = pool[j], pool[i]
			sa += pool[i]
		}
		if math.Abs(sa/na-(total-sa)/nb) >= observed-tol {
			k++
		}
	}
	return float64(1+k) / float64(1+n)
}
