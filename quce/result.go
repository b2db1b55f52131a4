package quce

import (
	"context"
	"math"
	"time"
)

// Path is one optimisation path from x to its counterfactual, with everything measured on it.
// Vectors are indexed by feature; "standardised" means in the units the models see.
type Path struct {
	Points      [][]float64 // x_Δ0 = x, x_Δ1, ..., x_Δn (standardised)
	Probability []float64   // F(τ|·) at each point
	Uncertainty []float64   // L_ε at each point, trained (negative-ELBO) form
	// UncertaintyPaper is L_ε at each point in the paper's form (mean MSE + KL).
	UncertaintyPaper []float64

	Counterfactual         []float64 // x_c = x_Δn (standardised)
	CounterfactualOriginal []float64 // x_c in original units
	ProbEnd                float64   // F(τ|x_c)
	Valid                  bool      // F(τ|x_c) ≥ ϑ and no numerical failure
	Steps                  int       // optimisation steps taken (fewer than n after an early stop)
	Failure                string    // why the path stopped, if it failed numerically

	Attribution      []float64 // Φ: path-integrated gradients of F(τ|·)
	AttributionPlus  []float64 // Φ⁺: straight-line IG from x_c to x_c + ε
	AttributionMinus []float64 // Φ⁻: straight-line IG from x_c to x_c − ε
	Epsilon          []float64 // ε = |x_c − dec(μ(x_c))|
	// CompletenessGap is Σ_j Φ_j − (F(τ|x_c) − F(τ|x)): zero for exact integration.
	CompletenessGap float64

	CFUncertainty      float64 // L_ε(x_c), trained form
	CFUncertaintyPaper float64 // L_ε(x_c), paper form (the paper's "VAE loss")
	CFReconError       float64 // mean over features of ε
	// PathUncertainty and PathUncertaintyPaper are the means of L_ε over the path's points.
	PathUncertainty      float64
	PathUncertaintyPaper float64
}

// Explanation is the result for one instance: its paths and the expected attribution
// over them (exQUCE). With one path the expected values equal that path's.
type Explanation struct {
	Target         int       // τ
	PredictedClass int       // f(x) at threshold ϑ
	X              []float64 // the instance (standardised)
	XOriginal      []float64 // the instance in original units
	ProbStart      float64   // F(τ|x)
	Paths          []*Path   // Paths[0] starts exactly at x; the others at a seeded offset

	Attribution      []float64 // mean over paths of Φ
	AttributionStd   []float64 // standard deviation over paths of Φ (zeros for one path)
	AttributionPlus  []float64 // mean over paths of Φ⁺
	AttributionMinus []float64 // mean over paths of Φ⁻
	// CompletenessGap is mean Σ_j Φ_j − (mean F(τ|x_c) − F(τ|x)).
	CompletenessGap float64
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

// assemble integrates the attributions and the ± uncertainty and builds the results.
func (e *Explainer) assemble(ctx context.Context, cfg Config, queries []Query, pred []float64, rows []*row, tm *Timings) ([]*Explanation, error) {
	j := e.NumFeatures()
	acc := &accumulator{e: e, ctx: ctx}
	phi := make([][]float64, len(rows))
	plus := make([][]float64, len(rows))
	minus := make([][]float64, len(rows))
	eps := make([][]float32, len(rows))
	last := make([][]float32, len(rows))
	for i, r := range rows {
		last[i] = r.points[len(r.points)-1]
	}
	_, _, recon, err := e.pointsMany(last)
	if err != nil {
		return nil, err
	}
	invK := 1 / float64(cfg.K)
	t0 := time.Now()
	for i, r := range rows {
		phi[i], plus[i], minus[i] = make([]float64, j), make([]float64, j), make([]float64, j)
		for s := 1; s < len(r.points); s++ {
			a, b := r.points[s-1], r.points[s]
			dx := make([]float32, j)
			moved := false
			for f := range dx {
				dx[f] = b[f] - a[f]
				moved = moved || dx[f] != 0
			}
			if !moved {
				continue
			}
			switch cfg.Rule {
			case Trapezoid:
				for f := range dx {
					phi[i][f] += float64(dx[f]) * 0.5 * (float64(r.grad[s-1][f]) + float64(r.grad[s][f]))
				}
			default: // Riemann: K right-endpoint points; the last one is x_Δs, already probed.
				for f := range dx {
					phi[i][f] += float64(dx[f]) * invK * float64(r.grad[s][f])
				}
				for k := 1; k < cfg.K; k++ {
					pt := make([]float32, j)
					for f := range pt {
						pt[f] = a[f] + float32(float64(k)*invK)*dx[f]
					}
					if err := acc.add(pt, r.sign, phi[i], dx, invK); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	if err := acc.flush(); err != nil {
		return nil, err
	}
	tm.Attribution += time.Since(t0).Seconds()
	t0 = time.Now()
	for i, r := range rows {
		eps[i] = make([]float32, j)
		for f := range eps[i] {
			eps[i][f] = float32(math.Abs(float64(last[i][f] - recon[i][f])))
		}
		neg := make([]float32, j)
		for f := range neg {
			neg[f] = -eps[i][f]
		}
		for k := 1; k <= cfg.K; k++ {
			pp, pm := make([]float32, j), make([]float32, j)
			for f := range pp {
				step := float32(float64(k)*invK) * eps[i][f]
				pp[f], pm[f] = last[i][f]+step, last[i][f]-step
			}
			if err := acc.add(pp, r.sign, plus[i], eps[i], invK); err != nil {
				return nil, err
			}
			if err := acc.add(pm, r.sign, minus[i], neg, invK); err != nil {
				return nil, err
			}
		}
	}
	if err := acc.flush(); err != nil {
		return nil, err
	}
	tm.Uncertainty += time.Since(t0).Seconds()

	out := make([]*Explanation, len(queries))
	for qi, q := range queries {
		target := 1
		if rows[qi*cfg.Paths].sign < 0 {
			target = 0
		}
		predicted := 0
		if pred[qi] >= cfg.Threshold {
			predicted = 1
		}
		out[qi] = &Explanation{
			Target: target, PredictedClass: predicted,
			X: append([]float64(nil), q.X...), XOriginal: e.scaler.InverseRow(q.X),
			ProbStart: float64(rows[qi*cfg.Paths].prob[0]),
		}
	}
	for i, r := range rows {
		p := e.pathResult(cfg, r, phi[i], plus[i], minus[i], eps[i])
		out[r.query].Paths = append(out[r.query].Paths, p)
	}
	for _, ex := range out {
		ex.expectation()
	}
	return out, nil
}

func (e *Explainer) pathResult(cfg Config, r *row, phi, plus, minus []float64, eps []float32) *Path {
	n := len(r.points)
	p := &Path{
		Points: make([][]float64, n), Probability: toF64(r.prob),
		Uncertainty: toF64(r.unc), UncertaintyPaper: toF64(r.uncPaper),
		Attribution: phi, AttributionPlus: plus, AttributionMinus: minus, Epsilon: toF64(eps),
		Steps: n - 1, Failure: r.failure,
	}
	if r.path > 0 && cfg.StartNoise > 0 {
		p.Steps-- // the jump to the offset start is not an optimisation step
	}
	for i, pt := range r.points {
		p.Points[i] = toF64(pt)
	}
	p.Counterfactual = p.Points[n-1]
	p.CounterfactualOriginal = e.scaler.InverseRow(p.Counterfactual)
	p.ProbEnd = p.Probability[n-1]
	p.Valid = p.ProbEnd >= cfg.Threshold && r.failure == ""
	sum := 0.0
	for _, v := range phi {
		sum += v
	}
	p.CompletenessGap = sum - (p.ProbEnd - p.Probability[0])
	p.CFUncertainty, p.CFUncertaintyPaper = p.Uncertainty[n-1], p.UncertaintyPaper[n-1]
	p.CFReconError = mean(p.Epsilon)
	p.PathUncertainty, p.PathUncertaintyPaper = mean(p.Uncertainty), mean(p.UncertaintyPaper)
	return p
}

// expectation fills the exQUCE fields from the paths.
func (x *Explanation) expectation() {
	j := len(x.X)
	m := float64(len(x.Paths))
	x.Attribution, x.AttributionStd = make([]float64, j), make([]float64, j)
	x.AttributionPlus, x.AttributionMinus = make([]float64, j), make([]float64, j)
	sumPhi, meanEnd := 0.0, 0.0
	for _, p := range x.Paths {
		for f := 0; f < j; f++ {
			x.Attribution[f] += p.Attribution[f] / m
			x.AttributionPlus[f] += p.AttributionPlus[f] / m
			x.AttributionMinus[f] += p.AttributionMinus[f] / m
			sumPhi += p.Attribution[f] / m
		}
		meanEnd += p.ProbEnd / m
	}
	if len(x.Paths) > 1 {
		for f := 0; f < j; f++ {
			ss := 0.0
			for _, p := range x.Paths {
				d := p.Attribution[f] - x.Attribution[f]
				ss += d * d
			}
			x.AttributionStd[f] = math.Sqrt(ss / (m - 1))
		}
	}
	x.CompletenessGap = sumPhi - (meanEnd - x.ProbStart)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// accumulator streams gradient probes: it collects points in chunks and, for each, adds
// scale · w ⊙ ∇F(τ|point) into dst. Memory stays at one chunk, whatever the path count.
type accumulator struct {
	e     *Explainer
	ctx   context.Context
	pts   [][]float32
	signs []float32
	jobs  []accJob
}

type accJob struct {
	dst   []float64
	w     []float32
	scale float64
}

func (a *accumulator) add(pt []float32, sign float32, dst []float64, w []float32, scale float64) error {
	a.pts = append(a.pts, pt)
	a.signs = append(a.signs, sign)
	a.jobs = append(a.jobs, accJob{dst, w, scale})
	if len(a.pts) >= probeChunk {
		return a.flush()
	}
	return nil
}

func (a *accumulator) flush() error {
	if len(a.pts) == 0 {
		return nil
	}
	_, g, err := a.e.probeMany(a.ctx, a.pts, a.signs)
	if err != nil {
		return err
	}
	for k, job := range a.jobs {
		for f := range job.dst {
			job.dst[f] += job.scale * float64(job.w[f]) * float64(g[k][f])
		}
	}
	a.pts, a.signs, a.jobs = a.pts[:0], a.signs[:0], a.jobs[:0]
	return nil
}
