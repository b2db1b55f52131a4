package eval

import (
	"context"
	"math"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	gomlx "github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/gomlxmodel"
	"github.com/quce-go/quce/quce"
)

// linearClassifier is F(1|x) = σ(w·x + b), a GoMLX model taking standardised units (the
// scaler is the identity).
func linearClassifier(t *testing.T, w []float32, b float32) *quce.Classifier {
	t.Helper()
	store := gomlx.NewStore()
	col := make([][]float32, len(w))
	for i, v := range w {
		col[i] = []float32{v}
	}
	store.RootScope().VariableWithValue("w", col)
	store.RootScope().VariableWithValue("b", []float32{b})
	m, err := gomlxmodel.New(store, func(scope *gomlx.Scope, x *graph.Node) *graph.Node {
		g := x.Graph()
		return graph.Add(graph.Dot(x, scope.GetVariable("w").NodeValue(g)).Product(), graph.ExpandAxes(scope.GetVariable("b").NodeValue(g), 0))
	}, len(w))
	if err != nil {
		t.Fatal(err)
	}
	sc := &data.Scaler{Mean: make([]float64, len(w)), Std: make([]float64, len(w))}
	for i := range sc.Std {
		sc.Std[i] = 1
	}
	clf, err := quce.NewClassifier(m, quce.Standardized, quce.Logits, sc)
	if err != nil {
		t.Fatal(err)
	}
	return clf
}

// AGI on logit = x1 + 2·x2, by hand. Row 0: logit 0.152 (class 1); each step moves both
// features by −0.01, the logit by −0.03: 0.122, 0.092, 0.062, 0.032, 0.002, then −0.028 at
// step 6, where it flips. Row 1: logit −0.058 (class 0) rises by 0.03 a step and flips at
// step 2 (0.002). Each row stops on its own.
func TestAGIStopsAtFlip(t *testing.T) {
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	clf := linearClassifier(t, []float32{1, 2}, 0)
	xs := [][]float64{{0.05, 0.051}, {-0.1, 0.021}}
	cases := []struct {
		name      string
		maxSteps  int
		steps     []int
		flipped   []bool
		originals []int
	}{
		{"flip", 1000, []int{6, 2}, []bool{true, true}, []int{1, 0}},
		{"step limit", 4, []int{4, 2}, []bool{false, true}, []int{1, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			paths, err := RunAGI(context.Background(), b, clf, xs, nil, AGIConfig{Eta: 0.01, MaxSteps: c.maxSteps}, 0.5)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range paths {
				if p.Steps != c.steps[i] || p.Flipped != c.flipped[i] || p.Original != c.originals[i] || len(p.Points) != p.Steps+1 {
					t.Errorf("row %d: steps %d flipped %v original %d points %d; want %d %v %d", i, p.Steps, p.Flipped, p.Original, len(p.Points), c.steps[i], c.flipped[i], c.originals[i])
				}
				dir := -1.0
				if p.Original == 0 {
					dir = 1
				}
				for k, pt := range p.Points {
					for f := range pt {
						if want := xs[i][f] + dir*0.01*float64(k); !near(pt[f], want, 1e-6) {
							t.Fatalf("row %d point %d = %v, want feature %d = %v", i, k, pt, f, want)
						}
					}
					z := pt[0] + 2*pt[1]
					inTarget := (z >= 0) != (p.Original == 1)
					if last := k == len(p.Points)-1; inTarget != (last && p.Flipped) {
						t.Errorf("row %d point %d: logit %v; in the other class %v", i, k, z, inTarget)
					}
				}
				if p.Flipped && p.ProbEnd < 0.5 {
					t.Errorf("row %d flipped with F(τ) = %v", i, p.ProbEnd)
				}
			}
		})
	}
	if _, err := RunAGI(context.Background(), b, clf, xs, nil, AGIConfig{Eta: 0, MaxSteps: 10}, 0.5); err == nil {
		t.Error("η = 0 was accepted")
	}
}

// AGI on logit = x1 + 2·x2 from (0.05, 0.051), class 1, with x2 frozen and x1 bounded below
// by 0.02: x1 steps down by 0.01 to the bound and stays there, x2 never moves, so the logit
// stays at 0.122 and the run never flips.
func TestAGIKeepsConstraints(t *testing.T) {
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(b, linearClassifier(t, []float32{1, 2}, 0))
	x := []float64{0.05, 0.051}
	bx := box{x: x, move: []bool{true, false}, slo: []float64{0.02, math.Inf(-1)}, shi: []float64{math.Inf(1), math.Inf(1)}}
	paths, err := m.agi(context.Background(), nil, []box{bx}, nil, AGIConfig{Eta: 0.01, MaxSteps: 10}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	p := paths[0]
	if p.Flipped || p.Steps != 10 {
		t.Errorf("flipped %v after %d steps; want no flip in 10", p.Flipped, p.Steps)
	}
	for k, pt := range p.Points {
		want := []float64{max(0.05-0.01*float64(k), 0.02), 0.051}
		for f := range pt {
			if !near(pt[f], want[f], 1e-6) {
				t.Fatalf("point %d = %v, want %v", k, pt, want)
			}
		}
	}
}

// AGI's sign step must not vanish where the classifier is saturated: at logit 200, F(1|x)
// is exactly 1 in float32, so a probability gradient is 0, but the logit's is not.
func TestAGISaturated(t *testing.T) {
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	clf := linearClassifier(t, []float32{100, 100}, 0)
	paths, err := RunAGI(context.Background(), b, clf, [][]float64{{1, 1}}, nil, AGIConfig{Eta: 0.6, MaxSteps: 10}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if p := paths[0]; !p.Flipped || p.Steps != 2 {
		t.Errorf("saturated start: flipped %v after %d steps; want a flip after 2 (logit 200 → 80 → −40)", p.Flipped, p.Steps)
	}
}

// diceProblem is a linear model, logit = x1 − x2 + 0.5·x3, with features ranging over [-2, 2]
// but x3 over [0, 1], and four instances to flip.
func diceProblem(t *testing.T) (b compute.Backend, clf *quce.Classifier, lo, hi []float64, xs [][]float64) {
	t.Helper()
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	return b, linearClassifier(t, []float32{1, -1, 0.5}, 0), []float64{-2, -2, 0}, []float64{2, 2, 1},
		[][]float64{{1, 0, 0.5}, {-1, 1, 0}, {0.2, 0.1, 1}, {-0.3, 0.2, 0.2}}
}

func TestDiceValidAndInRange(t *testing.T) {
	b, clf, lo, hi, xs := diceProblem(t)
	run := func(seed uint64) []*DiceResult {
		res, err := RunDice(context.Background(), b, clf, xs, nil, lo, hi, DiceConfig{Samples: 200}, 0.5, seed)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(3)
	for i, r := range res {
		if r.Counterfactual == nil {
			t.Fatalf("row %d: no counterfactual", i)
		}
		z := r.Counterfactual[0] - r.Counterfactual[1] + 0.5*r.Counterfactual[2]
		orig := 0
		if xs[i][0]-xs[i][1]+0.5*xs[i][2] >= 0 {
			orig = 1
		}
		if r.Original != orig || (z >= 0) == (orig == 1) || r.ProbEnd < 0.5 {
			t.Errorf("row %d: counterfactual %v (logit %v) is not in the other class of %d", i, r.Counterfactual, z, orig)
		}
		for f, v := range r.Counterfactual {
			if v != xs[i][f] && (v < lo[f] || v > hi[f]) {
				t.Errorf("row %d feature %d = %v outside the training range [%v, %v]", i, f, v, lo[f], hi[f])
			}
		}
		if r.Features < 1 || r.Candidates < 200 {
			t.Errorf("row %d: %d features, %d candidates", i, r.Features, r.Candidates)
		}
	}
	// Seeded: the same seed gives the same counterfactuals.
	again := run(3)
	for i := range res {
		for f := range res[i].Counterfactual {
			if res[i].Counterfactual[f] != again[i].Counterfactual[f] {
				t.Fatalf("row %d differs between runs with one seed", i)
			}
		}
	}
	// An unreachable class is a reported failure, not a dropped row: with every feature
	// confined to a range where the logit stays positive, class 0 cannot be reached.
	far, err := RunDice(context.Background(), b, clf, [][]float64{{1, 0, 0}}, nil, []float64{1, -1, 0}, []float64{2, 0, 1}, DiceConfig{Samples: 50}, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if far[0].Counterfactual != nil || far[0].Features != 3 || far[0].Candidates != 150 || math.IsNaN(far[0].ProbEnd) || far[0].ProbEnd >= 0.5 {
		t.Errorf("unreachable class: %+v", far[0])
	}
}
