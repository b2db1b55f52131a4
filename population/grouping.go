package population

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quce-go/quce/data"
)

// Grouping assigns rows to groups by one column: a categorical, ordinal or binary column
// by its value, a numeric (continuous or integer) column by the bins that cut points make
// of it. Build it with NewGrouping.
type Grouping struct {
	column data.Column
	edges  []float64 // ascending cut points (numeric columns only)
	names  []string  // the groups, in order: the column's levels, or the bins
}

// NewGrouping groups rows by the column named column of cols (see Grouping). A categorical,
// ordinal or binary column has one group per level, in the column's order of levels, and
// takes no edges. A continuous or integer column needs edges: ascending cut points e1 < e2
// < … that make len(edges)+1 bins, v < e1, e1 ≤ v < e2, …, v ≥ ek (a value equal to a cut
// point goes to the bin above it). names names the bins (nil: "age<30", "30<=age<50",
// "age>=50"). Every error names the argument it refuses ("NewGrouping's edges", which the
// command line names by its flag) and the fix.
func NewGrouping(cols []data.Column, column string, edges []float64, names []string) (*Grouping, error) {
	i := slices.IndexFunc(cols, func(c data.Column) bool { return c.Name == column })
	if i < 0 {
		return nil, fmt.Errorf("NewGrouping's column %q: no such column; fix: use one of %s", column, strings.Join(data.Names(cols), ", "))
	}
	c := cols[i]
	g := &Grouping{column: c}
	numeric := c.Type == data.Continuous || c.Type == data.Integer
	if !numeric {
		if edges != nil || names != nil {
			return nil, fmt.Errorf("NewGrouping's column %s: %s is %s, and its groups are its values (%s); NewGrouping's edges and NewGrouping's names cut a numeric column; fix: drop NewGrouping's edges and NewGrouping's names",
				column, column, c.Type, strings.Join(c.Levels, ", "))
		}
		g.names = slices.Clone(c.Levels)
		return g, nil
	}
	if len(edges) == 0 {
		if names != nil {
			return nil, fmt.Errorf("NewGrouping's names names the bins of NewGrouping's edges, and there are none; fix: give %s's cut points with NewGrouping's edges, e.g. %s", column, exampleEdges(c))
		}
		return nil, fmt.Errorf("NewGrouping's column %s: %s is %s (%g … %g), so its values are not groups; fix: cut it into bins with NewGrouping's edges, e.g. %s (and name them with NewGrouping's names)",
			column, column, c.Type, c.Min, c.Max, exampleEdges(c))
	}
	for k, e := range edges {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return nil, fmt.Errorf("NewGrouping's edges: cut point %v is not a finite number; fix: give finite numbers in %s's units", e, column)
		}
		if k > 0 && e <= edges[k-1] {
			return nil, fmt.Errorf("NewGrouping's edges: the cut points must rise, and %g follows %g; fix: list them in ascending order, each once", e, edges[k-1])
		}
	}
	g.edges = slices.Clone(edges)
	if names == nil {
		names = binNames(column, edges)
	}
	if len(names) != len(edges)+1 {
		return nil, fmt.Errorf("NewGrouping's names: %d names for the %d bins that %d cut points make; fix: give %d names, lowest bin first", len(names), len(edges)+1, len(edges), len(edges)+1)
	}
	for k, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, fmt.Errorf("NewGrouping's names: name %d is empty; fix: name every bin", k+1)
		}
		if slices.Contains(names[:k], n) {
			return nil, fmt.Errorf("NewGrouping's names: %q names two bins; fix: give each bin its own name", n)
		}
	}
	g.names = slices.Clone(names)
	return g, nil
}

// exampleEdges suggests cut points for a numeric column: its range in thirds, rounded.
func exampleEdges(c data.Column) string {
	span := c.Max - c.Min
	if !(span > 0) {
		return strconv.FormatFloat(c.Min, 'g', 3, 64)
	}
	a, b := c.Min+span/3, c.Min+2*span/3
	return strconv.FormatFloat(a, 'g', 2, 64) + "," + strconv.FormatFloat(b, 'g', 2, 64)
}

// binNames are the default names of the bins that edges cut column into.
func binNames(column string, edges []float64) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	out := []string{column + "<" + f(edges[0])}
	for k := 1; k < len(edges); k++ {
		out = append(out, f(edges[k-1])+"<="+column+"<"+f(edges[k]))
	}
	return append(out, column+">="+f(edges[len(edges)-1]))
}

// Column is the grouping column.
func (g *Grouping) Column() data.Column { return g.column }

// Edges are the cut points of a numeric column's bins (nil for a column of levels).
func (g *Grouping) Edges() []float64 { return slices.Clone(g.edges) }

// Names are the groups, in order: the column's levels, or its bins lowest first.
func (g *Grouping) Names() []string { return slices.Clone(g.names) }

// Group is the group of a row x (all the data's inputs, in the data's units).
func (g *Grouping) Group(x []float64) string {
	if g.edges == nil {
		return g.column.Format(x)
	}
	v := x[g.column.Start]
	if g.column.Type == data.Integer {
		v = math.Round(v) // the row's integer, as its counterfactual's may be a hair off it
	}
	return g.names[sort.Search(len(g.edges), func(k int) bool { return g.edges[k] > v })]
}

// Groups is the group of each row.
func (g *Grouping) Groups(rows [][]float64) []string {
	out := make([]string, len(rows))
	for i, x := range rows {
		out[i] = g.Group(x)
	}
	return out
}

// GroupBy is in with its rows grouped by g: each row's group (of Rows, or of each
// explanation's XOriginal without them), in g's order, and, with counterfactuals (the
// grouping column may change), each counterfactual's group too, so that Scope.LeftGroup
// counts those that left their row's group.
func (in Input) GroupBy(g *Grouping, counterfactuals bool) Input {
	rows := in.Rows
	if rows == nil {
		for _, e := range in.Explanations {
			rows = append(rows, e.XOriginal)
		}
	}
	in.Groups, in.GroupOrder, in.CounterfactualGroups = g.Groups(rows), g.Names(), nil
	if counterfactuals {
		for _, e := range in.Explanations {
			in.CounterfactualGroups = append(in.CounterfactualGroups, g.Group(e.Path0().CounterfactualOriginal))
		}
	}
	return in
}
