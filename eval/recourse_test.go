package eval

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

func TestMinMaxDistances(t *testing.T) {
	for _, tc := range []struct {
		name          string
		x, xc, lo, hi []float64
		l1, l2, linf  float64
	}{
		{"unchanged", []float64{1, 2}, []float64{1, 2}, []float64{0, 0}, []float64{4, 4}, 0, 0, 0},
		{"scaled by the range", []float64{0, 0}, []float64{2, -3}, []float64{0, -6}, []float64{4, 0}, 1, math.Sqrt(0.25 + 0.25), 0.5},
		{"a constant input by 1", []float64{1, 0}, []float64{1.5, 0}, []float64{1, 0}, []float64{1, 2}, 0.5, 0.5, 0.5},
		{"a one-hot switch counts 1 each", []float64{1, 0, 5}, []float64{0, 1, 5}, []float64{0, 0, 0}, []float64{1, 1, 10}, 2, math.Sqrt2, 1},
	} {
		l1, l2, linf := MinMaxDistances(tc.x, tc.xc, tc.lo, tc.hi)
		if math.Abs(l1-tc.l1) > 1e-12 || math.Abs(l2-tc.l2) > 1e-12 || math.Abs(linf-tc.linf) > 1e-12 {
			t.Errorf("%s: (%v, %v, %v), want (%v, %v, %v)", tc.name, l1, l2, linf, tc.l1, tc.l2, tc.linf)
		}
	}
}

func TestYNN(t *testing.T) {
	// Training rows on a line at 0, 1, …, 9; the model predicts class 1 from 5 on.
	train := make([][]float64, 10)
	predicted := make([]int, 10)
	for i := range train {
		train[i] = []float64{float64(i), 0}
		if i >= 5 {
			predicted[i] = 1
		}
	}
	for _, tc := range []struct {
		xc     []float64
		k      int
		near   []int
		target int
		share  float64
	}{
		{[]float64{9.2, 0}, 5, []int{9, 8, 7, 6, 5}, 1, 1},
		{[]float64{5.1, 0.3}, 5, []int{5, 6, 4, 7, 3}, 1, 0.6},
		{[]float64{5.1, 0.3}, 5, []int{5, 6, 4, 7, 3}, 0, 0.4},
		{[]float64{-3, 0}, 2, []int{0, 1}, 1, 0},
		{[]float64{4.5, 0}, 2, []int{4, 5}, 1, 0.5}, // a tie goes to the first row
		{[]float64{0, 0}, 20, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 0.5},
	} {
		near := NearestNeighbours(train, tc.xc, tc.k)
		if !slices.Equal(near, tc.near) {
			t.Errorf("NearestNeighbours(%v, %d) = %v, want %v", tc.xc, tc.k, near, tc.near)
		}
		if got := YNNShare(predicted, near, tc.target); got != tc.share {
			t.Errorf("YNNShare(%v, target %d) = %v, want %v", tc.xc, tc.target, got, tc.share)
		}
	}
}

func TestSetBack(t *testing.T) {
	cols := []data.Column{
		{Name: "a", Type: data.Continuous, Start: 0, Width: 1},
		{Name: "c", Type: data.Categorical, Start: 1, Width: 3},
		{Name: "b", Type: data.Continuous, Start: 4, Width: 1},
	}
	x := []float64{0, 1, 0, 0, 2}
	for _, tc := range []struct {
		name string
		xc   []float64
		want [][]float64
	}{
		{"nothing changed", []float64{0.0001, 1, 0, 0, 2}, nil},
		{"two columns", []float64{0.5, 0, 0, 1, 2}, [][]float64{{0, 0, 0, 1, 2}, {0.5, 1, 0, 0, 2}}},
		{"the last column", []float64{0, 1, 0, 0, 3}, [][]float64{{0, 1, 0, 0, 2}}},
	} {
		if got := SetBack(cols, x, tc.xc, 1e-3); !slices.EqualFunc(got, tc.want, slices.Equal[[]float64]) {
			t.Errorf("%s: SetBack = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestViolates(t *testing.T) {
	nan := math.NaN()
	orig := []float64{10, 5}
	for _, tc := range []struct {
		name string
		q    quce.Query
		xc   []float64
		want bool
	}{
		{"no constraints", quce.Query{}, []float64{-100, 100}, false},
		{"frozen, unchanged up to the scaler", quce.Query{Frozen: []bool{true, false}}, []float64{10 + 1e-9, 7}, false},
		{"frozen, changed", quce.Query{Frozen: []bool{true, false}}, []float64{10.5, 5}, true},
		{"increase-only, decreased", quce.Query{Lower: []float64{10, nan}, Upper: []float64{nan, nan}}, []float64{9, 5}, true},
		{"increase-only, increased", quce.Query{Lower: []float64{10, nan}, Upper: []float64{nan, nan}}, []float64{11, 0}, false},
		{"decrease-only, increased", quce.Query{Lower: []float64{nan, nan}, Upper: []float64{nan, 5}}, []float64{10, 6}, true},
		{"inside a bound", quce.Query{Lower: []float64{0, 0}, Upper: []float64{20, 8}}, []float64{20, 0}, false},
		{"above a bound", quce.Query{Lower: []float64{0, 0}, Upper: []float64{20, 8}}, []float64{20.1, 0}, true},
		{"open sides", quce.Query{Lower: []float64{math.Inf(-1), nan}, Upper: []float64{math.Inf(1), nan}}, []float64{1e9, -1e9}, false},
	} {
		if got := Violates(tc.q, orig, tc.xc); got != tc.want {
			t.Errorf("%s: Violates = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A violation counts over every counterfactual, valid or not; yNN averages valid ones.
func TestAggregateRecourse(t *testing.T) {
	outs := []*outcome{
		{res: InstanceResult{Valid: true, Metrics: map[string]float64{ConstraintViolations: 1, YNN: 0.4, Redundancy: 2}}},
		{res: InstanceResult{Valid: false, Metrics: map[string]float64{ConstraintViolations: 1, YNN: 1}}},
		{res: InstanceResult{Valid: true, Metrics: map[string]float64{ConstraintViolations: 0, YNN: 0.8, Redundancy: 0}}},
	}
	got := aggregate(AGI, outs, DefaultOptions().withDefaults())
	for key, want := range map[string]float64{ConstraintViolations: 2, YNN: 0.6, Redundancy: 1} {
		if math.Abs(got[key]-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", key, got[key], want)
		}
	}
	if _, ok := aggregate(IG, outs, DefaultOptions().withDefaults())[YNN]; ok {
		t.Error("ig has yNN; its counterfactual is QUCE's")
	}
}

func TestApplied(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(o *Options)
		want []string
	}{
		{"defaults", func(*Options) {}, nil},
		{"sample size, seed and methods are the header's", func(o *Options) { o.N, o.Seed, o.Methods = 3, 7, []Method{QUCE} }, nil},
		{"sparse and margin", func(o *Options) { o.Config.Sparse, o.Config.Margin = true, 0.1 },
			[]string{"quce.Config.Margin 0.1", "quce.Config.Sparse"}},
		{"λ", func(o *Options) { o.Config.Lambda2 = 0.5 }, []string{"quce.Config.Lambda1, Lambda2 and Lambda3 1,0.5,0.1"}},
		{"automatic λ", func(o *Options) { o.Config.Auto = quce.DefaultAuto() }, []string{"quce.Config.Lambda1, Lambda2 and Lambda3 auto"}},
		{"class and rows", func(o *Options) { o.Class, o.Rows = "yes", []int{2, 5, 9} },
			[]string{"eval.Options.Rows 2,5,9", `eval.Options.Class "yes"`}},
		{"constraints", func(o *Options) { o.Constraints.Frozen = []string{"a"} }, []string{"-frozen a"}},
		{"all counterfactuals", func(o *Options) { o.AllCounterfactuals = true }, []string{"eval.Options.AllCounterfactuals"}},
		{"no margin for quce-auto", func(o *Options) { o.AutoMargin = new(0.0) }, []string{"eval.Options.AutoMargin 0"}},
		{"quce-auto's default margin", func(o *Options) { o.AutoMargin = new(quce.DefaultMargin) }, nil},
	} {
		o := DefaultOptions()
		tc.set(&o)
		if got := applied(o.withDefaults()); !slices.Equal(got, tc.want) {
			t.Errorf("%s: applied = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// seededOrder's first n rows are sample's, so -class walks on from the same rows as the
// plain sample.
func TestSeededOrderExtendsSample(t *testing.T) {
	for _, tc := range []struct{ size, n int }{{100, 10}, {100, 99}, {10, 10}, {10, 50}} {
		order := seededOrder(tc.size, tc.n, 1, Test)
		if got := slices.Sorted(slices.Values(order)); len(got) != tc.size || got[0] != 0 || got[tc.size-1] != tc.size-1 {
			t.Errorf("%+v: the order is not a permutation of the rows", tc)
		}
		if want := sample(tc.size, tc.n, 1, Test); !slices.Equal(slices.Sorted(slices.Values(order[:min(tc.n, tc.size)])), want) {
			t.Errorf("%+v: the first rows of the order are not the sample %v", tc, want)
		}
	}
}

// On W-BC with constraints: every method keeps them (no violation), the recourse metrics
// are in range and agree with the model by hand, and Options.Rows evaluates the rows named.
func TestRecourseMetricsWBC(t *testing.T) {
	s := wbc(t)
	lines, err := pipeline.Lines(s.Data)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.Methods = []Method{QUCE, AGI, DiceRandom}
	o.Config.Steps = 100
	o.Constraints = quce.Constraints{Frozen: []string{"mean_radius"}, Increase: []string{"worst_area"}}
	for _, p := range []int{0, 3, 7} {
		o.Rows = append(o.Rows, lines[s.TestIdx[p]], lines[s.TrainIdx[p]])
	}
	rep, err := Run(context.Background(), FromSetup(s), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range []string{Train, Test} {
		var got []int
		for _, in := range rep.Instances[QUCE][sp] {
			got = append(got, in.Line)
		}
		var want []int
		for _, p := range []int{0, 3, 7} {
			want = append(want, lines[map[string][]int{Train: s.TrainIdx, Test: s.TestIdx}[sp][p]])
		}
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("%s: lines %v evaluated, want %v", sp, got, want)
		}
	}
	cols := s.Explainer.Columns()
	checked := 0
	for _, m := range o.Methods {
		for _, sp := range []string{Train, Test} {
			if v, ok := rep.Metrics[m][sp][ConstraintViolations]; !ok || v != 0 {
				t.Errorf("%s, %s: %v constraint violations (reported %v), want 0", m, sp, v, ok)
			}
			for _, in := range rep.Instances[m][sp] {
				if !in.Valid {
					continue
				}
				y := in.Metrics[YNN]
				if y < 0 || y > 1 || y*YNNNeighbours != math.Round(y*YNNNeighbours) {
					t.Errorf("%s, line %d: yNN %v is not a share of %d neighbours", m, in.Line, y, YNNNeighbours)
				}
				if in.Metrics[Redundancy] > in.Metrics[Sparsity] {
					t.Errorf("%s, line %d: redundancy %v above sparsity %v", m, in.Line, in.Metrics[Redundancy], in.Metrics[Sparsity])
				}
				// Redundancy by hand, with the explainer's own predictions.
				x := s.XTrain
				if sp == Test {
					x = s.XTest
				}
				var xi []float64
				for p, r := range map[string][]int{Train: s.TrainIdx, Test: s.TestIdx}[sp] {
					if r == in.Row {
						xi = x[p]
					}
				}
				back := SetBack(cols, xi, in.Counterfactual, o.SparsityTol)
				redundant := 0
				if len(back) > 0 {
					probs, err := s.Explainer.Predict(back)
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range probs {
						if p[in.Target] >= o.Config.Threshold {
							redundant++
						}
					}
				}
				if float64(redundant) != in.Metrics[Redundancy] {
					t.Errorf("%s, line %d: redundancy %v, by hand %d", m, in.Line, in.Metrics[Redundancy], redundant)
				}
				checked++
			}
		}
		if _, ok := rep.Metrics[m][Test][YNNMatched]; !ok && rep.Matched[Test] > 0 {
			t.Errorf("%s: no %s", m, YNNMatched)
		}
	}
	if checked == 0 {
		t.Fatal("no valid counterfactual to check")
	}
	var want []string
	for _, l := range o.Rows {
		want = append(want, strconv.Itoa(l))
	}
	if !slices.Contains(rep.Applied, "eval.Options.Rows "+strings.Join(want, ",")) {
		t.Errorf("Applied %q does not list the rows %v", rep.Applied, o.Rows)
	}
}

// Options.Rows names data rows of the splits evaluated.
func TestRowsErrors(t *testing.T) {
	s := wbc(t)
	lines, err := pipeline.Lines(s.Data)
	if err != nil {
		t.Fatal(err)
	}
	train := lines[s.TrainIdx[0]]
	for _, tc := range []struct {
		rows   []int
		splits []string
		want   string
	}{
		{[]int{1}, nil, "eval.Options.Rows: line 1 holds no data row"},
		{[]int{train, train}, nil, "is listed twice"},
		{[]int{train}, []string{Test}, "is in the train split, which eval.Options.Splits [test] leaves out"},
	} {
		o := DefaultOptions()
		o.Methods, o.Rows, o.Splits = []Method{DiceRandom}, tc.rows, tc.splits
		_, err := Run(context.Background(), FromSetup(s), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("rows %v, splits %v: error %v, want %q", tc.rows, tc.splits, err, tc.want)
		}
	}
}

// quce-auto's margin: Options.AutoMargin when set (0 is no margin, not "the default"), else
// the configuration's, else quce.DefaultMargin.
func TestAutoMargin(t *testing.T) {
	s := wbc(t)
	for _, tc := range []struct {
		name         string
		cfg, auto    float64
		set          bool
		want         float64
		wantFixedCfg float64
	}{
		{"default", 0, 0, false, quce.DefaultMargin, 0},
		{"none, asked", 0, 0, true, 0, 0},
		{"the configuration's", 0.1, 0, false, 0.1, 0.1},
		{"asked over the configuration's", 0.1, 0.2, true, 0.2, 0.1},
	} {
		o := DefaultOptions()
		o.Config.Margin = tc.cfg
		if tc.set {
			o.AutoMargin = new(tc.auto)
		}
		ev, err := newEvaluation(FromSetup(s), o)
		if err != nil {
			t.Fatal(err)
		}
		if ev.autoCfg.Margin != tc.want || ev.cfg.Margin != tc.wantFixedCfg {
			t.Errorf("%s: quce-auto's margin %v, quce's %v; want %v and %v", tc.name, ev.autoCfg.Margin, ev.cfg.Margin, tc.want, tc.wantFixedCfg)
		}
	}
}
