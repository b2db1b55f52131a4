package main

import (
	"fmt"
	"strings"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/population"
	"github.com/quce-go/quce/quce"
)

// columnText is a column's value in the row x (original units) as printed: a continuous
// column with 4 significant digits, every other in the data's own terms (a category's name,
// an integer, an ordinal level).
func columnText(c data.Column, x []float64) string {
	if c.Type == data.Continuous {
		return fmt.Sprintf("%.4g", x[c.Start])
	}
	return c.Format(x)
}

// changedColumns lists the columns whose counterfactual inputs differ from x's (both
// standardised; x as the explainer sees it, in float32): population.ChangedColumns, the one
// rule of what a counterfactual changes.
func changedColumns(cols []data.Column, x, xc []float64) []int {
	return population.ChangedColumns(cols, x, xc)
}

// marked lists the indices where marks is true.
func marked(marks []bool) []int {
	out := []int{}
	for i, m := range marks {
		if m {
			out = append(out, i)
		}
	}
	return out
}

// changes lists changed columns as "name: before → after", at most max of them.
func changes(cols []data.Column, idx []int, x, xc []float64, most int) string {
	parts := make([]string, 0, min(len(idx), most)+1)
	for i, ci := range idx {
		if i == most {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(idx)-most))
			break
		}
		c := cols[ci]
		parts = append(parts, fmt.Sprintf("%s: %s → %s", c.Name, columnText(c, x), columnText(c, xc)))
	}
	return strings.Join(parts, ", ")
}

// columnNames maps column indices to their names.
func columnNames(cols []data.Column, idx []int) []string {
	out := make([]string, len(idx))
	for i, ci := range idx {
		out[i] = cols[ci].Name
	}
	return out
}

// columnValues is a row (original units) as one value per column in its own type: a
// string for categories and levels, a number otherwise.
func columnValues(cols []data.Column, x []float64) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c.Value(x)
	}
	return out
}

// perColumn is a per-input vector summed per column (a categorical column's block).
func perColumn(cols []data.Column, v []float64) jvec { return jvec(data.SumColumns(cols, v)) }

// projectionNote says what rounding the search's end to the data's values did, or "" when
// it changed nothing.
func projectionNote(cols []data.Column, p *quce.Path) string {
	if !p.Projected {
		return ""
	}
	note := fmt.Sprintf("the search ended at F(target) %.4f with relaxed values (fractions of categories or integers), then was rounded to the data's values", p.RelaxedProb)
	if len(p.Repairs) > 0 {
		note += fmt.Sprintf(", then made %d one-column moves towards validity (%s)", len(p.Repairs), strings.Join(columnNames(cols, p.Repairs), ", "))
	}
	return note
}

// columnsJSON describes the data's columns for the JSON outputs: name, type, levels and
// which model inputs hold them.
func columnsJSON(cols []data.Column) []map[string]any {
	out := make([]map[string]any, len(cols))
	for i, c := range cols {
		m := map[string]any{"name": c.Name, "type": c.Type, "inputs": [2]int{c.Start, c.Start + c.Width}}
		if c.Levels != nil {
			m["levels"] = c.Levels
		}
		out[i] = m
	}
	return out
}
