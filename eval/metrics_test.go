package eval

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/quce-go/quce/data"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestDistances(t *testing.T) {
	cases := []struct {
		name              string
		x, xc             []float64
		l1, l2            float64
		changed           int // at tolerance 1e-3
		recon             []float64
		reconErr          float64
		wantMean, wantStd float64 // of xc
	}{
		{"3-4-5", []float64{0, 0, 0}, []float64{3, -4, 0}, 7, 5, 2, []float64{3, -4, 0}, 0, -1.0 / 3, math.Sqrt(74.0 / 9)},
		{"tolerance", []float64{1, 1}, []float64{1.0005, 3}, 2.0005, math.Sqrt(0.0005*0.0005 + 4), 1, []float64{2, 1}, (0.9995 + 2) / 2, 2.00025, 0.99975},
		{"unchanged", []float64{1, -2}, []float64{1, -2}, 0, 0, 0, []float64{1, -2}, 0, -0.5, 1.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := L1(c.x, c.xc); !near(got, c.l1, 1e-12) {
				t.Errorf("L1 = %v, want %v", got, c.l1)
			}
			if got := L2(c.x, c.xc); !near(got, c.l2, 1e-12) {
				t.Errorf("L2 = %v, want %v", got, c.l2)
			}
			if got := Changed(nil, c.x, c.xc, 1e-3); got != c.changed {
				t.Errorf("Changed = %d, want %d", got, c.changed)
			}
			if got := ReconError(c.xc, c.recon); !near(got, c.reconErr, 1e-12) {
				t.Errorf("ReconError = %v, want %v", got, c.reconErr)
			}
			m, s := MeanStd(c.xc)
			if !near(m, c.wantMean, 1e-12) || !near(s, c.wantStd, 1e-12) {
				t.Errorf("MeanStd = %v, %v; want %v, %v", m, s, c.wantMean, c.wantStd)
			}
		})
	}
	if m, s := MeanStd(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("MeanStd(nil) = %v, %v; want NaN, NaN", m, s)
	}
}

// Sparsity counts columns: a categorical block once, a discrete column at any change of
// value, a continuous one beyond the tolerance.
func TestChangedColumns(t *testing.T) {
	cols := []data.Column{
		{Name: "colour", Type: data.Categorical, Levels: []string{"red", "green", "blue"}, Start: 0, Width: 3},
		{Name: "amount", Type: data.Integer, Start: 3, Width: 1},
		{Name: "ratio", Type: data.Continuous, Start: 4, Width: 1},
	}
	x := []float64{1, 0, 0, 0.1, 0.2}
	for _, tc := range []struct {
		name string
		xc   []float64
		want int
	}{
		{"unchanged", []float64{1, 0, 0, 0.1, 0.2}, 0},
		{"a new category counts once", []float64{0, 1, 0, 0.1, 0.2}, 1},
		{"one unit of a wide integer column, below the tolerance", []float64{1, 0, 0, 0.1 + 3.5e-4, 0.2}, 1},
		{"float32 rounding is no change", []float64{1, 0, 0, float64(float32(0.1)), 0.2}, 0},
		{"a continuous move below the tolerance", []float64{1, 0, 0, 0.1, 0.2 + 5e-4}, 0},
		{"every column", []float64{0, 0, 1, 1.1, 0.2 + 2e-3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Changed(cols, x, tc.xc, 1e-3); got != tc.want {
				t.Errorf("Changed = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestInterpolate(t *testing.T) {
	// Two segments: a short one (length 1) then a long one (length 3).
	path := [][]float64{{0, 0}, {1, 0}, {1, 3}}
	cases := []struct {
		name      string
		m         int
		arcLength bool
		want      [][]float64
	}{
		// By step index each segment gets half the points: t = 1/4, 2/4, 3/4, 1.
		{"step", 4, false, [][]float64{{0.5, 0}, {1, 0}, {1, 1.5}, {1, 3}}},
		// By arc length (total 4) the points are 1 apart along the path.
		{"arc length", 4, true, [][]float64{{1, 0}, {1, 1}, {1, 2}, {1, 3}}},
		{"step, one point", 1, false, [][]float64{{1, 3}}},
		// Eight points on two segments: the recorded middle point is hit exactly.
		{"step, finer", 8, false, [][]float64{{0.25, 0}, {0.5, 0}, {0.75, 0}, {1, 0}, {1, 0.75}, {1, 1.5}, {1, 2.25}, {1, 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Interpolate(path, c.m, c.arcLength)
			if len(got) != len(c.want) {
				t.Fatalf("%d points, want %d", len(got), len(c.want))
			}
			for k := range got {
				for j := range got[k] {
					if !near(got[k][j], c.want[k][j], 1e-12) {
						t.Fatalf("point %d = %v, want %v", k+1, got[k], c.want[k])
					}
				}
			}
		})
	}
	// A path of exactly m steps is sampled at its own points x_Δ1..x_Δm (so recorded
	// uncertainties can be reused): frac is 0 and seg = k.
	steps := make([][]float64, 11)
	for i := range steps {
		steps[i] = []float64{float64(i * i)}
	}
	for k := 1; k <= 10; k++ {
		if seg, frac := Locate(steps, k, 10, false); seg != k || frac != 0 {
			t.Errorf("Locate(k=%d) = %d, %v; want %d, 0", k, seg, frac, k)
		}
	}
	// A one-point path gives copies of its point.
	if got := Interpolate([][]float64{{2, 3}}, 3, true); !reflect.DeepEqual(got, [][]float64{{2, 3}, {2, 3}, {2, 3}}) {
		t.Errorf("one-point path: %v", got)
	}
}

func TestDeletionInsertionHand(t *testing.T) {
	x := []float64{1, 2, 3}
	attr := []float64{0.1, 0.5, -0.2}
	zero := []float64{0, 0, 0}
	if got := Order(attr); !reflect.DeepEqual(got, []int{1, 0, 2}) {
		t.Fatalf("Order = %v, want [1 0 2]", got)
	}
	if got := DeletionPoints(x, attr, zero); !reflect.DeepEqual(got, [][]float64{{1, 0, 3}, {0, 0, 3}, {0, 0, 0}}) {
		t.Errorf("DeletionPoints = %v", got)
	}
	if got := InsertionPoints(x, attr, zero); !reflect.DeepEqual(got, [][]float64{{0, 2, 0}, {1, 2, 0}, {1, 2, 3}}) {
		t.Errorf("InsertionPoints = %v", got)
	}
	// A toy "probability": the sum of the features over 10.
	prob := func(pts [][]float64) ([]float64, error) {
		out := make([]float64, len(pts))
		for i, p := range pts {
			for _, v := range p {
				out[i] += v / 10
			}
		}
		return out, nil
	}
	// Deletion: sums 4, 3, 0 → mean (0.4+0.3+0)/3. Insertion: sums 2, 3, 6.
	if got, _ := DeletionScore(x, attr, prob); !near(got, 0.7/3, 1e-12) {
		t.Errorf("DeletionScore = %v, want %v", got, 0.7/3)
	}
	if got, _ := InsertionScore(x, attr, prob); !near(got, 1.1/3, 1e-12) {
		t.Errorf("InsertionScore = %v, want %v", got, 1.1/3)
	}
	// Ties keep feature order.
	if got := Order([]float64{1, 1, 2}); !reflect.DeepEqual(got, []int{2, 0, 1}) {
		t.Errorf("Order with ties = %v, want [2 0 1]", got)
	}
}

// The deletion game must rank a known-correct attribution of a linear model better than
// the same attribution reversed. For F(1|x) = σ(w·x) and the zero baseline, feature j adds
// s·w_j·x_j to the original class's logit (s = ±1), which is what a correct attribution of
// F(τ|·) along a path from x towards the baseline measures.
func TestDeletionRanksLinearModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const j = 8
	for trial := 0; trial < 50; trial++ {
		w, x := make([]float64, j), make([]float64, j)
		for f := range w {
			w[f], x[f] = rng.NormFloat64(), rng.NormFloat64()
		}
		logit := 0.0
		for f := range w {
			logit += w[f] * x[f]
		}
		s := 1.0
		if logit < 0 {
			s = -1
		}
		probOrig := func(pts [][]float64) ([]float64, error) {
			out := make([]float64, len(pts))
			for i, p := range pts {
				z := 0.0
				for f := range p {
					z += w[f] * p[f]
				}
				out[i] = 1 / (1 + math.Exp(-s*z))
			}
			return out, nil
		}
		correct, reversed := make([]float64, j), make([]float64, j)
		for f := range w {
			correct[f] = s * w[f] * x[f]
			reversed[f] = -correct[f]
		}
		dc, _ := DeletionScore(x, correct, probOrig)
		dr, _ := DeletionScore(x, reversed, probOrig)
		ic, _ := InsertionScore(x, correct, probOrig)
		ir, _ := InsertionScore(x, reversed, probOrig)
		if !(dc < dr) {
			t.Errorf("trial %d: deletion correct %.4f, reversed %.4f; want correct lower", trial, dc, dr)
		}
		if !(ic > ir) {
			t.Errorf("trial %d: insertion correct %.4f, reversed %.4f; want correct higher", trial, ic, ir)
		}
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want []Method
		bad  bool
	}{
		{"", []Method{QUCE, QUCEAuto, IG, AGI, Wachter, DiceRandom}, false},
		{"all", []Method{QUCE, QUCEAuto, IG, AGI, Wachter, DiceRandom}, false},
		{"ig,quce", []Method{QUCE, IG}, false},
		{" QUCE , dice ", []Method{QUCE, DiceRandom}, false},
		{"agi,agi,wachter", []Method{AGI, Wachter}, false},
		{"dice-random", []Method{DiceRandom}, false},
		{"shap", nil, true},
	}
	for _, c := range cases {
		got, err := ParseMethods(c.in)
		if (err != nil) != c.bad || (!c.bad && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("ParseMethods(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
	if got, err := ParseSplits("test,train,test"); err != nil || !reflect.DeepEqual(got, []string{Test, Train}) {
		t.Errorf("ParseSplits = %v, %v", got, err)
	}
	if _, err := ParseSplits("validation"); err == nil {
		t.Error("ParseSplits accepted an unknown split")
	}
}

func TestApplies(t *testing.T) {
	for _, m := range AllMethods() {
		for _, k := range MetricKeys {
			want := true
			switch {
			case m == DiceRandom:
				want = !pathMetrics[k] && !attributionMetrics[k]
			case m == IG:
				want = !counterfactualMetrics[k]
			}
			if got := Applies(m, k); got != want {
				t.Errorf("Applies(%s, %s) = %v, want %v", m, k, got, want)
			}
		}
	}
}

// aggregate by hand: three instances, the second invalid, the third with no path measured.
func TestAggregate(t *testing.T) {
	mk := func(valid, measured bool, metrics map[string]float64) *outcome {
		return &outcome{res: InstanceResult{Valid: valid, Metrics: metrics}, measured: measured}
	}
	outs := []*outcome{
		mk(true, true, map[string]float64{"path_uncertainty": 1, "path_uncertainty_trained": 2, CompletenessGap: -0.01, Deletion: 0.2, Insertion: 0.9,
			CFUncertainty: 1, CFUncertaintyTrained: 3, CFReconError: 0.1, ProximityL1: 2, ProximityL2: 1, Sparsity: 3}),
		mk(false, true, map[string]float64{"path_uncertainty": 3, "path_uncertainty_trained": 4, CompletenessGap: 0.03, Deletion: 0.4, Insertion: 0.7,
			CFUncertainty: 9, CFUncertaintyTrained: 9, CFReconError: 0.9, ProximityL1: 9, ProximityL2: 9, Sparsity: 9}),
		mk(true, false, map[string]float64{CFUncertainty: 2, CFUncertaintyTrained: 5, CFReconError: 0.3, ProximityL1: 4, ProximityL2: 3, Sparsity: 1}),
	}
	want := map[string]float64{
		PathUncertaintyMean: 2, PathUncertaintyStd: 1, PathUncertaintyTrainedMean: 3, PathUncertaintyTrainedStd: 1,
		CompletenessGap: 0.02, Deletion: 0.3, Insertion: 0.8, Validity: 2.0 / 3,
		// Counterfactual metrics over the two valid instances only.
		CFUncertainty: 1.5, CFUncertaintyTrained: 4, CFReconError: 0.2, ProximityL1: 3, ProximityL2: 2, Sparsity: 2,
	}
	got := aggregate(QUCE, outs, Options{})
	if len(got) != len(want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	for k, w := range want {
		if !near(got[k], w, 1e-12) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	all := aggregate(QUCE, outs, Options{AllCounterfactuals: true})
	if !near(all[CFUncertainty], 4, 1e-12) || !near(all[ProximityL1], 5, 1e-12) {
		t.Errorf("over every counterfactual: cf uncertainty %v, L1 %v; want 4, 5", all[CFUncertainty], all[ProximityL1])
	}
	// ig keeps only path metrics; dice-random only counterfactual ones.
	for k := range aggregate(IG, outs, Options{}) {
		if counterfactualMetrics[k] {
			t.Errorf("ig has counterfactual metric %s", k)
		}
	}
	for k := range aggregate(DiceRandom, outs, Options{}) {
		if pathMetrics[k] || attributionMetrics[k] {
			t.Errorf("dice-random has path metric %s", k)
		}
	}
}

// The matched metrics average over the instances every method with counterfactuals made
// valid: a method that fails the hardest instance is not compared on easier ones. ig, which
// has no counterfactual of its own, does not count.
func TestMatchedInstances(t *testing.T) {
	mk := func(valid bool, l1 float64) *outcome {
		return &outcome{res: InstanceResult{Valid: valid, Metrics: map[string]float64{ProximityL1: l1, CFUncertainty: l1 / 10}}}
	}
	outs := map[Method][]*outcome{
		QUCE: {mk(true, 1), mk(true, 9), mk(true, 3)},  // reaches the hard second instance, far
		AGI:  {mk(true, 2), mk(false, 0), mk(true, 2)}, // fails it
		IG:   {mk(false, 0), mk(false, 0), mk(false, 0)},
	}
	methods := []Method{QUCE, AGI, IG}
	both := matchedInstances(methods, outs, 3)
	if !slices.Equal(both, []int{0, 2}) {
		t.Fatalf("matched %v, want [0 2]", both)
	}
	for _, tc := range []struct {
		m         Method
		key       string
		want      float64
		plainWant float64 // over the method's own valid instances
	}{
		{QUCE, ProximityL1, 2, 13.0 / 3},
		{AGI, ProximityL1, 2, 2},
		{QUCE, CFUncertainty, 0.2, 13.0 / 30},
	} {
		got, ok := meanOver(outs[tc.m], both, tc.key)
		if !ok || !near(got, tc.want, 1e-12) {
			t.Errorf("%s %s matched = %v (%v), want %v", tc.m, tc.key, got, ok, tc.want)
		}
		if plain := aggregate(tc.m, outs[tc.m], Options{})[tc.key]; !near(plain, tc.plainWant, 1e-12) {
			t.Errorf("%s %s plain = %v, want %v", tc.m, tc.key, plain, tc.plainWant)
		}
	}
	if Applies(IG, ProximityL1Matched) || !Applies(DiceRandom, CFUncertaintyMatched) {
		t.Error("the matched metrics apply to the methods with counterfactuals of their own only")
	}
}
