package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// germanConstraints are a lender's: nationality and personal status may not be asked to
// change, and age can only grow. The duration bound holds for every row (72 months is the
// longest), so it excludes no instance but puts an open side (null) in the JSON.
var germanConstraints = quce.Constraints{
	Frozen:   []string{"foreign_worker", "personal_status"},
	Increase: []string{"age"},
	Bounds:   map[string][2]float64{"duration": {math.NaN(), 72}},
}

// illegal says why the standardised row xc is not a row the data could hold inside the box
// of its query (in the data's units: the training split's observed range widened to the
// instance, or the query's bounds, an open side having none): a categorical block not
// exactly one-hot, an integer or rank not integral, a binary column not one of its values, a
// discrete value outside the box. "" when it is legal.
func illegal(cols []data.Column, sc *data.Scaler, box quce.Bounds, xc []float64) string {
	o := sc.InverseRow(xc)
	for _, c := range cols {
		v := o[c.Start]
		tol := 1e-6 * max(1, math.Abs(v))
		why := ""
		switch c.Type {
		case data.Categorical:
			ones := 0
			for _, u := range o[c.Start : c.Start+c.Width] {
				if u == 1 {
					ones++
				} else if u != 0 {
					why = fmt.Sprintf("one-hot input %v", u)
				}
			}
			if why == "" && ones != 1 {
				why = fmt.Sprintf("%d categories", ones)
			}
		case data.Binary:
			if math.Abs(v-c.Min) > tol && math.Abs(v-c.Max) > tol {
				why = "not one of its two values"
			}
		case data.Integer, data.Ordinal:
			if math.Abs(v-math.Round(v)) > tol {
				why = "not integral"
			}
		}
		// Against the data's whole range here; inexact checks every column's box, the
		// training split's observed range included.
		if lo, hi := box.Lower[c.Start], box.Upper[c.Start]; why == "" && c.Type != data.Continuous && (v < lo-tol || v > hi+tol) {
			why = fmt.Sprintf("outside the query's box [%v, %v]", lo, hi)
		}
		if why != "" {
			return fmt.Sprintf("column %s = %v: %s", c.Name, v, why)
		}
	}
	return ""
}

// broken says which constraint of the query q the standardised point pt breaks, or "".
// Frozen inputs must equal the instance's as the float32 models see them; bounds hold up to
// float32 rounding.
func broken(cols []data.Column, sc *data.Scaler, q quce.Query, pt []float64) string {
	o := sc.InverseRow(pt)
	for _, c := range cols {
		for f := c.Start; f < c.Start+c.Width; f++ {
			tol := 1e-4 * max(1, math.Abs(o[f]))
			switch {
			case q.Frozen[f] && float32(pt[f]) != float32(q.X[f]):
				return fmt.Sprintf("frozen %s moved", c.Name)
			case o[f] < q.Lower[f]-tol:
				return fmt.Sprintf("%s = %v below its lower bound %v", c.Name, o[f], q.Lower[f])
			case o[f] > q.Upper[f]+tol:
				return fmt.Sprintf("%s = %v above its upper bound %v", c.Name, o[f], q.Upper[f])
			}
		}
	}
	return ""
}

// inexact says how the counterfactual xo, in the data's units, is not exactly inside the
// box of the query q (its constraints, else the training split's observed range), or how a
// frozen value is not exactly the instance's; "" when it is.
func inexact(e *quce.Explainer, q quce.Query, xo []float64) string {
	b, err := e.Box(q)
	if err != nil {
		return err.Error()
	}
	for f, v := range xo {
		switch {
		case v < b.Lower[f] || v > b.Upper[f]:
			return fmt.Sprintf("%s = %v outside its box [%v, %v]", e.Features()[f], v, b.Lower[f], b.Upper[f])
		case q.Frozen[f] && v != q.Original[f]:
			return fmt.Sprintf("frozen %s = %v, not exactly %v", e.Features()[f], v, q.Original[f])
		}
	}
	return ""
}

// changedColumns counts the columns whose value, as the data writes it, differs; a
// continuous column counts when it moved by more than tol (standardised), as sparsity does.
func changedColumns(cols []data.Column, sc *data.Scaler, x, xc []float64, tol float64) int {
	o, xo := sc.InverseRow(xc), sc.InverseRow(x)
	n := 0
	for _, c := range cols {
		if c.Type == data.Continuous && math.Abs(xc[c.Start]-x[c.Start]) > tol || c.Type != data.Continuous && c.Format(o) != c.Format(xo) {
			n++
		}
	}
	return n
}

// Every method on German credit's mixed columns under a lender's constraints: every
// counterfactual reported is a legal row that keeps the constraints, every point of every
// path keeps them (AGI's steps included), sparsity counts columns, AGI's projected end still
// has a complete attribution, and the constraints are in the JSON's settings.
func TestRunMixedConstrained(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every method on German credit")
	}
	rep, projected := runConstrained(t, pipelinetest.German(t), germanConstraints)
	if projected == 0 {
		t.Error("no AGI end needed projecting: the case does not test it")
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Settings struct {
			Constraints struct {
				Frozen []string               `json:"frozen"`
				Bounds map[string][2]*float64 `json:"bounds"`
			} `json:"constraints"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Settings.Constraints
	if b := got.Bounds["duration"]; len(got.Frozen) != 2 || b[0] != nil || b[1] == nil || *b[1] != 72 {
		t.Errorf("settings' constraints in the JSON: frozen %v, duration bounds %v", got.Frozen, b)
	}
}

// The same checks on the continuous data sets (W-BC, and Iris with three classes): frozen
// columns, a monotone column and a bound hold for every method, every counterfactual and
// every path point.
func TestRunNumericConstrained(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every method on W-BC and Iris")
	}
	for _, tc := range []struct {
		kind string
		cons quce.Constraints
	}{
		{"builtin-wbc", quce.Constraints{
			Frozen:   []string{"mean_radius", "worst_radius"},
			Increase: []string{"mean_texture"},
			Bounds:   map[string][2]float64{"mean_smoothness": {0.05, 0.17}},
		}},
		{"builtin-iris", quce.Constraints{
			Frozen:   []string{"sepal_width"},
			Decrease: []string{"sepal_length"},
			Bounds:   map[string][2]float64{"petal_length": {1, 7}},
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) { runConstrained(t, pipelinetest.KindNamed(t, tc.kind), tc.cons) })
	}
}

// runConstrained runs every method on 20 test rows of s under cons and checks them (see
// TestRunMixedConstrained); it returns the report and how many AGI ends were projected.
func runConstrained(t *testing.T, s *pipeline.Setup, cons quce.Constraints) (*Report, int) {
	t.Helper()
	e := s.Explainer
	cols, sc := e.Columns(), e.Scaler()
	o := DefaultOptions()
	o.N, o.Splits, o.KeepPaths, o.Constraints = 20, []string{Test}, true, cons
	rep, err := Run(context.Background(), FromSetup(s), o)
	if err != nil {
		t.Fatal(err)
	}
	projected := 0
	for _, m := range o.Methods {
		for _, in := range rep.Instances[m][Test] {
			x := sc.TransformRow(s.Data.X[in.Row])
			q, err := e.Constrain(quce.Query{X: x, Original: s.Data.X[in.Row]}, o.Constraints)
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%s, row %d", m, in.Row)
			if in.Counterfactual == nil {
				if m != DiceRandom {
					t.Errorf("%s: no counterfactual (%s)", where, in.Failure)
				}
				continue
			}
			box, err := e.Box(q)
			if err != nil {
				t.Fatal(err)
			}
			if why := illegal(cols, sc, box, in.Counterfactual); why != "" {
				t.Errorf("%s: the counterfactual is not a legal row: %s", where, why)
			}
			if why := broken(cols, sc, q, in.Counterfactual); why != "" {
				t.Errorf("%s: the counterfactual breaks a constraint: %s", where, why)
			}
			if why := inexact(e, q, in.CounterfactualOriginal); why != "" {
				t.Errorf("%s: the counterfactual in the data's units: %s", where, why)
			}
			for k, pt := range in.Path {
				if why := broken(cols, sc, q, pt); why != "" {
					t.Fatalf("%s, path point %d of %d: %s", where, k, len(in.Path), why)
				}
			}
			if got, ok := in.Metrics[Sparsity]; ok {
				if want := changedColumns(cols, sc, x, in.Counterfactual, o.SparsityTol); got != float64(want) {
					t.Errorf("%s: sparsity %v, but %d columns changed", where, got, want)
				}
			}
			if m == AGI {
				if len(in.Path) > in.Steps+1 {
					projected++
				}
				if gap := in.Metrics[CompletenessGap]; math.Abs(gap) > 5e-3 {
					t.Errorf("%s: completeness gap %.2e after the projection", where, gap)
				}
			}
		}
		c := rep.Counts[m][Test]
		t.Logf("%-11s valid %2d/%d, sparsity %.2f (columns)", m, c.Valid, c.Instances, rep.Metrics[m][Test][Sparsity])
		if c.Valid < c.Instances*3/4 {
			t.Errorf("%s: %d of %d valid", m, c.Valid, c.Instances)
		}
	}
	return rep, projected
}

// Constraints that cannot hold are refused before any search, naming the flag and, for a
// bound that excludes an instance, the instance.
func TestRunConstraintErrors(t *testing.T) {
	s := pipelinetest.German(t)
	var all []string
	for _, c := range s.Explainer.Columns() {
		all = append(all, c.Name)
	}
	for _, tc := range []struct {
		name string
		c    quce.Constraints
		want []string
	}{
		{"a bound excludes an instance", quce.Constraints{Bounds: map[string][2]float64{"duration": {math.NaN(), 4}}}, []string{"the test split's row", "(line ", "Constraints.Bounds duration=:4 excludes"}},
		{"no such column", quce.Constraints{Frozen: []string{"salary"}}, []string{`Constraints.Frozen salary: there is no column "salary"`}},
		{"every column frozen", quce.Constraints{Frozen: all}, []string{"Constraints.Frozen freezes every column"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.N, o.Splits, o.Constraints = 5, []string{Test}, tc.c
			_, err := Run(context.Background(), FromSetup(s), o)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range append(tc.want, "fix:") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
		})
	}
}

// Every candidate DiCE-random draws on German credit is a legal row that keeps the
// constraints, and the draws do change every kind of column (the check is not vacuous).
func TestDiceSpaceDrawsLegalRows(t *testing.T) {
	s := pipelinetest.German(t)
	e := s.Explainer
	cols, sc := e.Columns(), e.Scaler()
	lo, hi := trainRange(s.XTrain)
	for _, tc := range []struct {
		name string
		c    quce.Constraints
	}{
		{"none", quce.Constraints{}},
		{"frozen and increase-only", germanConstraints},
		{"decrease-only and bounds", quce.Constraints{Decrease: []string{"duration", "num_dependents"}, Bounds: map[string][2]float64{"credit_amount": {1000, 8000}, "age": {25, math.NaN()}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			changed := map[data.ColumnType]int{}
			excluded := 0
			for i, x := range s.XTest {
				q, err := e.Constrain(quce.NewQuery(x), tc.c)
				if err != nil {
					excluded++ // a bound excludes this instance (Run refuses it; see TestRunConstraintErrors)
					continue
				}
				b, err := newBox(e, q)
				if err != nil {
					t.Fatal(err)
				}
				box, err := e.Box(q)
				if err != nil {
					t.Fatal(err)
				}
				d := newDiceSpace(cols, sc, b, lo, hi)
				for k := 1; k <= len(cols); k += 3 {
					cand := d.draw(rng, k)
					if why := illegal(cols, sc, box, cand); why != "" {
						t.Fatalf("row %d, %d columns drawn: not a legal row: %s", i, k, why)
					}
					if why := broken(cols, sc, q, cand); why != "" {
						t.Fatalf("row %d, %d columns drawn: %s", i, k, why)
					}
					xo, co := sc.InverseRow(x), sc.InverseRow(cand)
					for _, c := range cols {
						if c.Format(co) != c.Format(xo) {
							changed[c.Type]++
						}
					}
				}
			}
			if excluded == len(s.XTest) {
				t.Fatal("the bounds exclude every instance")
			}
			for _, typ := range []data.ColumnType{data.Categorical, data.Integer, data.Binary} {
				if changed[typ] == 0 {
					t.Errorf("no %s column ever changed", typ)
				}
			}
		})
	}
}
