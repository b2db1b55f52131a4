package quce_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// trainingRange is every input's observed range over the training split's rows, computed
// from the data (not from the scaler), in the data's units.
func trainingRange(s *pipeline.Setup) (lo, hi []float64) {
	j := s.Data.NumFeatures()
	lo, hi = make([]float64, j), make([]float64, j)
	for f := range lo {
		lo[f], hi[f] = math.Inf(1), math.Inf(-1)
		for _, i := range s.TrainIdx {
			lo[f], hi[f] = min(lo[f], s.Data.X[i][f]), max(hi[f], s.Data.X[i][f])
		}
	}
	return lo, hi
}

// rowQuery is the query of the data set's row i, with its values as read.
func rowQuery(s *pipeline.Setup, i int) quce.Query {
	q := quce.NewQuery(s.Scaler.TransformRow(s.Data.X[i]))
	q.Original = slices.Clone(s.Data.X[i])
	return q
}

// newInstance is the query of a new instance: the data set's row i with input f set to v.
func newInstance(s *pipeline.Setup, i, f int, v float64) quce.Query {
	orig := slices.Clone(s.Data.X[i])
	orig[f] = v
	q := quce.NewQuery(s.Scaler.TransformRow(orig))
	q.Original = orig
	return q
}

func input(t testing.TB, s *pipeline.Setup, name string) int {
	t.Helper()
	c, ok := s.Data.Column(name)
	if !ok {
		t.Fatalf("no column %q", name)
	}
	return c.Start
}

// TestBox: the box a query gets, in the data's units, exactly: a column without bounds is held
// to the training split's observed range, widened to the instance's value; -increase and
// -decrease start exactly at the instance's value as given; a side given to -bounds replaces
// the observed range, and an open side (NaN) removes that side's bound altogether.
func TestBox(t *testing.T) {
	s := wbc(t)
	e := s.Explainer
	tlo, thi := trainingRange(s)
	f := input(t, s, "mean_area")
	inf, nan := math.Inf(1), math.NaN()
	row := s.TestIdx[0]
	x := s.Data.X[row][f]
	for _, tc := range []struct {
		name   string
		q      quce.Query
		cons   quce.Constraints
		lo, hi float64
	}{
		{"default", rowQuery(s, row), quce.Constraints{}, tlo[f], thi[f]},
		{"increase", rowQuery(s, row), quce.Constraints{Increase: []string{"mean_area"}}, x, thi[f]},
		{"decrease", rowQuery(s, row), quce.Constraints{Decrease: []string{"mean_area"}}, tlo[f], x},
		{"bounds", rowQuery(s, row), quce.Constraints{Bounds: map[string][2]float64{"mean_area": {100.1, 4000.3}}}, 100.1, 4000.3},
		{"open above (name=lo:)", rowQuery(s, row), quce.Constraints{Bounds: map[string][2]float64{"mean_area": {100.1, nan}}}, 100.1, inf},
		{"open below (name=:hi)", rowQuery(s, row), quce.Constraints{Bounds: map[string][2]float64{"mean_area": {nan, 4000.3}}}, -inf, 4000.3},
		{"new instance above the range", newInstance(s, row, f, 72000.1), quce.Constraints{}, tlo[f], 72000.1},
		{"increase-only above the range", newInstance(s, row, f, 72000.1), quce.Constraints{Increase: []string{"mean_area"}}, 72000.1, 72000.1},
		{"new instance below the range", newInstance(s, row, f, -0.342), quce.Constraints{}, -0.342, thi[f]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := e.Constrain(tc.q, tc.cons)
			if err != nil {
				t.Fatal(err)
			}
			b, err := e.Box(q)
			if err != nil {
				t.Fatal(err)
			}
			if b.Lower[f] != tc.lo || b.Upper[f] != tc.hi {
				t.Fatalf("box [%v, %v], want [%v, %v]", b.Lower[f], b.Upper[f], tc.lo, tc.hi)
			}
			// The search's float32 box lies inside, whatever the rounding, and holds the
			// instance as the models see it.
			sc := e.Scaler()
			for _, v := range []float64{b.LowerStd[f], b.UpperStd[f]} {
				if o := v*sc.Std[f] + sc.Mean[f]; !math.IsInf(v, 0) && (o < tc.lo || o > tc.hi) && float32(v) != float32(q.X[f]) {
					t.Errorf("the standardised box end %v is %v in the data's units, outside [%v, %v]", v, o, tc.lo, tc.hi)
				}
			}
			if x0 := float64(float32(q.X[f])); x0 < b.LowerStd[f] || x0 > b.UpperStd[f] {
				t.Errorf("the instance %v lies outside the standardised box [%v, %v]", x0, b.LowerStd[f], b.UpperStd[f])
			}
		})
	}
}

// checkExact checks a path's points in the data's units against its query q (constrained,
// with q.Original): each lies exactly inside the box, a frozen input or one whose float32
// value is the instance's is the instance's value exactly, and each is the standardised point
// the models saw, up to float32 rounding. It returns how many counterfactual values lie
// exactly on a side of the box, other than the instance's value, in a numeric column.
func checkExact(t *testing.T, e *quce.Explainer, name string, q quce.Query, x *quce.Explanation) (onBound int) {
	t.Helper()
	b, err := e.Box(q)
	if err != nil {
		t.Fatal(err)
	}
	sc := e.Scaler()
	if !slices.Equal(x.XOriginal, q.Original) {
		t.Fatalf("%s: XOriginal %v, want the instance as given %v", name, x.XOriginal, q.Original)
	}
	p := x.Path0()
	if len(p.PointsOriginal) != len(p.Points) || !slices.Equal(p.PointsOriginal[len(p.PointsOriginal)-1], p.CounterfactualOriginal) {
		t.Fatalf("%s: %d points in the data's units for %d points, the last not the counterfactual", name, len(p.PointsOriginal), len(p.Points))
	}
	for k, po := range p.PointsOriginal {
		for f, v := range po {
			switch {
			case v < b.Lower[f] || v > b.Upper[f]:
				t.Fatalf("%s, point %d: %s = %v outside its box [%v, %v]", name, k, e.Features()[f], v, b.Lower[f], b.Upper[f])
			case (q.Frozen[f] || float32(p.Points[k][f]) == float32(q.X[f])) && v != q.Original[f]:
				t.Fatalf("%s, point %d: unchanged %s = %v, want exactly %v", name, k, e.Features()[f], v, q.Original[f])
			case math.Abs(v-(p.Points[k][f]*sc.Std[f]+sc.Mean[f])) > 1e-6*sc.Std[f]*max(1, math.Abs(p.Points[k][f])):
				t.Fatalf("%s, point %d: %s = %v is not the point the models saw (%v standardised)", name, k, e.Features()[f], v, p.Points[k][f])
			}
		}
	}
	for _, c := range e.Columns() {
		f := c.Start
		if v := p.CounterfactualOriginal[f]; (c.Type == data.Continuous || c.Type == data.Integer) && v != q.Original[f] && (v == b.Lower[f] || v == b.Upper[f]) {
			onBound++
		}
	}
	return onBound
}

// farConfig is the search without its proximity and plausibility terms (λ2 = λ3 = 0): on
// W-BC it walks far enough that about one counterfactual value in thirty stops at the
// observed range, which the default λ never reach there.
func farConfig() quce.Config {
	cfg := quce.DefaultConfig()
	cfg.Lambda2, cfg.Lambda3 = 0, 0
	return cfg
}

// TestObservedRangeByDefault explains every test row of W-BC and German credit without
// constraints: every point of every path lies inside the training split's observed range
// (widened to the instance), exactly, in the data's units; some counterfactuals lean on it,
// so the range is what keeps them there.
func TestObservedRangeByDefault(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(testing.TB) *pipeline.Setup
		cfg   quce.Config
	}{{"wbc", pipelinetest.WBC, farConfig()}, {"german_credit", pipelinetest.German, quce.DefaultConfig()}} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(t)
			tlo, thi := trainingRange(s)
			qs := make([]quce.Query, len(s.TestIdx))
			for i, row := range s.TestIdx {
				qs[i] = rowQuery(s, row)
				qs[i].Frozen = make([]bool, len(qs[i].X))
			}
			cfg := tc.cfg
			cfg.PathPoints = 0
			ex, err := s.Explainer.Explain(context.Background(), cfg, qs)
			if err != nil {
				t.Fatal(err)
			}
			onBound := 0
			for i, x := range ex {
				for k, po := range x.Path0().PointsOriginal {
					for f, v := range po {
						lo, hi := min(tlo[f], qs[i].Original[f]), max(thi[f], qs[i].Original[f])
						if v < lo || v > hi {
							t.Fatalf("row %d, point %d: %s = %v outside the training range [%v, %v]", i, k, s.Data.Features[f], v, lo, hi)
						}
					}
				}
				onBound += checkExact(t, s.Explainer, tc.name, qs[i], x)
			}
			t.Logf("%d test rows: %d counterfactual values on the observed range's ends", len(ex), onBound)
			if onBound == 0 {
				t.Errorf("no counterfactual reaches the observed range: the case does not test it")
			}
		})
	}
}

// against returns each row's -increase and -decrease against the way its unconstrained
// counterfactual moves the first 20 columns (those it raises may only decrease, those it
// lowers only increase), so that the search leans on the instance's values whatever the
// models.
func against(t *testing.T, s *pipeline.Setup, rows []int) func(row int) quce.Constraints {
	t.Helper()
	qs := make([]quce.Query, len(rows))
	for i, row := range rows {
		qs[i] = rowQuery(s, row)
	}
	ex, err := s.Explainer.Explain(context.Background(), quce.DefaultConfig(), qs)
	if err != nil {
		t.Fatal(err)
	}
	cons := map[int]quce.Constraints{}
	for i, row := range rows {
		var c quce.Constraints
		for f, name := range s.Data.Features[:20] {
			switch cf := ex[i].Path0().CounterfactualOriginal[f]; {
			case cf > qs[i].Original[f]:
				c.Decrease = append(c.Decrease, name)
			case cf < qs[i].Original[f]:
				c.Increase = append(c.Increase, name)
			}
		}
		cons[row] = c
	}
	return func(row int) quce.Constraints { return cons[row] }
}

// TestExactDataUnits: with constraints on W-BC's test rows (whose values, such as 0.1184,
// float32 cannot hold), frozen, unchanged and -sparse reset values come back exactly as
// given, and -increase, -decrease and -bounds hold exactly at every point, bounds hit from
// above and below included.
func TestExactDataUnits(t *testing.T) {
	s := wbc(t)
	e := s.Explainer
	sc := e.Scaler()
	rows := s.TestIdx[:12]
	names := s.Data.Features
	// Bounds of 0.2 standard deviations around each instance, written with two decimals (not
	// float32 values): the search leans on them from both sides.
	tight := func(row int) quce.Constraints {
		c := quce.Constraints{Bounds: map[string][2]float64{}}
		for f, name := range names {
			x := s.Data.X[row][f]
			c.Bounds[name] = [2]float64{math.Floor((x-0.2*sc.Std[f])*100) / 100, math.Ceil((x+0.2*sc.Std[f])*100) / 100}
		}
		return c
	}
	for _, tc := range []struct {
		name    string
		cons    func(row int) quce.Constraints
		sparse  bool
		onBound bool // some counterfactual value must lie on a bound
	}{
		{"frozen", func(int) quce.Constraints {
			return quce.Constraints{Frozen: []string{"mean_smoothness", "worst_radius", "mean_texture"}}
		}, false, false},
		{"increase and decrease", against(t, s, rows), false, true},
		{"bounds", tight, false, true},
		{"sparse resets", func(int) quce.Constraints { return quce.Constraints{} }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qs := make([]quce.Query, len(rows))
			for i, row := range rows {
				q, err := e.Constrain(rowQuery(s, row), tc.cons(row))
				if err != nil {
					t.Fatal(err)
				}
				qs[i] = q
			}
			ex := explainEveryPoint(t, s, quce.DefaultConfig(), qs, tc.sparse)
			onBound, resets := 0, 0
			for i, x := range ex {
				onBound += checkExact(t, e, tc.name, qs[i], x)
				for _, ci := range x.Path0().Resets {
					f := e.Columns()[ci].Start
					if got := x.Path0().CounterfactualOriginal[f]; got != qs[i].Original[f] {
						t.Errorf("row %d: %s reset by -sparse reads %v, want exactly %v", i, names[f], got, qs[i].Original[f])
					}
					resets++
				}
				if gap := math.Abs(x.CompletenessGap); gap > 5e-3 {
					t.Errorf("row %d: completeness gap %.2e", i, gap)
				}
			}
			t.Logf("%d rows: %d counterfactual values on a bound, %d columns reset", len(ex), onBound, resets)
			if tc.onBound && onBound == 0 {
				t.Errorf("no counterfactual value lies on a bound: the case does not test them")
			}
			if tc.sparse && resets == 0 {
				t.Errorf("no column was reset: the case does not test resets")
			}
		})
	}
}

// TestIncreaseAboveObservedMax: a new instance already above a column's observed maximum, with
// -increase on that column, never moves below its value, at any point of the path, on an
// integer column (German credit's age of 200, which the projection once rounded down to 199)
// and on a continuous one (W-BC's mean_area).
func TestIncreaseAboveObservedMax(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(testing.TB) *pipeline.Setup
		column string
		value  float64
	}{
		{"integer", pipelinetest.German, "age", 200},
		{"continuous", pipelinetest.WBC, "mean_area", 72000.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(t)
			e := s.Explainer
			f := input(t, s, tc.column)
			if tc.value <= e.Scaler().Max[f] {
				t.Fatalf("%s = %v is not above the observed maximum %v", tc.column, tc.value, e.Scaler().Max[f])
			}
			qs := make([]quce.Query, 8)
			for i := range qs {
				q, err := e.Constrain(newInstance(s, s.TestIdx[i], f, tc.value), quce.Constraints{Increase: []string{tc.column}})
				if err != nil {
					t.Fatal(err)
				}
				qs[i] = q
			}
			cfg := quce.DefaultConfig()
			cfg.PathPoints = 0
			ex, err := e.Explain(context.Background(), cfg, qs)
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range ex {
				checkExact(t, e, tc.name, qs[i], x)
				for k, po := range x.Path0().PointsOriginal {
					if po[f] < tc.value {
						t.Fatalf("row %d, point %d: increase-only %s fell from %v to %v", i, k, tc.column, tc.value, po[f])
					}
				}
			}
		})
	}
}

// TestOpenBoundLeavesRange: where a counterfactual stops at a column's observed maximum, a
// bound with an open upper side (-bounds name=lo:) lets it go further; the default does not.
func TestOpenBoundLeavesRange(t *testing.T) {
	s := wbc(t)
	e := s.Explainer
	sc := e.Scaler()
	rows := s.TestIdx[:40]
	qs := make([]quce.Query, len(rows))
	for i, row := range rows {
		qs[i] = rowQuery(s, row)
	}
	cfg := farConfig()
	ex, err := e.Explain(context.Background(), cfg, qs)
	if err != nil {
		t.Fatal(err)
	}
	// Every (row, column) whose counterfactual stopped at the observed maximum.
	var open []quce.Query
	var cols []int
	for i, x := range ex {
		for f, v := range x.Path0().CounterfactualOriginal {
			if v == sc.Max[f] && v != qs[i].Original[f] {
				lo := math.Floor(sc.Min[f]*100) / 100
				q, err := e.Constrain(qs[i], quce.Constraints{Bounds: map[string][2]float64{s.Data.Features[f]: {lo, math.NaN()}}})
				if err != nil {
					t.Fatal(err)
				}
				open, cols = append(open, q), append(cols, f)
			}
		}
	}
	if len(open) == 0 {
		t.Fatal("no counterfactual stops at an observed maximum: the case does not test the default range")
	}
	ex, err = e.Explain(context.Background(), cfg, open)
	if err != nil {
		t.Fatal(err)
	}
	beyond := 0
	for i, x := range ex {
		if v := x.Path0().CounterfactualOriginal[cols[i]]; v > sc.Max[cols[i]] {
			beyond++
		}
	}
	t.Logf("%d counterfactual values stopped at the observed maximum; with the upper side open, %d went beyond", len(open), beyond)
	if beyond == 0 {
		t.Errorf("with -bounds name=lo: no counterfactual left the observed range")
	}
}

// TestDataUnits: a baseline's point, given standardised, reads in the data's units as the
// explainer's own do: the instance's values exactly where unchanged, a bound exactly where
// the point lies a rounding beyond it, and a discrete column's legal value exactly.
func TestDataUnits(t *testing.T) {
	s := pipelinetest.German(t)
	e := s.Explainer
	row := s.TestIdx[0]
	age, amount := input(t, s, "age"), input(t, s, "credit_amount")
	q, err := e.Constrain(newInstance(s, row, amount, 18424.1), quce.Constraints{Bounds: map[string][2]float64{"age": {19.5, 60.7}}})
	if err != nil {
		t.Fatal(err)
	}
	sc := e.Scaler()
	std := func(f int, v float64) float64 { return float64(float32((v - sc.Mean[f]) / sc.Std[f])) }
	for _, tc := range []struct {
		name       string
		age        float64 // standardised
		amount     float64 // standardised
		wantAge    float64
		wantAmount float64
	}{
		{"a relaxed age a rounding above its bound", std(age, 60.7) + 1e-6, float64(float32(q.X[amount])), 60.7, 18424.1},
		{"a legal age", std(age, 60), std(amount, 5000), 60, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pt := slices.Clone(q.X)
			pt[age], pt[amount] = tc.age, tc.amount
			got, err := e.DataUnits(q, pt)
			if err != nil {
				t.Fatal(err)
			}
			if got[age] != tc.wantAge || got[amount] != tc.wantAmount {
				t.Errorf("age %v, credit_amount %v; want exactly %v and %v", got[age], got[amount], tc.wantAge, tc.wantAmount)
			}
		})
	}
	if _, err := e.DataUnits(q, q.X[:3]); err == nil {
		t.Errorf("a point of 3 values was accepted")
	}
	// An original row that is not the one X stands for is refused.
	bad := q
	bad.Original = slices.Clone(q.Original)
	bad.Original[age] += 5
	if _, err := e.Box(bad); err == nil {
		t.Errorf("an Original that disagrees with X was accepted")
	}
}
