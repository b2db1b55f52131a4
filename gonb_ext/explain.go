package gonbext

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/eval"
	jobprogress "github.com/quce-go/quce/internal/progress"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
)

// Prepare is pipeline.Prepare with a progress line in the cell and a one-line summary of
// the data, the models and the backend: Train of pipeline.NewPlan(opts), for a notebook
// with nothing to check before the models are trained.
func Prepare(opts pipeline.Options) (*pipeline.Setup, error) {
	p, err := pipeline.NewPlan(opts)
	if err != nil {
		return nil, err
	}
	return Train(p)
}

// Train is pipeline.Plan.Train with a progress line in the cell and a one-line summary of
// the data, the models and the backend; a notebook checks its rows and constraints on the
// plan first (Plan.Query, quce.CheckConstraints with Plan.Data.Columns). A zero CacheDir
// means pipeline.DefaultCacheDir(). It first paces the garbage collector as the command does
// (pipeline.PaceGC; GOGC and GOMEMLIMIT, set with %env before, take precedence): a cell
// with a slider explains one row over and over, which is faster at that pace. It stops when
// Context is cancelled.
func Train(plan *pipeline.Plan) (*pipeline.Setup, error) {
	pipeline.PaceGC()
	p := *plan // the caller's plan is left as it is
	if p.Options.CacheDir == "" {
		p.Options.CacheDir = pipeline.DefaultCacheDir()
	}
	prog := newProgress()
	p.Options.Log = prog.set
	s, err := p.Train(Context)
	prog.done()
	if err != nil {
		return nil, err
	}
	how := "trained"
	if s.Cached {
		how = "loaded from the cache"
	}
	shape := fmt.Sprintf("%d features", s.Data.NumFeatures())
	if cols := s.Explainer.Columns(); len(cols) != s.Data.NumFeatures() {
		shape = fmt.Sprintf("%d columns (%d model inputs)", len(cols), s.Data.NumFeatures())
	}
	msg := fmt.Sprintf("<b>%s</b>: %d rows × %s, %d train / %d test. Models %s. "+
		"Classifier accuracy %.3f (test). VAE reconstruction MSE %.3f (test). Backend: %s.",
		html.EscapeString(s.Data.Name), s.Data.Rows(), shape, len(s.TrainIdx), len(s.TestIdx),
		how, s.TestAccuracy, s.VAETest.ReconMSE, html.EscapeString(s.BackendInfo.String()))
	for _, w := range s.Warnings {
		msg += "<br><b>Warning:</b> " + html.EscapeString(w)
	}
	return s, display("prepare", "<p>"+msg+"</p>")
}

// Explain explains standardised rows with QUCE, showing the optimisation's progress in
// place, and in lines that stay how large a large job is before it starts and how long a
// long one will take once its pace is measured.
func Explain(s *pipeline.Setup, cfg quce.Config, rows [][]float64) ([]*quce.Explanation, error) {
	qs := make([]quce.Query, len(rows))
	for i, r := range rows {
		qs[i] = s.Query(r)
	}
	return ExplainQueries(s, cfg, qs)
}

// ExplainQueries is Explain for queries with targets, frozen features or bounds.
func ExplainQueries(s *pipeline.Setup, cfg quce.Config, qs []quce.Query) ([]*quce.Explanation, error) {
	p := newProgress()
	last := -1
	settings := s.Explainer.Settings()
	var searches jobprogress.Tracker // the time left, and which of automatic λ's searches
	searches.Phase(jobprogress.Searches(cfg, len(qs), 0))
	settings.Progress = func(step, steps int) {
		if searches.Update(step, steps) || (100*step/steps)/5 != last/5 {
			last = 100 * step / steps
			p.set("QUCE for %d instance(s): %s", len(qs), searches.Status())
		}
		if long := searches.Announce(); long != "" {
			note(long)
		}
	}
	// The compiling is left out of the pace; the settings' own hook, if any, still runs.
	onCompile := settings.OnCompile
	settings.OnCompile = func(program string, rows int, seconds float64) {
		searches.Compiled(seconds)
		if onCompile != nil {
			onCompile(program, rows, seconds)
		}
	}
	if size := jobprogress.Size(s.Explainer.JobSize(cfg, len(qs))); size != "" {
		note(size)
	}
	e, err := s.Explainer.With(settings) // the same compiled programs, with this cell's progress
	if err != nil {
		return nil, err
	}
	ex, err := e.Explain(Context, cfg, qs)
	p.done()
	return ex, err
}

// note shows a line of the job's progress that stays in the cell, below the one updated in
// place: that the job is large, or long.
func note(line string) {
	_ = display("progress", "<p><code>"+html.EscapeString(line)+"</code></p>") // a note that fails to show stops nothing
}

// ShowExplanation displays one explanation: the paper's Figure 1 (attribution with its ±
// uncertainty), the path, and a table of the feature changes in original units; with
// several counterfactuals, a table of the others and each one's path, folded.
func ShowExplanation(s *pipeline.Setup, ex *quce.Explanation) error {
	fig, err := ExplanationHTML(s, ex, plots.Options{TopK: 15})
	if err != nil {
		return err
	}
	return display("explanation", fig)
}

// ExplanationHTML is what ShowExplanation displays, as an HTML fragment.
func ExplanationHTML(s *pipeline.Setup, ex *quce.Explanation, o plots.Options) (string, error) {
	if o.Classes == nil {
		o.Classes = s.Data.Labels
	}
	if ex.AlreadyTarget { // no path, no attribution: nothing to draw
		return fmt.Sprintf("<p>%s: already predicted <b>%s</b> (F %.4f): nothing to change, so no search ran.</p>",
			html.EscapeString(rowNames(s, [][]float64{ex.X})[0]), html.EscapeString(s.Data.Labels[ex.Target]), ex.ProbStart), nil
	}
	cols := s.Explainer.Columns()
	attr, err := plots.Attribution(ex.ByColumn(cols), data.Labels(cols, ex.XOriginal, ex.Path0().CounterfactualOriginal), o)
	if err != nil {
		return "", err
	}
	po := plots.Options{Classes: o.Classes}
	path, err := plots.Path(ex, s.Data.Features, s.Scaler, po)
	if err != nil {
		return "", err
	}
	out := svgFragment(attr) + svgFragment(path) + changesTable(s, ex, 10)
	// Each further counterfactual's path is a figure of its own (its top features and note
	// are its own), folded so that the first's figures and the table stay in view.
	for k, p := range ex.Counterfactuals[min(1, len(ex.Counterfactuals)):] {
		svg, err := plots.Path(report.OptionExplanation(ex, p), s.Data.Features, s.Scaler, po)
		if err != nil {
			return "", err
		}
		out += "<details><summary>Path of " + html.EscapeString(report.OptionLabel(cols, k+2, p)) + "</summary>" + svgFragment(svg) + "</details>"
	}
	return out, nil
}

// changesTable lists the top columns of ex's view (report.Instance): original value →
// counterfactual in the data's own terms, attribution ± bars (a categorical column's inputs
// summed). A failed row has no counterfactual to list: it says only why.
func changesTable(s *pipeline.Setup, ex *quce.Explanation, top int) string {
	in := report.NewInstance(s.Explainer.Columns(), s.Data.Labels, ex, report.Source{})
	var b strings.Builder
	fmt.Fprintf(&b, "<p>%s: predicted <b>%s</b>; target <b>%s</b>: F(target) %.4f → %.4f (%s, %d steps, completeness gap %.1e, counterfactual uncertainty %.3f).</p>",
		html.EscapeString(rowNames(s, [][]float64{ex.X})[0]),
		html.EscapeString(in.PredictedClassName), html.EscapeString(in.TargetClassName),
		in.ProbTargetStart, in.ProbTargetEnd, validText(in), in.PathSteps, in.CompletenessGap, in.CFUncertainty)
	if in.Failure != "" {
		return b.String()
	}
	if note := in.UnseenNote(); note != "" {
		b.WriteString("<p><b>" + html.EscapeString(note) + "</b></p>")
	}
	b.WriteString("<table><tr><th>column</th><th>original</th><th>counterfactual</th><th>attribution</th><th>− uncertainty</th><th>+ uncertainty</th></tr>")
	marked := false
	for _, ci := range in.Top(top) {
		c, mark := in.Columns[ci], ""
		if in.Detour[ci] {
			mark, marked = " "+report.DetourMark, true
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%+.4f%s</td><td>%+.4f</td><td>%+.4f</td></tr>",
			html.EscapeString(c.Name), html.EscapeString(c.Format(in.Inputs.XOriginal)), html.EscapeString(c.Format(in.Inputs.CounterfactualOriginal)),
			in.Attribution[ci], mark, in.AttributionMinus[ci], in.AttributionPlus[ci])
	}
	b.WriteString("</table>")
	if len(in.Options) > 0 {
		b.WriteString("<p>Other counterfactuals, each searched again holding columns at the row's values:</p><table><tr><th>option</th><th>held</th><th>F(target)</th><th>gap</th><th>changes</th></tr>")
		for _, o := range in.Options {
			fmt.Fprintf(&b, "<tr><td>%d</td><td>%s</td><td>%.4f</td><td>%.1e</td><td>%s</td></tr>", o.Option, html.EscapeString(strings.Join(o.Held, ", ")),
				o.ProbTargetEnd, o.CompletenessGap, html.EscapeString(o.Changes()))
		}
		b.WriteString("</table>")
	}
	if marked {
		// The note as a sentence of its own.
		b.WriteString("<p>" + report.DetourMark + " " + strings.ToUpper(report.DetourNote[:1]) + report.DetourNote[1:] + ".</p>")
	}
	return b.String()
}

// validText says how the search of the view in ended.
func validText(in *report.Instance) string {
	switch {
	case in.AlreadyTarget:
		return "already the target: nothing to change"
	case in.Failure != "":
		return "failed: " + in.Failure
	case in.Valid:
		return "valid"
	}
	return "not valid"
}

// ShowTable displays a batch of explanations as an HTML table whose columns sort when
// their header is clicked; with automatic λ, a last column gives each row's chosen λ2, λ3.
func ShowTable(s *pipeline.Setup, exs []*quce.Explanation) error {
	if len(exs) == 0 {
		return fmt.Errorf("gonbext: no explanations to show")
	}
	id := "quce-table-" + fmt.Sprint(outputCount.Add(1))
	var b strings.Builder
	fmt.Fprintf(&b, `<table id=%q><thead><tr>`, id)
	headers := []string{"row", "predicted", "target", "F(target) before", "after", "valid", "steps", "gap", "cf uncertainty", "path uncertainty", "top column"}
	auto := exs[0].Auto != nil
	if auto {
		headers = append(headers, "λ2, λ3 (auto)")
	}
	for i, h := range headers {
		fmt.Fprintf(&b, `<th style="cursor:pointer" onclick="quceSort('%s',%d)">%s</th>`, id, i, h)
	}
	b.WriteString("</tr></thead><tbody>")
	xs := make([][]float64, len(exs))
	for i, ex := range exs {
		xs[i] = ex.X
	}
	names := rowNames(s, xs)
	for i, ex := range exs {
		in := report.NewInstance(s.Explainer.Columns(), s.Data.Labels, ex, report.Source{})
		// A failed row's figures are NaN (quce.Path.Failure): shown as "—", never as numbers.
		num := func(format string, v report.Number) string {
			if in.Failure != "" || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return "—"
			}
			return fmt.Sprintf(format, v)
		}
		top := "—"
		if in.Failure == "" && !in.AlreadyTarget {
			top = in.Columns[in.Top(1)[0]].Name
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
			html.EscapeString(names[i]), html.EscapeString(in.PredictedClassName), html.EscapeString(in.TargetClassName),
			num("%.4f", in.ProbTargetStart), num("%.4f", in.ProbTargetEnd), html.EscapeString(validText(in)), in.PathSteps, num("%.1e", in.CompletenessGap),
			num("%.3f", in.CFUncertainty), num("%.3f", in.PathUncertainty), html.EscapeString(top))
		if a := ex.Auto; auto && a != nil {
			c := a.Candidates[a.Chosen]
			fmt.Fprintf(&b, "<td>%.4g, %.4g</td>", c.Lambda2, c.Lambda3)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	// Sorting is a convenience; the table reads the same without scripts.
	b.WriteString(`<script>function quceSort(id,c){const t=document.getElementById(id).tBodies[0];` +
		`const r=[...t.rows];const k=x=>{const v=x.cells[c].innerText;const n=parseFloat(v);return isNaN(n)?v:n};` +
		`const asc=t.dataset.col!=c||t.dataset.dir!="asc";r.sort((a,b)=>(k(a)>k(b)?1:k(a)<k(b)?-1:0)*(asc?1:-1));` +
		`t.dataset.col=c;t.dataset.dir=asc?"asc":"desc";r.forEach(x=>t.appendChild(x))}</script>`)
	return display("table", b.String())
}

// ShowMap displays the training data on its first two principal components with the QUCE
// path of ex, the straight line to its counterfactual (IG), the AGI path and the paths of
// its further counterfactuals.
func ShowMap(s *pipeline.Setup, ex *quce.Explanation) error {
	paths, err := report.MapPaths(Context, s, []*quce.Explanation{ex}, 0.5)
	if err != nil {
		return err
	}
	svg, err := report.Map(s, paths[0], plots.Options{Classes: s.Data.Labels})
	if err != nil {
		return err
	}
	return display("map", svgFragment(svg))
}

// ShowPaths displays the expected attribution over many paths (exQUCE) with its spread.
func ShowPaths(s *pipeline.Setup, ex *quce.Explanation) error {
	cols := s.Explainer.Columns()
	svg, err := plots.Paths(ex.ByColumn(cols), data.Names(cols), plots.Options{TopK: 15, Classes: s.Data.Labels})
	if err != nil {
		return err
	}
	return display("paths", svgFragment(svg))
}

// ShowEvaluation displays an evaluation as the paper's tables and a plot per metric.
func ShowEvaluation(r *eval.Report) error {
	var tables strings.Builder
	if err := r.WriteTables(&tables); err != nil {
		return err
	}
	svg, err := plots.Evaluation(report.EvaluationTable(r), nil, plots.Options{})
	if err != nil {
		return err
	}
	return display("evaluation", "<pre>"+html.EscapeString(tables.String())+"</pre>"+svgFragment(svg))
}

// ShowSweep explains rows once per value of a λ ("lambda1", "lambda2" or "lambda3") and
// displays validity, proximity and counterfactual uncertainty against it.
func ShowSweep(s *pipeline.Setup, cfg quce.Config, rows [][]float64, lambda string, values []float64) error {
	qs := make([]quce.Query, len(rows))
	for i, r := range rows {
		qs[i] = s.Query(r)
	}
	p := newProgress()
	p.set("λ sweep: %d values × %d instances", len(values), len(rows))
	pts, err := eval.Sweep(Context, s.Explainer, cfg, qs, lambda, values)
	p.done()
	if err != nil {
		return err
	}
	svg, err := plots.Sweep(pts, lambda, plots.Options{})
	if err != nil {
		return err
	}
	return display("sweep", svgFragment(svg))
}

// rowNames names standardised rows as the command-line tool does, by their line in the
// data's CSV file ("line 42 (test)", or "line 7 of test.csv (test)" for data in two files); a row that is not one of the data's (a new instance) is
// "instance i" in the order given.
func rowNames(s *pipeline.Setup, rows [][]float64) []string {
	lines, err := pipeline.Lines(s.Data)
	names := make([]string, len(rows))
	for i, row := range rows {
		names[i] = fmt.Sprintf("instance %d", i)
		if err != nil {
			continue
		}
		if r, split := s.RowOf(row); r >= 0 {
			names[i] = fmt.Sprintf("line %d (%s)", lines[r], split)
			if s.Data.Files != nil { // two files (data.LoadSplit): the line is of the row's
				names[i] = fmt.Sprintf("line %d of %s (%s)", lines[r], s.Data.Files[r], split)
			}
		}
	}
	return names
}
