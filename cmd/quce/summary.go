package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/population"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
)

// summaryFlags are quce summary's flags: explain's, and the grouping and resampling ones.
type summaryFlags struct {
	explainFlags
	groupBy, bins, binNames string
	bootstrap, permutations int
}

// summaryRowsHelp is the help of quce summary's flags that mean something else to quce
// explain.
var summaryRowsHelp = rowsHelp{
	n:    "summarise the first n rows of the split, or all (default all)",
	json: "write the summary as JSON to this file: every figure with its interval, the tests, and each row's cost (- for standard output, the text report then going to standard error)",
	csv:  "write the summary as a table with one row per column and group (all rows first) to this CSV file (- for standard output, the text report then going to standard error)",
	svg:  "write the summary's pictures into this folder: summary-columns, summary-cost and, with -group-by, summary-groups (SVG unless -format says otherwise)",
}

// runSummary explains rows as quce explain does and summarises them as a population
// (package population): per column, per row measure and, with -group-by, per group with
// bootstrap intervals and permutation tests.
func runSummary(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseSummaryFlags(args, stderr)
	if err != nil {
		return err
	}
	opts, err := population.Options{Bootstrap: f.bootstrap, Permutations: f.permutations, Seed: f.seed}.Resolve()
	if err != nil {
		return err
	}
	edges, names, err := f.binFlags()
	if err != nil {
		return err
	}
	var grouping *population.Grouping
	r, err := f.explainRows(ctx, stdout, func(ds *data.Dataset, _ *selection, cons quce.Constraints) ([]string, error) {
		if f.groupBy != "" && grouping == nil { // once, though the rows are checked twice with -class and -n
			var err error
			if grouping, err = population.NewGrouping(ds.Columns, f.groupBy, edges, names); err != nil {
				return nil, err
			}
			if !slices.Contains(cons.Frozen, f.groupBy) {
				f.logf("note: %s", changeableNote(f.groupBy))
			}
		}
		return f.summaryPictures()
	})
	if err != nil {
		return err
	}
	frozen := grouping == nil || slices.Contains(r.cons.Frozen, f.groupBy)
	t0 := time.Now()
	sum, err := population.Summarise(populationInput(r, grouping, frozen), opts)
	if err != nil {
		return err
	}
	f.logf("summarised in %.2fs (%d resamples per interval, %d relabellings per test)", time.Since(t0).Seconds(), opts.Bootstrap, opts.Permutations)
	fmt.Fprint(r.report, modelHeader(&f.common, r.s))
	f.printSummary(r.report, r, sum, frozen)
	if err := noneSucceeded(r.ex); err != nil {
		return err
	}
	outs, err := f.summaryFiles(r, sum, grouping, frozen)
	if err != nil {
		return err
	}
	pics, err := f.drawSummary(r, sum)
	if err != nil {
		return err
	}
	outs = append(outs, pics...)
	return f.write(stdout, outs, len(pics))
}

// parseSummaryFlags reads quce summary's flags from args (its help and errors going to
// stderr).
func parseSummaryFlags(args []string, stderr io.Writer) (*summaryFlags, error) {
	f := &summaryFlags{}
	fs := f.newFlagSet("quce summary", stderr, summaryRowsHelp)
	// A summary measures the recourse burden: the closest counterfactual, by default
	// (population.Counterfactuals).
	f.lambdas, fs.Lookup("lambdas").DefValue = "auto", "auto"
	fs.IntVar(&f.top, "top", 10, "columns printed in the text's tables, those most often changed first (0: all)")
	fs.StringVar(&f.groupBy, "group-by", "", "summarise per group of this column too: a categorical, ordinal or binary column by its values, a numeric one by -bins")
	fs.StringVar(&f.bins, "bins", "", "with a numeric -group-by column: the cut points of its bins, ascending, e.g. 30,50 for below 30, 30 to below 50, and 50 or more")
	fs.StringVar(&f.binNames, "bin-names", "", "names of the -bins, lowest first, e.g. young,middle,old (default: age<30,30<=age<50,age>=50)")
	fs.IntVar(&f.bootstrap, "bootstrap", population.DefaultBootstrap, "resamples of each percentile bootstrap interval")
	fs.IntVar(&f.permutations, "permutations", population.DefaultPermutations, "relabellings of each permutation test between groups")
	if err := f.parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q; fix: put flags before nothing else (quce summary -group-by foreign_worker)", fs.Arg(0))
	}
	if !f.set["n"] && f.rows == "" {
		f.n = "all"
	}
	if f.top < 0 {
		return nil, fmt.Errorf("-top %d: fix: print 0 (all) or more columns", f.top)
	}
	return f, nil
}

// populationInput is what population.Summarise reads of the explained rows r: with a
// grouping, each row's group and, when the grouping column may change (not frozen), each
// counterfactual's.
func populationInput(r *explained, grouping *population.Grouping, frozen bool) population.Input {
	in := population.Input{Columns: r.s.Explainer.Columns(), Explanations: r.ex}
	for _, p := range r.sel.picks {
		in.Rows = append(in.Rows, p.x)
	}
	if grouping != nil {
		in = in.GroupBy(grouping, !frozen)
	}
	return in
}

// summaryFiles are the -json and -csv files of the summary sum of the explained rows r.
func (f *summaryFlags) summaryFiles(r *explained, sum *population.Summary, grouping *population.Grouping, frozen bool) ([]output, error) {
	var outs []output
	if f.jsonPath != "" {
		b, err := report.JSON(f.summaryDoc(r, sum, grouping, frozen))
		if err != nil {
			return nil, err
		}
		outs = append(outs, output{f.jsonPath, b})
	}
	if f.csvPath != "" {
		b, err := sum.CSV(f.groupBy)
		if err != nil {
			return nil, err
		}
		outs = append(outs, output{f.csvPath, b})
	}
	return outs, nil
}

// summaryDoc is the -json document: the run's, with the grouping and resampling settings,
// the group, the target, the summary and the rows.
func (f *summaryFlags) summaryDoc(r *explained, sum *population.Summary, grouping *population.Grouping, frozen bool) map[string]any {
	opts := sum.Options
	doc := runDoc(r.s, r.cfg, &f.explainFlags, r.sel)
	config := doc["config"].(map[string]any)
	config["group_by"], config["bins"], config["bin_names"] = f.groupBy, splitList(f.bins), splitList(f.binNames)
	config["bootstrap"], config["permutations"], config["level"], config["resampling_seed"] = opts.Bootstrap, opts.Permutations, opts.Level, opts.Seed
	if grouping != nil {
		doc["group"] = map[string]any{"column": f.groupBy, "frozen": frozen, "groups": grouping.Names(), "edges": grouping.Edges(),
			"note": groupNote(f.groupBy, frozen)}
	}
	doc["target"] = targetNote(r, f.class)
	kind, note := population.Counterfactuals(r.cfg)
	doc["counterfactuals"] = map[string]string{"kind": kind, "note": note}
	doc["summary"] = summaryJSON(sum)
	doc["rows"] = rowsJSON(r.sel, sum)
	return doc
}

// binFlags reads -bins and -bin-names (checked against the column by
// population.NewGrouping).
func (f *summaryFlags) binFlags() ([]float64, []string, error) {
	if f.groupBy == "" {
		for _, name := range []string{"bins", "bin-names"} {
			if f.set[name] {
				return nil, nil, fmt.Errorf("-%s cuts the -group-by column into groups, and there is none; fix: add -group-by COLUMN, or drop -%s", name, name)
			}
		}
		return nil, nil, nil
	}
	var edges []float64
	for _, p := range splitList(f.bins) {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("-bins %q: %q is not a number; fix: list cut points in the column's units, ascending, such as 30,50", f.bins, p)
		}
		edges = append(edges, v)
	}
	var names []string
	if f.set["bin-names"] {
		names = splitList(f.binNames)
	}
	return edges, names, nil
}

// summaryPictureNames are the pictures of quce summary, with -group-by or without.
func (f *summaryFlags) summaryPictureNames() []string {
	if f.groupBy == "" {
		return []string{"summary-columns", "summary-cost"}
	}
	return []string{"summary-columns", "summary-cost", "summary-groups"}
}

// summaryPictures are the -svg files (none without -svg).
func (f *summaryFlags) summaryPictures() ([]string, error) {
	if f.svgDir == "" {
		return nil, nil
	}
	o, err := f.pictures.options()
	if err != nil {
		return nil, err
	}
	var files []string
	for _, name := range f.summaryPictureNames() {
		files = append(files, filepath.Join(f.svgDir, name+o.Format.Ext()))
	}
	return files, nil
}

// drawSummary draws the -svg pictures.
func (f *summaryFlags) drawSummary(r *explained, sum *population.Summary) ([]output, error) {
	files, err := f.summaryPictures()
	if err != nil || files == nil {
		return nil, err
	}
	o, err := f.pictures.options()
	if err != nil {
		return nil, err
	}
	o.Classes = r.s.Data.Labels
	o.Note = fmt.Sprintf("%s; %s", rowsText(r), targetNote(r, f.class))
	var outs []output
	for k, name := range f.summaryPictureNames() {
		var b []byte
		switch name {
		case "summary-columns":
			b, err = plots.RecourseColumns(sum, o)
		case "summary-cost":
			b, err = plots.RecourseCost(sum, f.groupBy, o)
		case "summary-groups":
			b, err = plots.RecourseGroups(sum, f.groupBy, o)
		}
		if err != nil {
			return nil, fmt.Errorf("plotting %s: %w", files[k], err)
		}
		outs = append(outs, output{files[k], b})
	}
	return outs, nil
}

// rowsText names the rows summarised: "200 rows of german_credit.csv (test split)".
func rowsText(r *explained) string {
	what := r.sel.file
	if !r.sel.instances {
		splits := map[string]bool{}
		for _, p := range r.sel.picks {
			splits[p.split] = true
		}
		if len(splits) == 1 {
			what = r.sel.picks[0].file + fmt.Sprintf(" (%s split)", r.sel.picks[0].split)
		}
	}
	return fmt.Sprintf("%d rows of %s", len(r.sel.picks), what)
}

// targetNote says which class the rows are moved to: the -class, or each row's other class.
func targetNote(r *explained, class string) string {
	labels := r.s.Data.Labels
	targets := map[int]bool{}
	for _, e := range r.ex {
		targets[e.Target] = true
	}
	switch {
	case len(targets) == 1 && class == "":
		return fmt.Sprintf("target class %q (each row's other class: no -class)", labels[r.ex[0].Target])
	case len(targets) == 1:
		return fmt.Sprintf("target class %q", labels[r.ex[0].Target])
	case len(labels) == 2:
		return fmt.Sprintf("target: each row's other class (no -class), so rows predicted %q are moved to %q and the others the other way; for recourse, name the class wanted with -class", labels[0], labels[1])
	}
	return "target: each row's most probable other class (no -class); for recourse, name the class wanted with -class"
}

// changeableNote says what happens when the -group-by column is not frozen.
func changeableNote(column string) string {
	return fmt.Sprintf("-group-by %s is not -frozen, so a counterfactual may change it: each row is grouped by its own value, and the counterfactuals that left their group are counted (left_group); to compare the groups as they are, add -frozen %s", column, column)
}

// groupNote says how rows were grouped, for the text and the JSON.
func groupNote(column string, frozen bool) string {
	if frozen {
		return fmt.Sprintf("%s is frozen: every counterfactual keeps its row's group", column)
	}
	return changeableNote(column)
}

// fewMark marks a comparison with few rows on a side (population.Comparison.Few).
const fewMark = "(!)"

// printSummary writes the text report.
func (f *summaryFlags) printSummary(w io.Writer, r *explained, sum *population.Summary, frozen bool) {
	all := sum.Overall
	f.printOverall(w, r, sum)
	order := population.ByChangeRate(all.Columns)
	shown := order
	if f.top > 0 && f.top < len(order) {
		shown = order[:f.top]
	}
	if all.Valid == 0 {
		fmt.Fprintln(w, "\nNo valid counterfactual: nothing to say of the columns, the costs or the groups.")
		return
	}
	printColumns(w, all, shown, len(order))
	if sum.Groups == nil {
		return
	}
	f.printGroups(w, sum, frozen)
	if len(sum.Absent) > 0 {
		fmt.Fprintf(w, "No rows in: %s.\n", strings.Join(sum.Absent, ", "))
	}
	if len(sum.Comparisons) > 0 {
		printComparisons(w, sum)
	}
	printGroupColumns(w, sum, shown)
}

// printOverall writes the report's opening: what was searched and the measures over all
// rows.
func (f *summaryFlags) printOverall(w io.Writer, r *explained, sum *population.Summary) {
	all, o := sum.Overall, sum.Options
	level := 100 * o.Level
	fmt.Fprintf(w, "\nRecourse over %s, %s.\n", rowsText(r), targetNote(r, f.class))
	_, note := population.Counterfactuals(r.cfg)
	fmt.Fprintf(w, "Counterfactuals: %s.\n", note)
	if all.AlreadyTarget > 0 {
		fmt.Fprintf(w, "%d rows already have the target class: nothing to change, so they are left out of everything below.\n", all.AlreadyTarget)
	}
	fmt.Fprintf(w, "%d rows searched, %d valid counterfactuals (%s). Validity is over the searched rows; costs, uncertainty and columns over the valid counterfactuals.\n",
		all.Searched, all.Valid, percent(float64(all.Valid), float64(all.Searched)))
	if all.Failed > 0 {
		fmt.Fprintf(w, "The search of %d rows failed (it diverged, or its attribution is unreliable): they have no counterfactual and count as not valid; quce explain -rows on them says why, with the fix.\n", all.Failed)
	}
	fmt.Fprintf(w, "Intervals: %g%% percentile bootstrap intervals of the mean (%d resamples, seed %d).\n\n", level, o.Bootstrap, o.Seed)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "measure\tn\tmean [%g%% interval]\tsd\tmin\tq1\tmedian\tq3\tmax\n", level)
	for _, e := range all.Measures {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", population.MeasureNames[e.Measure], e.N, e.String(),
			e.SD, e.Min, e.Q1, e.Median, e.Q3, e.Max)
	}
	tw.Flush()
}

// printColumns writes the table of the columns shown (indices into all.Columns, of
// columns in all), those most often changed first.
func printColumns(w io.Writer, all population.Scope, shown []int, columns int) {
	fmt.Fprintf(w, "\nColumns by how often the valid counterfactuals change them (%d of %d shown; -top):\n", len(shown), columns)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "column\tchanged\tmean change\tmean |Φ|\tmean |Φ−|\tmean |Φ+|\tmost frequent changes")
	for _, ci := range shown {
		c := all.Columns[ci]
		fmt.Fprintf(tw, "%s\t%d (%s)\t%s\t%s\t%s\t%s\t%s\n", c.Column, c.Changed, percent(float64(c.Changed), float64(all.Valid)),
			c.Change(), c.MeanAbsAttribution, c.MeanAbsMinus, c.MeanAbsPlus, c.TransitionsText())
	}
	tw.Flush()
	fmt.Fprintln(w, "mean change: counterfactual minus row, in the data's units, over the counterfactuals that change the column; |Φ|, |Φ−|, |Φ+|: the column's attribution and its uncertainty, averaged in size over all valid counterfactuals.")
}

// printGroups writes the table of the -group-by groups' measures; frozen says whether the
// grouping column is frozen (else counterfactuals may leave their group).
func (f *summaryFlags) printGroups(w io.Writer, sum *population.Summary, frozen bool) {
	all, level := sum.Overall, 100*sum.Options.Level
	fmt.Fprintf(w, "\nBy %s (%s):\n", f.groupBy, groupNote(f.groupBy, frozen))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	header := "group\trows\talready target\tsearched\tvalid"
	if all.Failed > 0 {
		header += "\tfailed"
	}
	header += "\tvalidity [%g%%]\tcost L1 [%g%%]\tcost L0 [%g%%]\tuncertainty [%g%%]"
	if !frozen {
		header += "\tleft group"
	}
	fmt.Fprintf(tw, header+"\n", level, level, level, level)
	for _, g := range sum.Groups {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d", g.Name, g.Rows, g.AlreadyTarget, g.Searched, g.Valid)
		if all.Failed > 0 {
			fmt.Fprintf(tw, "\t%d", g.Failed)
		}
		for _, m := range []string{population.Validity, population.CostL1, population.CostL0, population.CFUncertainty} {
			e := g.Measure(m)
			fmt.Fprintf(tw, "\t%s", e.String())
		}
		if !frozen {
			fmt.Fprintf(tw, "\t%d", g.LeftGroup)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// printComparisons writes the table of the differences between groups, with their
// intervals and permutation p-values.
func printComparisons(w io.Writer, sum *population.Summary) {
	level := 100 * sum.Options.Level
	what := fmt.Sprintf("%s − %s", sum.Comparisons[0].Group, sum.Comparisons[0].Versus)
	if sum.Comparisons[0].Versus == population.Rest {
		what = "each group − the rest of the rows"
	}
	fmt.Fprintf(w, "\nDifferences in mean (%s), with %g%% bootstrap intervals and two-sided permutation p-values (%d relabellings, p = (1 + as extreme) / (1 + relabellings)):\n",
		what, level, sum.Options.Permutations)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tgroups\tn\tdifference [interval]\tp")
	few := false
	for _, c := range sum.Comparisons {
		mark := ""
		if c.Few() {
			mark, few = " "+fewMark, true
		}
		fmt.Fprintf(tw, "%s\t%s − %s\t%d, %d%s\t%s\t%s\n", population.MeasureNames[c.Measure], c.Group, c.Versus, c.N, c.NVersus, mark,
			c.String(), c.P.String())
	}
	tw.Flush()
	if few {
		fmt.Fprintf(w, "%s fewer than %d rows on a side: the interval (none for 1 row) and the p-value rest on very few rows, so read them with care.\n", fewMark, population.FewRows)
	}
	fmt.Fprintln(w, "Each test stands alone: no correction for testing several measures or groups. The tests assume the rows are independent draws and, under no difference, that the group labels are exchangeable.")
}

// printGroupColumns writes the share of each group's valid counterfactuals that change
// each column shown (indices into the summary's columns).
func printGroupColumns(w io.Writer, sum *population.Summary, shown []int) {
	fmt.Fprintln(w, "\nShare of each group's valid counterfactuals that change the column:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprint(tw, "column")
	for _, g := range sum.Groups {
		fmt.Fprintf(tw, "\t%s", g.Name)
	}
	fmt.Fprintln(tw)
	for _, ci := range shown {
		fmt.Fprint(tw, sum.Overall.Columns[ci].Column)
		for _, g := range sum.Groups {
			fmt.Fprintf(tw, "\t%s", percent(float64(g.Columns[ci].Changed), float64(g.Valid)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// percent is a/b as a percentage, "NA" for b = 0.
func percent(a, b float64) string {
	if b == 0 {
		return "NA"
	}
	return strconv.FormatFloat(100*a/b, 'f', 1, 64) + "%"
}

// summaryJSON is the summary for the JSON, without its rows (rowsJSON has them).
func summaryJSON(sum *population.Summary) population.Summary {
	out := *sum
	out.Rows = nil
	return out
}

// summaryRowJSON is one row in quce summary's JSON: where it is, and its recourse.
type summaryRowJSON struct {
	report.Source
	population.Row
}

// rowsJSON are the rows of sum, each where it is (sel.picks[i] of sum.Rows[i]).
func rowsJSON(sel *selection, sum *population.Summary) []summaryRowJSON {
	out := make([]summaryRowJSON, len(sum.Rows))
	for i, r := range sum.Rows {
		out[i] = summaryRowJSON{sel.source(sel.picks[i]), r}
	}
	return out
}
