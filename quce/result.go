package quce

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/data"
)

// Path is one optimisation path from x to its counterfactual, with everything measured on it.
// Vectors are indexed by feature; "standardised" means in the units the models see.
type Path struct {
	// Points are the path's kept points (standardised): x_Δ0 = x, ..., x_Δn = x_c, every
	// point or, with Config.PathPoints, evenly spaced ones. Step gives each one's index
	// among all the path's points; the vectors below are measured at the kept points.
	Points [][]float64
	// PointsOriginal are the same points in the data's units, exactly: an input at the
	// instance's value (frozen, reset by Config.Sparse, or unchanged) is the instance's
	// value as given (Query.Original), a discrete column at a legal value is that value,
	// and every value lies inside the query's box in the data's units.
	PointsOriginal [][]float64
	Step           []int
	Probability    []float64 // F(τ|·) at each kept point
	Uncertainty    []float64 // L_ε at each kept point, trained (negative-ELBO) form
	// UncertaintyPaper is L_ε at each point in the paper's form (mean MSE + KL).
	UncertaintyPaper []float64

	Counterfactual         []float64 // x_c = x_Δn (standardised)
	CounterfactualOriginal []float64 // x_c in original units, exactly as PointsOriginal
	ProbEnd                float64   // F(τ|x_c)
	Valid                  bool      // F(τ|x_c) ≥ ϑ and no failure
	// Margin is F(τ|x_c) − ϑ, how far inside the target class the counterfactual lies (the
	// walks back towards x keep it at least Config.Margin, see there); negative when not
	// valid, NaN when the path failed.
	Margin float64 `json:"margin"`
	// UnseenCombination lists, as "column=value", the category values of x_c that pair with
	// another value of x_c as no training row does (one of the two changed from x; see
	// Settings.SeenCategories and data.Combinations.Unseen): a counterfactual describing no
	// person there is. nil when every such pair was seen, or without SeenCategories.
	UnseenCombination []string `json:"unseen_combination,omitempty"`
	Steps             int      // optimisation steps taken (fewer than n after an early stop)
	// Failure says why the path failed: its search diverged (a point, F, a gradient or the
	// objective became non-finite, or an input moved more than 1000 standard deviations from
	// the instance), or its attribution is unreliable (its completeness gap is beyond
	// ±MaxCompletenessGap, or Σ_j |Φ_j| beyond MaxAttributionSum). A failed path is
	// never valid, and its counterfactual, attribution and the other figures measured at its
	// end are NaN; Points and the vectors along them hold where it went before it failed.
	Failure string
	// RelaxedProb is F(τ|·) where the search ended. With discrete columns (see
	// Settings.Columns) the search's end is then projected onto the nearest legal row,
	// which can change F; ProbEnd is that of the legal row. Without them it equals ProbEnd.
	RelaxedProb float64
	// Projected says the search's end was not a legal row and was moved to one.
	Projected bool
	// Repairs are the columns changed, in order, by the one-column moves that restored
	// validity after the projection (see Settings.Columns); each is a path segment.
	Repairs []int
	// Resets are the columns that Config.Sparse set back to x's values, in the order of
	// the path's last segments (after the optimisation steps and any projection).
	Resets []int
	// PulledBack is the share t of the way from the search's end back towards x that
	// automatic λ's pull-back walked (Auto.PullBack) as the path's last segments: the
	// distance to x shrank by the factor 1 − t. 0 when there was none.
	PulledBack float64 `json:",omitempty"`
	// Stalled is the optimisation step at which the search stalled (not valid, F(τ|·) not
	// rising and the model's gradient vanished, as on a saturated tanh or sigmoid network),
	// after which it walked on without the proximity term (λ2 = 0) and stopped once
	// F(τ|·) ≥ ϑ + 0.05; 0 if it did not stall (see watchStall).
	Stalled int `json:",omitempty"`
	// Held are the columns (indices into the columns) held at the instance's values to find
	// this counterfactual as another option (Config.Counterfactuals); nil for the first.
	Held []int `json:",omitempty"`

	Attribution      []float64 // Φ: path-integrated gradients of F(τ|·)
	AttributionPlus  []float64 // Φ⁺: straight-line IG from x_c to x_c + ε
	AttributionMinus []float64 // Φ⁻: straight-line IG from x_c to x_c − ε
	Epsilon          []float64 // ε = |x_c − r(x_c)|, r the VAE's reconstruction (vae.VAE.Reconstruction); 0 for a frozen input
	// CompletenessGap is Σ_j Φ_j − (F(τ|x_c) − F(τ|x)): zero for exact integration.
	CompletenessGap float64

	CFUncertainty      float64 // L_ε(x_c), trained form
	CFUncertaintyPaper float64 // L_ε(x_c), paper form (the paper's "VAE loss")
	CFReconError       float64 // mean over features of |x_c − r(x_c)|, frozen ones too
	// PathUncertainty and PathUncertaintyPaper are the means of L_ε over all the path's
	// points (kept or not).
	PathUncertainty      float64
	PathUncertaintyPaper float64
}

// Explanation is the result for one instance: its paths and the expected attribution
// over them (exQUCE). With one path the expected values equal that path's.
type Explanation struct {
	Target         int       // τ
	PredictedClass int       // f(x): see PredictedClass
	Probabilities  []float64 // F(c|x) for every class c
	X              []float64 // the instance (standardised)
	XOriginal      []float64 // the instance in original units (Query.Original when given)
	ProbStart      float64   // F(τ|x)
	Paths          []*Path   // Paths[0] starts exactly at x; the others at a seeded offset

	// The expectations are over the paths that did not fail (see Completed); NaN when every
	// path failed.
	Attribution      []float64 // mean over paths of Φ
	AttributionStd   []float64 // standard deviation over paths of Φ (zeros for one path)
	AttributionPlus  []float64 // mean over paths of Φ⁺
	AttributionMinus []float64 // mean over paths of Φ⁻
	// CompletenessGap is mean Σ_j Φ_j − (mean F(τ|x_c) − F(τ|x)).
	CompletenessGap float64
	// Auto says how λ2 and λ3 were chosen, with Config.Auto; nil otherwise.
	Auto *AutoChoice
	// Counterfactuals are the distinct valid counterfactuals found with Config.Counterfactuals
	// above 1, the first being Paths[0]'s, each the path of its own search from x (Held says
	// the columns it held at x's values); nil without that setting, or when the first is not
	// valid.
	Counterfactuals []*Path

	// AlreadyTarget says the model already predicts the target class for x (PredictedClass
	// with the threshold ϑ): there is nothing to change, so no search ran. The one path is x
	// alone (no steps), the counterfactual is x, every attribution, Φ± and ε is zero, and
	// Valid says as always whether F(τ|x) ≥ ϑ. It is not a counterfactual that was found.
	AlreadyTarget bool
	// Unchanged marks, per entry of Attribution (a model input, or a column after
	// ByColumn), the entries whose value at the counterfactual equals x's on every path.
	// See Detours. Nil for explanations made by hand.
	Unchanged []bool
}

// DetourMin is the least |Φ| of an unchanged entry that Detours reports: smaller ones are at
// the level of the path integral's own error (completeness gaps of 1e-4 to 1e-3) and read as
// zero in a table of four decimals.
const DetourMin = 1e-3

// Detours marks the entries of Attribution that end unchanged (Unchanged) yet carry an
// attribution of at least DetourMin in size: the path moved them and brought them back (a
// category that the search leaned away from and the rounding to the data's values
// restored, or a feature that Config.Sparse reset), and their Φ is what that detour
// contributed to the change in F, as the path integral counts every move, not only where
// the path ends. Readers would otherwise credit a change nobody has to make. Nil when
// Unchanged is.
func (x *Explanation) Detours() []bool {
	if x.Unchanged == nil {
		return nil
	}
	out := make([]bool, len(x.Unchanged))
	for f, u := range x.Unchanged {
		out[f] = u && math.Abs(x.Attribution[f]) >= DetourMin
	}
	return out
}

// unchanged marks the inputs whose counterfactual is x's on every path, by the one rule of
// what a counterfactual changes (data.Column.Changed, exactly: as the explainer sees x, in
// float32).
func (x *Explanation) unchanged() []bool {
	out := make([]bool, len(x.X))
	for f := range x.X {
		input := data.Column{Start: f, Width: 1}
		out[f] = !slices.ContainsFunc(x.Paths, func(p *Path) bool { return input.Changed(x.X, p.Counterfactual, data.ExactChange) })
	}
	return out
}

// Path0 is the path that starts exactly at x: the QUCE explanation proper.
func (e *Explanation) Path0() *Path { return e.Paths[0] }

// ValidRate is the share of paths whose counterfactual is valid.
func (e *Explanation) ValidRate() float64 {
	n := 0
	for _, p := range e.Paths {
		if p.Valid {
			n++
		}
	}
	return float64(n) / float64(len(e.Paths))
}

// assemble adds ε and the ± integrals to the walked rows and builds the results. The rows'
// ± integrals are computed in parts of Batching.UncertaintyRows (a fixed size, so that a
// row's figures do not depend on how many cores the call has, see Batching; on a CPU small
// enough that two of them keep two cores busy for 455 rows), up to as many at the same time
// as the call has shards (job.eachShard over the parts); the paths are then built on every
// CPU core (job.eachShard over the rows, a shard a core), since turning each kept point into the data's units is most of
// this phase's time and, on a backend of one shard such as XLA on a GPU, would otherwise
// run on one core while the others idle. fix is the fix
// named when a path's attribution is not fit to report.
func (jb job) assemble(ctx context.Context, cfg Config, queries []Query, pred [][]float64, rows []*row, tm *Timings, fix string) ([]*Explanation, error) {
	t0 := time.Now()
	out := make([]*Explanation, len(queries))
	for qi, q := range queries {
		first := rows[qi*cfg.Paths]
		out[qi] = &Explanation{
			Target: first.target, PredictedClass: PredictedClass(pred[qi], cfg.Threshold),
			Probabilities: pred[qi],
			X:             append([]float64(nil), q.X...), XOriginal: slices.Clone(first.x0orig),
			ProbStart: float64(first.kept.points[0].prob),
		}
	}
	unc := make([]rowUncertainty, len(rows))
	size := jb.pr.batching.UncertaintyRows
	parts := (len(rows) + size - 1) / size
	if _, err := jb.eachShard(ctx, parts, func(_, first, last int, _ compute.DeviceNum) error {
		for p := first; p < last; p++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			lo := p * size
			part, err := uncertaintyAttributions(ctx, cfg, jb.pr, rows[lo:min(lo+size, len(rows))])
			if err != nil {
				return err
			}
			copy(unc[lo:], part)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	t1 := time.Now()
	tm.Uncertainty += t1.Sub(t0).Seconds()
	paths := make([]*Path, len(rows))
	cores := jb
	cores.shards = maxShards(0, jb.pr.devices())
	if _, err := cores.eachShard(ctx, len(rows), func(_, lo, hi int, _ compute.DeviceNum) error {
		for i := lo; i < hi; i++ {
			u := unc[i]
			paths[i] = jb.in.pathResult(cfg, rows[i], u.plus, u.minus, u.eps, fix)
			if paths[i].Failure == "" {
				paths[i].CFReconError = u.reconErr
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for i, r := range rows {
		out[r.query].Paths = append(out[r.query].Paths, paths[i])
	}
	for _, ex := range out {
		ex.expectation()
		ex.Unchanged = ex.unchanged()
	}
	tm.Paths += time.Since(t1).Seconds()
	return out, nil
}

// rowUncertainty is what uncertaintyAttributions finds for a row: ε, the ± integrals Φ±, and
// the VAE's reconstruction error at the counterfactual.
type rowUncertainty struct {
	plus, minus []float64
	eps         []float32
	reconErr    float64
}

// uncertaintyAttributions computes ε and the ± integrals of rows.
func uncertaintyAttributions(ctx context.Context, cfg Config, pr programs, rows []*row) ([]rowUncertainty, error) {
	j := pr.numFeatures()
	last := make([][]float32, len(rows))
	for i, r := range rows {
		last[i] = r.last.x
	}
	_, _, recon, err := pr.pointsMany(last)
	if err != nil {
		return nil, err
	}
	// Φ± are straight-line integrals from x_c to x_c ± ε with K right-endpoint points. A
	// frozen input has ε = 0, so Φ± = 0: its value cannot move, so the VAE's reconstruction
	// gap there is no uncertainty of the counterfactual. The reconstruction error counts every
	// input (it measures how typical x_c is).
	invK := 1 / float64(cfg.K)
	eps := make([][]float32, len(rows))
	reconErr := make([]float64, len(rows))
	var pts [][]float32
	var targets [][]float32
	for i, r := range rows {
		eps[i] = make([]float32, j)
		for f := range eps[i] {
			gap := float32(math.Abs(float64(last[i][f] - recon[i][f])))
			reconErr[i] += float64(gap) / float64(j)
			eps[i][f] = gap * r.move[f]
		}
		for _, dir := range []float32{1, -1} {
			for k := 1; k <= cfg.K; k++ {
				pt := make([]float32, j)
				for f := range pt {
					pt[f] = last[i][f] + dir*float32(float64(k)*invK)*eps[i][f]
				}
				pts = append(pts, pt)
				targets = append(targets, r.onehot)
			}
		}
	}
	_, grads, err := pr.probeMany(ctx, pts, targets)
	if err != nil {
		return nil, err
	}
	out := make([]rowUncertainty, len(rows))
	for i := range rows {
		plus, minus := make([]float64, j), make([]float64, j)
		base := i * 2 * cfg.K
		for k := 0; k < cfg.K; k++ {
			gp, gm := grads[base+k], grads[base+cfg.K+k]
			for f := 0; f < j; f++ {
				plus[f] += float64(eps[i][f]) * invK * float64(gp[f])
				minus[f] -= float64(eps[i][f]) * invK * float64(gm[f])
			}
		}
		out[i] = rowUncertainty{plus: plus, minus: minus, eps: eps[i], reconErr: reconErr[i]}
	}
	return out, nil
}

// alreadyTargets fills out[qi] for every query that the model already puts in its target
// class targets[qi] (see Explanation.AlreadyTarget); pred are the queries' class
// probabilities.
func alreadyTargets(cfg Config, pr programs, in inputs, queries []Query, pred [][]float64, targets []int, out []*Explanation) error {
	var idx []int
	var xs [][]float32
	for qi := range queries {
		if targets[qi] == PredictedClass(pred[qi], cfg.Threshold) {
			idx = append(idx, qi)
			xs = append(xs, toF32(queries[qi].X))
		}
	}
	unc, uncPaper, recon, err := pr.pointsMany(xs)
	if err != nil {
		return err
	}
	j := pr.numFeatures()
	for k, qi := range idx {
		x, f := toF64(xs[k]), pred[qi][targets[qi]]
		orig, err := in.original(qi, queries[qi])
		if err != nil {
			return err
		}
		reconErr := 0.0
		for i := range x {
			reconErr += math.Abs(float64(xs[k][i]-recon[k][i])) / float64(j)
		}
		u, up := float64(unc[k]), float64(uncPaper[k])
		p := &Path{
			Points: [][]float64{x}, PointsOriginal: [][]float64{orig}, Step: []int{0}, Probability: []float64{f},
			Uncertainty: []float64{u}, UncertaintyPaper: []float64{up},
			Counterfactual: x, CounterfactualOriginal: slices.Clone(orig),
			ProbEnd: f, RelaxedProb: f, Valid: f >= cfg.Threshold, Margin: f - cfg.Threshold,
			Attribution: make([]float64, j), AttributionPlus: make([]float64, j),
			AttributionMinus: make([]float64, j), Epsilon: make([]float64, j),
			CFUncertainty: u, CFUncertaintyPaper: up, CFReconError: reconErr,
			PathUncertainty: u, PathUncertaintyPaper: up,
		}
		ex := &Explanation{
			Target: targets[qi], PredictedClass: targets[qi], Probabilities: pred[qi],
			X: append([]float64(nil), queries[qi].X...), XOriginal: orig,
			ProbStart: f, Paths: []*Path{p}, AlreadyTarget: true,
		}
		ex.expectation()
		ex.Unchanged = ex.unchanged()
		out[qi] = ex
	}
	return nil
}

// MaxCompletenessGap is the largest |completeness gap| an attribution may have and still be
// reported. F(τ|·) is a probability, so F(τ|x_c) − F(τ|x) lies in [−1, 1]: a gap beyond
// half of that means the path's integral missed much of the change (its segments are far
// too long for the rule, as when a search with too large a learning rate jumps about), and
// the attribution is not the change it claims to split.
const MaxCompletenessGap = 0.5

// MaxAttributionSum is the largest Σ_j |Φ_j| an attribution may have and still be reported:
// ten times the largest possible change in F. Parts far larger than the change they split
// cancel each other, which a path does when it swings back and forth, as a search with too
// large a learning rate does inside bounds (jumping from corner to corner of its box); their
// sum can then still come close to the change, so the gap alone does not catch it. Measured
// on W-BC and German credit (every test row): at most 2.8 with the default settings, 3.8
// with automatic λ and sparsity, 4.0 with -lr 1.
const MaxAttributionSum = 10

// pathResult is row r's path as reported (in the data's units too), with the ± attributions
// plus and minus and ε eps; a path that failed, or whose attribution fails its checks, is
// withdrawn, naming fix.
func (in inputs) pathResult(cfg Config, r *row, plus, minus []float64, eps []float32, fix string) *Path {
	kept := r.kept.points
	if kept[len(kept)-1].step != r.last.step {
		kept = append(kept, r.last)
	}
	p := &Path{
		Points: make([][]float64, len(kept)), PointsOriginal: make([][]float64, len(kept)), Step: make([]int, len(kept)),
		Probability: make([]float64, len(kept)), Uncertainty: make([]float64, len(kept)), UncertaintyPaper: make([]float64, len(kept)),
		Attribution: r.phi, AttributionPlus: plus, AttributionMinus: minus, Epsilon: toF64(eps),
		Steps: r.searched - 1, Failure: r.failure, Resets: r.resets, Repairs: r.repairs, PulledBack: r.pulledBack,
		RelaxedProb: float64(r.relaxedProb), Projected: r.projected, Stalled: r.stalled,
	}
	if r.offset {
		p.Steps-- // the jump to the offset start is not an optimisation step
	}
	// Each path's points in two blocks (a 4 096-row search keeps some 800 000 points).
	j := len(kept[0].x)
	pts, orig := make([]float64, len(kept)*j), make([]float64, len(kept)*j)
	for i, k := range kept {
		p.Points[i], p.PointsOriginal[i] = pts[i*j:(i+1)*j:(i+1)*j], orig[i*j:(i+1)*j:(i+1)*j]
		toF64Into(p.Points[i], k.x)
		in.dataUnitsInto(p.PointsOriginal[i], r.box(), k.x)
		p.Step[i] = k.step
		p.Probability[i], p.Uncertainty[i], p.UncertaintyPaper[i] = float64(k.prob), float64(k.unc), float64(k.uncPapr)
	}
	p.Counterfactual = toF64(r.last.x)
	p.CounterfactualOriginal = in.dataUnits(r.box(), r.last.x)
	p.ProbEnd = float64(r.last.prob)
	p.Margin = p.ProbEnd - cfg.Threshold
	if r.failure == "" && in.seen != nil {
		p.UnseenCombination = in.seen.Unseen(p.CounterfactualOriginal, r.x0orig)
	}
	sum := 0.0
	for _, v := range r.phi {
		sum += v
	}
	p.CompletenessGap = sum - (p.ProbEnd - p.Probability[0])
	p.CFUncertainty, p.CFUncertaintyPaper = float64(r.last.unc), float64(r.last.uncPapr)
	p.PathUncertainty, p.PathUncertaintyPaper = r.sumUnc/float64(r.n), r.sumPaper/float64(r.n)
	mass := 0.0
	for _, v := range r.phi {
		mass += math.Abs(v)
	}
	switch {
	case p.Failure != "":
	case !(math.Abs(p.CompletenessGap) <= MaxCompletenessGap):
		p.Failure = fmt.Sprintf("the attribution is unreliable: its completeness gap is beyond ±%g, half of the largest possible change in F, so the path's segments are too long to integrate; %s, or more points per segment (Config.K)", MaxCompletenessGap, fix)
	case !(mass <= MaxAttributionSum):
		p.Failure = fmt.Sprintf("the attribution is unreliable: its parts sum to more than %g in absolute value, %g times the largest possible change in F, so the path swings back and forth; %s", float64(MaxAttributionSum), float64(MaxAttributionSum), fix)
	}
	p.Valid = p.ProbEnd >= cfg.Threshold && p.Failure == ""
	if p.Failure != "" {
		p.withdraw()
	}
	return p
}

// withdraw sets the results of a failed path to NaN: a search that diverged or a path that
// cannot be integrated has no counterfactual and no attribution to report, and NaN, unlike
// the numbers where it stopped, cannot be mistaken for one (outputs write it as null or NA).
// The points it walked before it failed stay, to show where it went.
func (p *Path) withdraw() {
	nan := math.NaN()
	for _, v := range [][]float64{p.Counterfactual, p.CounterfactualOriginal, p.Attribution, p.AttributionPlus, p.AttributionMinus, p.Epsilon} {
		for i := range v {
			v[i] = nan
		}
	}
	p.ProbEnd, p.RelaxedProb, p.CompletenessGap, p.Margin = nan, nan, nan, nan
	p.UnseenCombination = nil
	p.CFUncertainty, p.CFUncertaintyPaper, p.CFReconError = nan, nan, nan
	p.PathUncertainty, p.PathUncertaintyPaper = nan, nan
}

// Completed returns the paths that did not fail (Path.Failure is empty): the expected
// attribution and its spread are taken over these.
func (x *Explanation) Completed() []*Path {
	var out []*Path
	for _, p := range x.Paths {
		if p.Failure == "" {
			out = append(out, p)
		}
	}
	return out
}

// expectation fills the exQUCE fields from the paths that did not fail (all NaN when every
// path failed).
func (x *Explanation) expectation() {
	j := len(x.Paths[0].Attribution) // inputs, or columns (ByColumn)
	paths := x.Completed()
	m := float64(len(paths))
	x.Attribution, x.AttributionStd = make([]float64, j), make([]float64, j)
	x.AttributionPlus, x.AttributionMinus = make([]float64, j), make([]float64, j)
	sumPhi, meanEnd := 0.0, 0.0
	for _, p := range paths {
		for f := 0; f < j; f++ {
			x.Attribution[f] += p.Attribution[f] / m
			x.AttributionPlus[f] += p.AttributionPlus[f] / m
			x.AttributionMinus[f] += p.AttributionMinus[f] / m
			sumPhi += p.Attribution[f] / m
		}
		meanEnd += p.ProbEnd / m
	}
	if len(paths) > 1 {
		for f := 0; f < j; f++ {
			ss := 0.0
			for _, p := range paths {
				d := p.Attribution[f] - x.Attribution[f]
				ss += d * d
			}
			x.AttributionStd[f] = math.Sqrt(ss / (m - 1))
		}
	}
	x.CompletenessGap = sumPhi - (meanEnd - x.ProbStart)
	if len(paths) == 0 {
		nan := math.NaN()
		for _, v := range [][]float64{x.Attribution, x.AttributionStd, x.AttributionPlus, x.AttributionMinus} {
			for f := range v {
				v[f] = nan
			}
		}
		x.CompletenessGap = nan
	}
}

// NoneSucceeded is an error when the path from x of every explanation failed (see
// Path.Failure), naming the first failure and its fix; nil when at least one did not. A
// caller that gets it has no result to report, only the failures.
func NoneSucceeded(ex []*Explanation) error {
	for _, x := range ex {
		if x.Path0().Failure == "" {
			return nil
		}
	}
	if len(ex) == 0 {
		return nil
	}
	return AllFailed(len(ex), ex[0])
}

// AllFailed is NoneSucceeded's error for n explanations that all failed, first among them:
// for a caller that streams its explanations and keeps only the first (see ExplainStream).
func AllFailed(n int, first *Explanation) error {
	return fmt.Errorf("quce: every one of the %d explanations failed (the first: %s)", n, first.Path0().Failure)
}

// RankFeatures orders features by |attribution|, largest first (ties keep feature order).
func RankFeatures(attr []float64) []int {
	order := make([]int, len(attr))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return math.Abs(attr[order[a]]) > math.Abs(attr[order[b]]) })
	return order
}
