package eval

import (
	"math"
	"sort"

	"github.com/quce-go/quce/data"
)

// The metric keys of Report.Metrics, as in the JSON output. A metric that does not apply to
// a method (see Applies) is absent from that method's map, never zero.
const (
	PathUncertaintyMean = "path_uncertainty_mean" // paper-form L_ε along the path: mean over instances
	PathUncertaintyStd  = "path_uncertainty_std"  // ... and its standard deviation over instances
	CFUncertainty       = "cf_uncertainty"        // paper-form L_ε(x_c)
	CFReconError        = "cf_recon_error"        // mean over features of |x_c − dec(μ(x_c))|
	Validity            = "validity"              // share of instances with F(τ|x_c) ≥ ϑ
	ProximityL1         = "proximity_l1"          // ‖x_c − x‖₁, standardised units
	ProximityL2         = "proximity_l2"          // ‖x_c − x‖₂, standardised units
	Sparsity            = "sparsity"              // columns changed by more than the tolerance
	CompletenessGap     = "completeness_gap"      // |Σ_j Φ_j − (F(τ|x_c) − F(τ|x))|
	Deletion            = "deletion"              // lower is better
	Insertion           = "insertion"             // higher is better
	SecondsPerInstance  = "seconds_per_instance"  // wall time of the method / instances

	// Proximity L1 and the counterfactual uncertainty again, averaged over the instances that
	// every method with counterfactuals made valid (Report.Matched), so that no method is
	// compared on easier instances than another: the plain means average each method over
	// its own valid counterfactuals, and a method that fails the hardest instances looks
	// closer than one that reaches them.
	ProximityL1Matched   = "proximity_l1_matched"
	CFUncertaintyMatched = "cf_uncertainty_matched"

	// The same two uncertainties in the trained (negative-ELBO) form of L_ε, which is the
	// one the QUCE objective minimises; both forms are reported (docs/METHOD.md#the-vae-and-its-uncertainty).
	PathUncertaintyTrainedMean = "path_uncertainty_trained_mean"
	PathUncertaintyTrainedStd  = "path_uncertainty_trained_std"
	CFUncertaintyTrained       = "cf_uncertainty_trained"
)

// MetricKeys lists the metric keys in the order the tables are printed.
var MetricKeys = []string{
	PathUncertaintyMean, PathUncertaintyStd, CFUncertainty, CFReconError, Validity,
	ProximityL1, ProximityL1Matched, CFUncertaintyMatched, ProximityL2, Sparsity, CompletenessGap,
	Deletion, Insertion, SecondsPerInstance, PathUncertaintyTrainedMean, PathUncertaintyTrainedStd,
	CFUncertaintyTrained, YNN, YNNMatched, Redundancy, RedundancyMatched, DistanceL1MinMax,
	DistanceL1MinMaxMatched, DistanceL2MinMax, DistanceL2MinMaxMatched, DistanceLinfMinMax,
	DistanceLinfMinMaxMatched, ConstraintViolations, CounterfactualsPerRow, TwoOrMore, DiversityContinuous,
	DiversityCategorical, CountDiversity, OptionsDistanceL1MinMax,
}

var pathMetrics = map[string]bool{
	PathUncertaintyMean: true, PathUncertaintyStd: true,
	PathUncertaintyTrainedMean: true, PathUncertaintyTrainedStd: true,
}

var attributionMetrics = map[string]bool{CompletenessGap: true, Deletion: true, Insertion: true}

var counterfactualMetrics = map[string]bool{
	CFUncertainty: true, CFUncertaintyTrained: true, CFReconError: true, Validity: true,
	ProximityL1: true, ProximityL2: true, Sparsity: true, ProximityL1Matched: true, CFUncertaintyMatched: true,
	YNN: true, YNNMatched: true, Redundancy: true, RedundancyMatched: true,
	DistanceL1MinMax: true, DistanceL1MinMaxMatched: true, DistanceL2MinMax: true, DistanceL2MinMaxMatched: true,
	DistanceLinfMinMax: true, DistanceLinfMinMaxMatched: true, ConstraintViolations: true,
	CounterfactualsPerRow: true, TwoOrMore: true, DiversityContinuous: true, DiversityCategorical: true,
	CountDiversity: true, OptionsDistanceL1MinMax: true,
}

// Applies reports whether a metric applies to a method:
//   - path metrics (path uncertainty) and attribution metrics (completeness gap, deletion,
//     insertion) apply to the path methods quce, ig, agi and wachter;
//   - counterfactual metrics (uncertainty, reconstruction error, validity, proximity,
//     sparsity, the recourse metrics: yNN, redundancy, min-max distances, constraint
//     violations, and those of several counterfactuals per row) apply to the methods that
//     make their own counterfactual: quce, quce-auto, agi, wachter and dice-random. ig ends
//     at QUCE's counterfactual, so its counterfactual metrics would be QUCE's; they are
//     absent;
//   - seconds per instance applies to every method.
func Applies(m Method, metric string) bool {
	switch {
	case metric == SecondsPerInstance:
		return true
	case pathMetrics[metric] || attributionMetrics[metric]:
		return m.HasPath()
	case counterfactualMetrics[metric]:
		a, _ := lookup(m)
		return a.ownCounterfactual
	}
	return false
}

// L1 is Σ_j |a_j − b_j|.
func L1(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		s += math.Abs(a[j] - b[j])
	}
	return s
}

// L2 is √Σ_j (a_j − b_j)².
func L2(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		d := a[j] - b[j]
		s += d * d
	}
	return math.Sqrt(s)
}

// Changed counts the columns of cols that a counterfactual xc changed from x: the sparsity
// of a counterfactual (lower is sparser), by the one rule of what a counterfactual changes
// (data.Column.Changed) with tolerance tol > 0, as the baselines' counterfactuals need: a
// continuous column counts when an input moved by more than tol (standardised units), a
// discrete one when its value changed beyond float32 rounding, a categorical column's
// one-hot block once. nil cols counts every input as a continuous column of its own.
func Changed(cols []data.Column, x, xc []float64, tol float64) int {
	if cols == nil {
		cols = inputColumns(len(x))
	}
	return len(data.ChangedColumns(cols, x, xc, tol))
}

// ReconError is the mean over features of |x_c − x̂_c|.
func ReconError(xc, recon []float64) float64 {
	s := 0.0
	for j := range xc {
		s += math.Abs(xc[j] - recon[j])
	}
	return s / float64(len(xc))
}

// MeanStd returns the mean and the population standard deviation (divisor n, numpy's
// default) of v; NaN for both when v is empty.
func MeanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

// Interpolate resamples a piecewise-linear path (points[0] = x, ..., points[n] = x_c) at m
// points, parametrised by step index ("evenly per segment"): the path is t ↦ the point a
// fraction t·n along its n segments, and the samples are the Riemann right end points
// t_k = k/m, k = 1..m. So a path of exactly m steps is sampled at its own points
// x_Δ1..x_Δm, a straight line of one segment at m even points, and the density of the
// recorded points (Adam's steps crowd near x_c) is kept, as in the paper's 1000-step
// evaluation. With arcLength the parameter is the Euclidean length along the path instead
// (even spacing in space). A path of one point gives m copies of it.
func Interpolate(points [][]float64, m int, arcLength bool) [][]float64 {
	out := make([][]float64, m)
	for k := 1; k <= m; k++ {
		seg, frac := Locate(points, k, m, arcLength)
		out[k-1] = lerp(points, seg, frac)
	}
	return out
}

// Locate returns where the k-th of m interpolation points (see Interpolate) lies: in
// segment seg (from points[seg] to points[seg+1]) at fraction frac ∈ [0, 1). frac == 0
// means the point is exactly points[seg]; the last point is reported as (n, 0), the end.
func Locate(points [][]float64, k, m int, arcLength bool) (seg int, frac float64) {
	n := len(points) - 1
	if n <= 0 {
		return 0, 0
	}
	if !arcLength {
		// Exact integer arithmetic: t·n = k·n/m.
		seg = k * n / m
		frac = float64(k*n%m) / float64(m)
		return seg, frac
	}
	lengths := make([]float64, n)
	total := 0.0
	for i := 0; i < n; i++ {
		lengths[i] = L2(points[i], points[i+1])
		total += lengths[i]
	}
	if total == 0 {
		return n, 0
	}
	target := total * float64(k) / float64(m)
	if k == m {
		return n, 0
	}
	acc := 0.0
	for i := 0; i < n; i++ {
		if lengths[i] > 0 && acc+lengths[i] > target {
			return i, (target - acc) / lengths[i]
		}
		acc += lengths[i]
	}
	return n, 0
}

func lerp(points [][]float64, seg int, frac float64) []float64 {
	a := points[seg]
	if frac == 0 || seg+1 >= len(points) {
		return append([]float64(nil), a...)
	}
	b := points[seg+1]
	out := make([]float64, len(a))
	for j := range a {
		out[j] = a[j] + frac*(b[j]-a[j])
	}
	return out
}

// Order returns the feature indices sorted by attribution, largest first (ties by index).
func Order(attr []float64) []int {
	idx := make([]int, len(attr))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return attr[idx[a]] > attr[idx[b]] })
	return idx
}

// DeletionPoints are the J points of the deletion game for x with attribution attr:
// point k (k = 1..J) is x with its k largest-attributed features set to the baseline.
func DeletionPoints(x, attr, baseline []float64) [][]float64 {
	cur := append([]float64(nil), x...)
	out := make([][]float64, 0, len(x))
	for _, j := range Order(attr) {
		cur[j] = baseline[j]
		out = append(out, append([]float64(nil), cur...))
	}
	return out
}

// InsertionPoints are the mirror image: point k is the baseline with x's k
// largest-attributed features put back.
func InsertionPoints(x, attr, baseline []float64) [][]float64 {
	cur := append([]float64(nil), baseline...)
	out := make([][]float64, 0, len(x))
	for _, j := range Order(attr) {
		cur[j] = x[j]
		out = append(out, append([]float64(nil), cur...))
	}
	return out
}

// GameScore is the deletion or insertion score from F(original class | point) at the J
// points of DeletionPoints or InsertionPoints: their mean, the area under the curve with
// one unit per step (the starting point, before any feature is moved, is not counted).
func GameScore(probOriginal []float64) float64 {
	m, _ := MeanStd(probOriginal)
	return m
}

// DeletionScore plays the deletion game for one instance: attributions are of the target
// class τ along the path from x, so a large Φ_j marks a feature whose value at x holds the
// model in the original class; deleting those first should drop F(original class|·) fast,
// and a lower score is better. probOriginal returns F(original class | ·) at points; the
// baseline is the zero vector (the training mean in standardised units).
func DeletionScore(x, attr []float64, probOriginal func([][]float64) ([]float64, error)) (float64, error) {
	p, err := probOriginal(DeletionPoints(x, attr, make([]float64, len(x))))
	if err != nil {
		return 0, err
	}
	return GameScore(p), nil
}

// InsertionScore is the insertion game (from the zero baseline, inserting x's features
// largest attribution first); higher is better.
func InsertionScore(x, attr []float64, probOriginal func([][]float64) ([]float64, error)) (float64, error) {
	p, err := probOriginal(InsertionPoints(x, attr, make([]float64, len(x))))
	if err != nil {
		return 0, err
	}
	return GameScore(p), nil
}
