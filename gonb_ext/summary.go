package gonbext

import (
	"fmt"
	"html"
	"strings"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/population"
	"github.com/quce-go/quce/quce"
)

// ShowSummary summarises explanations as a population (population.Summarise) and displays
// it: the measures with their intervals, the columns recourse changes (table and picture),
// the cost per group and, with a grouping, the groups, the tests of their differences and
// the column × group heat map. rows are the explained rows in the data's units (nil: each
// explanation's XOriginal); g groups them (nil: no groups), the group of each
// counterfactual counted too, so a group column left free shows how many left their group.
// It returns the summary, for figures of one's own.
func ShowSummary(s *pipeline.Setup, ex []*quce.Explanation, rows [][]float64, g *population.Grouping, o population.Options) (*population.Summary, error) {
	in := population.Input{Columns: s.Explainer.Columns(), Explanations: ex, Rows: rows}
	if g != nil {
		in = in.GroupBy(g, true)
	}
	sum, err := population.Summarise(in, o)
	if err != nil {
		return nil, err
	}
	groupBy := ""
	if g != nil {
		groupBy = g.Column().Name
	}
	fragment, err := SummaryHTML(s, ex, sum, groupBy)
	if err != nil {
		return nil, err
	}
	return sum, display("summary", fragment)
}

// SummaryHTML is what ShowSummary displays for the summary sum of the explanations ex,
// grouped by the column groupBy ("" without groups), as an HTML fragment.
func SummaryHTML(s *pipeline.Setup, ex []*quce.Explanation, sum *population.Summary, groupBy string) (string, error) {
	target := targetText(s, ex)
	all, o := sum.Overall, sum.Options
	var b strings.Builder
	fmt.Fprintf(&b, "<p>Recourse over %d rows, %s. ", all.Rows, html.EscapeString(target))
	if all.AlreadyTarget > 0 {
		fmt.Fprintf(&b, "%d already have the target class: nothing to change, so they are left out of the rest. ", all.AlreadyTarget)
	}
	fmt.Fprintf(&b, "%d searched, %d valid counterfactuals. Validity is over the searched rows; costs, uncertainty and columns over the valid counterfactuals. "+
		"Intervals: %g%% percentile bootstrap intervals of the mean (%d resamples, seed %d).", all.Searched, all.Valid, 100*o.Level, o.Bootstrap, o.Seed)
	if all.Failed > 0 {
		fmt.Fprintf(&b, " <b>The search of %d rows failed</b> (it diverged, or its attribution is unreliable): they have no counterfactual and count as not valid (their explanations' Path0().Failure says why, with the fix).", all.Failed)
	}
	b.WriteString("</p>")
	b.WriteString("<table><tr><th>measure</th><th>n</th><th>mean [interval]</th><th>median (q1 – q3)</th><th>min – max</th></tr>")
	for _, e := range all.Measures {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s (%s – %s)</td><td>%s – %s</td></tr>", population.MeasureNames[e.Measure], e.N,
			e, e.Median, e.Q1, e.Q3, e.Min, e.Max)
	}
	b.WriteString("</table>")

	po := plots.Options{Classes: s.Data.Labels, Note: fmt.Sprintf("%d rows; %s", all.Rows, target)}
	pictures := []func() ([]byte, error){func() ([]byte, error) { return plots.RecourseColumns(sum, po) }}
	pictures = append(pictures, func() ([]byte, error) { return plots.RecourseCost(sum, groupBy, po) })
	if sum.Groups != nil {
		pictures = append(pictures, func() ([]byte, error) { return plots.RecourseGroups(sum, groupBy, po) })
	}
	svgs := make([]string, len(pictures))
	for i, draw := range pictures {
		svg, err := draw()
		if err != nil {
			return "", err
		}
		svgs[i] = svgFragment(svg)
	}
	b.WriteString(svgs[0])
	b.WriteString(columnsTable(sum, 10))
	if sum.Groups == nil {
		b.WriteString(svgs[1])
		return b.String(), nil
	}
	fmt.Fprintf(&b, "<p><b>By %s.</b> ", html.EscapeString(groupBy))
	if all.LeftGroup > 0 {
		fmt.Fprintf(&b, "%s was free to change, and %d valid counterfactuals left their row's group (column <i>left group</i>); rows are grouped by their own value. ",
			html.EscapeString(groupBy), all.LeftGroup)
	}
	if len(sum.Absent) > 0 {
		fmt.Fprintf(&b, "No rows in: %s.", html.EscapeString(strings.Join(sum.Absent, ", ")))
	}
	b.WriteString("</p><table><tr><th>group</th><th>rows</th><th>already target</th><th>searched</th><th>valid</th><th>failed</th><th>validity</th><th>cost L1</th><th>cost L0</th><th>uncertainty</th><th>left group</th></tr>")
	for _, g := range sum.Groups {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td>", html.EscapeString(g.Name), g.Rows, g.AlreadyTarget, g.Searched, g.Valid, g.Failed)
		for _, m := range []string{population.Validity, population.CostL1, population.CostL0, population.CFUncertainty} {
			e := g.Measure(m)
			fmt.Fprintf(&b, "<td>%s</td>", e)
		}
		fmt.Fprintf(&b, "<td>%d</td></tr>", g.LeftGroup)
	}
	b.WriteString("</table>")
	if len(sum.Comparisons) > 0 {
		fmt.Fprintf(&b, "<p>Differences in mean with %g%% bootstrap intervals and two-sided permutation p-values (%d relabellings of the group labels; each test stands alone, with no correction for several tests):</p>",
			100*o.Level, o.Permutations)
		b.WriteString("<table><tr><th>measure</th><th>groups</th><th>n</th><th>difference [interval]</th><th>p</th></tr>")
		few := false
		for _, c := range sum.Comparisons {
			mark := ""
			if c.Few() {
				mark, few = " (!)", true
			}
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s − %s</td><td>%d, %d%s</td><td>%s</td><td>%s</td></tr>", population.MeasureNames[c.Measure],
				html.EscapeString(c.Group), html.EscapeString(c.Versus), c.N, c.NVersus, mark, c, c.P)
		}
		b.WriteString("</table>")
		if few {
			fmt.Fprintf(&b, "<p>(!) Fewer than %d rows on a side: the interval and the p-value rest on very few rows, so read them with care.</p>", population.FewRows)
		}
	}
	b.WriteString(svgs[1] + svgs[2])
	return b.String(), nil
}

// columnsTable lists the top columns by how often the valid counterfactuals change them.
func columnsTable(sum *population.Summary, top int) string {
	cs := sum.Overall.Columns
	order := population.ByChangeRate(cs)
	var b strings.Builder
	b.WriteString("<table><tr><th>column</th><th>changed</th><th>mean change</th><th>mean |Φ|</th><th>most frequent changes</th></tr>")
	for _, ci := range order[:min(top, len(order))] {
		c := cs[ci]
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d (%s%%)</td><td>%s</td><td>%s</td><td>%s</td></tr>", html.EscapeString(c.Column), c.Changed,
			100*c.ChangeRate, c.Change(), c.MeanAbsAttribution, html.EscapeString(c.TransitionsText()))
	}
	b.WriteString("</table><p>Mean change: counterfactual minus row in the data's units, over the counterfactuals that change the column (an ordinal column in levels).</p>")
	return b.String()
}

// targetText says which class the explanations move their rows to.
func targetText(s *pipeline.Setup, ex []*quce.Explanation) string {
	targets := map[int]bool{}
	for _, e := range ex {
		targets[e.Target] = true
	}
	if len(targets) == 1 {
		return fmt.Sprintf("target class %q", s.Data.Labels[ex[0].Target])
	}
	return "each row's target its other class (several target classes)"
}
