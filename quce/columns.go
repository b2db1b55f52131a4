package quce

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/data"
)

// Columns and legal values.
//
// The models see a row of inputs; a person sees a row of columns. A numeric column is one
// input, a categorical column a one-hot block of inputs (data.Column says which). The search
// moves through relaxed inputs (a block may hold 0.4/0.6, an integer 3.7), but the
// counterfactual that is reported must be a row that could be in the data: every category one
// of the column's categories, integers integral, a binary column one of its two values,
// inside the observed range unless the user set bounds. So after the search the end point is
// projected onto the nearest legal row, and that projection is walked as more segments of
// the path, measured like any other: the attribution still integrates to
// F(τ|x_c) − F(τ|x) for the x_c that is reported.

// checkColumns checks that cols cover j inputs in order (see Settings.Columns).
func checkColumns(cols []data.Column, j int) error {
	next := 0
	for _, c := range cols {
		if c.Start != next || c.Width < 1 {
			return fmt.Errorf("quce: column %q covers inputs %d to %d, want it to start at %d; fix: pass the data set's Columns unchanged", c.Name, c.Start, c.Start+c.Width-1, next)
		}
		if c.Type == data.Categorical && c.Width != len(c.Levels) {
			return fmt.Errorf("quce: categorical column %q has %d levels and %d inputs; fix: pass the data set's Columns unchanged", c.Name, len(c.Levels), c.Width)
		}
		next += c.Width
	}
	if next != j {
		return fmt.Errorf("quce: the columns cover %d inputs and the models take %d; fix: pass the Columns of the data set the models were trained on", next, j)
	}
	return nil
}

// Columns returns the data's columns (Settings.Columns; one continuous column per input
// unless they were given).
func (e *Explainer) Columns() []data.Column { return e.settings.Columns }

// sameColumn reports whether two columns group and read the inputs alike (With shares
// compiled programs between explainers whose columns are the same).
func sameColumn(a, b data.Column) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Start == b.Start && a.Width == b.Width && slices.Equal(a.Levels, b.Levels)
}

// continuousColumns is one continuous column per input.
func continuousColumns(features []string) []data.Column {
	cols := make([]data.Column, len(features))
	for f, name := range features {
		cols[f] = data.Column{Name: name, Type: data.Continuous, Start: f, Width: 1}
	}
	return cols
}

// discrete reports whether a column's values are a finite set (everything but continuous).
func discrete(c data.Column) bool { return c.Type != data.Continuous }

// hasDiscrete reports whether any column needs projecting.
func (in inputs) hasDiscrete() bool { return slices.ContainsFunc(in.cols, discrete) }

// Constraints are a user's actionable constraints, by column name. They are turned into a
// query's per-input Frozen, Lower and Upper by Explainer.Constrain.
type Constraints struct {
	Frozen   []string `json:"frozen,omitempty"`   // may not change (-frozen)
	Increase []string `json:"increase,omitempty"` // may only grow; ordinal columns by rank (-increase)
	Decrease []string `json:"decrease,omitempty"` // may only shrink (-decrease)
	// Bounds are [lower, upper] in original units (an ordinal column's bounds are ranks,
	// 0 for its first level), replacing the default bounds, the observed range of the
	// training split (see Query); a side that is NaN or infinite is open: no bound at all
	// (-bounds, a side left empty). A column not in Bounds keeps the observed range.
	Bounds map[string][2]float64 `json:"bounds,omitempty"`
}

// Empty reports whether c constrains nothing.
func (c Constraints) Empty() bool {
	return len(c.Frozen) == 0 && len(c.Increase) == 0 && len(c.Decrease) == 0 && len(c.Bounds) == 0
}

// CheckConstraints reports the first constraint that names no column of cols or cannot
// apply to its column, with its fix; it does not depend on an instance, so a command can
// check its flags before any model is trained.
func CheckConstraints(cols []data.Column, c Constraints) error {
	seen := map[string]string{}
	for _, set := range []struct {
		flag  string
		names []string
	}{{"-frozen", c.Frozen}, {"-increase", c.Increase}, {"-decrease", c.Decrease}} {
		for _, name := range set.names {
			col, err := column(cols, name, set.flag)
			if err != nil {
				return err
			}
			if prev, dup := seen[name]; dup {
				if prev == set.flag {
					continue
				}
				return fmt.Errorf("column %q is given to both %s and %s; fix: keep it in one of them (%s with %s means it may not change: use -frozen)", name, prev, set.flag, prev, set.flag)
			}
			seen[name] = set.flag
			if set.flag != "-frozen" && !ordered(col) {
				return fmt.Errorf("%s %s: column %q is %s, and its values have no order; fix: declare an order with -types %s=ordinal:A<B<C, or leave it out of %s", set.flag, name, name, col.Type, name, set.flag)
			}
		}
	}
	for name, b := range c.Bounds {
		col, err := column(cols, name, "-bounds")
		if err != nil {
			return err
		}
		if !ordered(col) {
			return fmt.Errorf("-bounds %s: column %q is %s, and its values have no order; fix: freeze it with -frozen %s, or declare an order with -types %s=ordinal:A<B<C", name, name, col.Type, name, name)
		}
		if b[0] > b[1] {
			return fmt.Errorf("-bounds %s=%s:%s: the lower bound is above the upper one; fix: write -bounds %s=LOW:HIGH", name, side(b[0]), side(b[1]), name)
		}
		if flag := seen[name]; flag == "-frozen" {
			return fmt.Errorf("column %q is given to both -frozen and -bounds; fix: drop the bounds of a frozen column", name)
		}
	}
	return nil
}

// ordered reports whether a column's values have an order that -increase and -bounds can
// use: numbers and ordinal levels, but not categories or a text binary column.
func ordered(c data.Column) bool {
	switch c.Type {
	case data.Continuous, data.Integer, data.Ordinal:
		return true
	case data.Binary:
		return c.IsNumeric()
	}
	return false
}

func column(cols []data.Column, name, flag string) (data.Column, error) {
	for _, c := range cols {
		if c.Name == name {
			return c, nil
		}
	}
	return data.Column{}, fmt.Errorf("%s %s: there is no column %q; fix: use one of %s", flag, name, name, strings.Join(data.Names(cols), ", "))
}

// Constrain returns q with the constraints c applied to its per-input Frozen, Lower and
// Upper (in original units): a frozen column freezes all its inputs, -increase sets the
// lower bound to the instance's value (q.Original when given, exactly), -decrease the upper
// one, and bounds are intersected, an open side of a bound becoming ±Inf (no bound, not
// the observed range). q's own constraints are kept.
func (e *Explainer) Constrain(q Query, c Constraints) (Query, error) {
	return e.inputs().constrain(q, c)
}

// constrain is Explainer.Constrain.
func (in inputs) constrain(q Query, c Constraints) (Query, error) {
	if err := CheckConstraints(in.cols, c); err != nil {
		return q, err
	}
	if len(q.X) != len(in.features) {
		return q, fmt.Errorf("quce: the instance has %d features, the models %d", len(q.X), len(in.features))
	}
	j := len(in.features)
	orig, err := in.original(0, q)
	if err != nil {
		return q, err
	}
	frozen := make([]bool, j)
	lower, upper := make([]float64, j), make([]float64, j)
	for f := range lower {
		lower[f], upper[f] = math.NaN(), math.NaN()
		if q.Frozen != nil {
			frozen[f] = q.Frozen[f]
		}
		if q.Lower != nil {
			lower[f] = q.Lower[f]
		}
		if q.Upper != nil {
			upper[f] = q.Upper[f]
		}
	}
	tighten := func(col data.Column, lo, hi float64) {
		for f := col.Start; f < col.Start+col.Width; f++ {
			if !math.IsNaN(lo) && !(lo <= lower[f]) {
				lower[f] = lo
			}
			if !math.IsNaN(hi) && !(hi >= upper[f]) {
				upper[f] = hi
			}
		}
	}
	for _, name := range c.Frozen {
		col, _ := column(in.cols, name, "")
		for f := col.Start; f < col.Start+col.Width; f++ {
			frozen[f] = true
		}
	}
	for _, name := range c.Increase {
		col, _ := column(in.cols, name, "")
		tighten(col, orig[col.Start], math.NaN())
	}
	for _, name := range c.Decrease {
		col, _ := column(in.cols, name, "")
		tighten(col, math.NaN(), orig[col.Start])
	}
	for name, b := range c.Bounds {
		col, _ := column(in.cols, name, "")
		v := orig[col.Start]
		tol := 1e-6 * max(1, math.Abs(v))
		if v < b[0]-tol || v > b[1]+tol {
			return q, fmt.Errorf("-bounds %s=%s:%s excludes the instance's value %s; fix: widen the bounds to include it (a counterfactual starts at the instance)", name, side(b[0]), side(b[1]), col.Format(orig))
		}
		lo, hi := b[0], b[1]
		if math.IsNaN(lo) {
			lo = math.Inf(-1)
		}
		if math.IsNaN(hi) {
			hi = math.Inf(1)
		}
		tighten(col, lo, hi)
	}
	q.Frozen, q.Lower, q.Upper = frozen, lower, upper
	return q, nil
}

// side formats one side of a bound as -bounds takes it: empty when open.
func side(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ByColumn returns a copy of x whose attribution vectors (Φ, its spread over paths, Φ± and
// each path's Φ, Φ± and ε) hold one value per column, a categorical column's inputs summed,
// for tables and bar charts that show a data column as one row. The spread of a summed column
// is that of its summed per-path Φ; a column is Unchanged when all its inputs are. Points, X
// and the counterfactuals stay per input.
func (x *Explanation) ByColumn(cols []data.Column) *Explanation {
	out := *x
	sum := func(v []float64) []float64 { return data.SumColumns(cols, v) }
	out.Paths = make([]*Path, len(x.Paths))
	for i, p := range x.Paths {
		q := *p
		q.Attribution, q.AttributionPlus, q.AttributionMinus, q.Epsilon = sum(p.Attribution), sum(p.AttributionPlus), sum(p.AttributionMinus), sum(p.Epsilon)
		out.Paths[i] = &q
	}
	out.expectation()
	if x.Unchanged != nil {
		out.Unchanged = make([]bool, len(cols))
		for i, c := range cols {
			out.Unchanged[i] = !slices.Contains(x.Unchanged[c.Start:c.Start+c.Width], false)
		}
	}
	return &out
}

// String formats the constraints as the flags that set them, such as
// "-frozen foreign_worker -increase age -bounds duration=:72" (bounds sorted by column).
func (c Constraints) String() string {
	var parts []string
	for _, set := range []struct {
		flag  string
		names []string
	}{{"-frozen", c.Frozen}, {"-increase", c.Increase}, {"-decrease", c.Decrease}} {
		if len(set.names) > 0 {
			parts = append(parts, set.flag+" "+strings.Join(set.names, ","))
		}
	}
	var bounds []string
	for _, name := range slices.Sorted(maps.Keys(c.Bounds)) {
		b := c.Bounds[name]
		bounds = append(bounds, fmt.Sprintf("%s=%s:%s", name, side(b[0]), side(b[1])))
	}
	if len(bounds) > 0 {
		parts = append(parts, "-bounds "+strings.Join(bounds, ","))
	}
	return strings.Join(parts, " ")
}

// MarshalJSON writes the constraints with an open side of a bound (NaN or ±Inf) as null:
// JSON has neither.
func (c Constraints) MarshalJSON() ([]byte, error) {
	type plain struct {
		Frozen   []string               `json:"frozen,omitempty"`
		Increase []string               `json:"increase,omitempty"`
		Decrease []string               `json:"decrease,omitempty"`
		Bounds   map[string][2]*float64 `json:"bounds,omitempty"`
	}
	p := plain{Frozen: c.Frozen, Increase: c.Increase, Decrease: c.Decrease}
	for name, b := range c.Bounds {
		var sides [2]*float64
		for k, v := range b {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				sides[k] = &v
			}
		}
		if p.Bounds == nil {
			p.Bounds = map[string][2]*float64{}
		}
		p.Bounds[name] = sides
	}
	return json.Marshal(p)
}
