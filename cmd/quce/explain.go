package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/atomicfile"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

type explainFlags struct {
	common
	split     string
	n         string
	rows      string
	instances string
	top       int
	jsonPath  string
	csvPath   string
	svgDir    string
	shard     string // -shard i/N (explain only)
	pictures  pictureFlags
	cons      constraintFlags
	// emit, if set, takes the explanations chunk by chunk as they are computed (see
	// streamCSV), and explained.ex stays nil.
	emit func(r *explained, first int, ex []*quce.Explanation) error
}

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := &explainFlags{}
	fs := f.newFlagSet("quce explain", stderr, rowsHelp{
		n:    "explain the first n rows of the split, or all (default 5; all rows of an -instances file)",
		json: "write the results as JSON to this file (- for standard output, the text report then going to standard error)",
		csv:  "write the results as a long table (one row per instance and feature) to this CSV file (- for standard output, the text report then going to standard error)",
		svg:  "write plots for every instance into this folder (SVG unless -format says otherwise)",
	})
	fs.IntVar(&f.top, "top", 5, "features printed per instance")
	fs.StringVar(&f.shard, "shard", "", "explain only the i-th of N contiguous blocks of the chosen rows (i/N, 0 ≤ i < N), for a cluster's array job; quce merge joins the shards' -json or -csv")
	if err := f.parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; fix: put flags before nothing else (quce explain -n 3)", fs.Arg(0))
	}
	if f.top < 0 {
		return fmt.Errorf("-top %d: fix: print 0 or more features per instance", f.top)
	}
	if f.jsonPath == "" && f.svgDir == "" && f.csvPath != "" && stdoutName(f.csvPath, stdout) != "-" {
		return f.streamCSV(ctx, stdout)
	}
	var svgFiles [][]string
	r, err := f.explainRows(ctx, stdout, func(_ *data.Dataset, sel *selection, _ quce.Constraints) ([]string, error) {
		var err error
		svgFiles, err = f.svgFiles(sel)
		return slices.Concat(svgFiles...), err
	})
	if err != nil {
		return err
	}
	s, cfg, sel, ex := r.s, r.cfg, r.sel, r.ex
	pics, err := plotFiles(f, s, sel, svgFiles)
	if err != nil {
		return err
	}
	fmt.Fprint(r.report, modelHeader(&f.common, s))
	printExplanations(r.report, s, ex, sel, f.top)
	// When every row failed there is nothing to write: the text above says why.
	if err := noneSucceeded(ex); err != nil {
		return err
	}
	var outs []output
	if f.jsonPath != "" {
		b, err := marshalJSON(explainDoc(s, cfg, f, ex, sel))
		if err != nil {
			return err
		}
		outs = append(outs, output{f.jsonPath, b})
	}
	if f.csvPath != "" {
		b, err := explainCSV(s, ex, sel)
		if err != nil {
			return err
		}
		outs = append(outs, output{f.csvPath, b})
	}
	var svgs []output
	if f.svgDir != "" {
		if svgs, err = pics.draw(ctx, ex); err != nil {
			return err
		}
		outs = append(outs, svgs...)
	}
	return f.write(stdout, outs, len(svgs))
}

// noneSucceeded is an error when the search of every row failed (quce.NoneSucceeded):
// then explain and summary write nothing, and say why. Rows whose search ended short of the
// target class (NOT valid) are results, written as such: the run succeeded in saying so.
func noneSucceeded(ex []*quce.Explanation) error {
	if err := quce.NoneSucceeded(ex); err != nil {
		return nothingWritten(err)
	}
	return nil
}

// nothingWritten is err, a run's failure, saying that no output file was written.
func nothingWritten(err error) error {
	return fmt.Errorf("%s; no output files were written", strings.TrimPrefix(err.Error(), "quce: "))
}

// rowsHelp is the help of the flags that explain and summary share whose meaning differs
// between them: the default of -n and what -json, -csv and -svg write.
type rowsHelp struct{ n, json, csv, svg string }

// newFlagSet is the flag set of the command name, writing its help and errors to stderr,
// with the flags of every command and those that choose rows and outputs (help says what
// the rows and the outputs are to the command).
func (f *explainFlags) newFlagSet(name string, stderr io.Writer, help rowsHelp) *flag.FlagSet {
	f.stderr = stderr
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	f.registerRows(fs, help)
	return fs
}

// registerRows adds the flags that explain and summary share beyond the common ones: the
// rows (-split, -n, -rows, -instances), the outputs (-json, -csv, -svg, -format, -size)
// and the constraints.
func (f *explainFlags) registerRows(fs *flag.FlagSet, help rowsHelp) {
	fs.StringVar(&f.split, "split", "test", "which rows -n and -rows choose from: train, test or all (with -rows and no -split: any)")
	fs.StringVar(&f.n, "n", "", help.n)
	fs.StringVar(&f.rows, "rows", "", "explain these rows, named by their line in the CSV file (header = line 1), e.g. 3,17,42")
	fs.StringVar(&f.instances, "instances", "", "explain new instances from this CSV file: the data's feature columns, in any order (the target column may be absent)")
	fs.StringVar(&f.jsonPath, "json", "", help.json)
	fs.StringVar(&f.csvPath, "csv", "", help.csv)
	fs.StringVar(&f.svgDir, "svg", "", help.svg)
	f.pictures.register(fs)
	f.cons.register(fs)
}

// explained is what explain and summary share: the prepared models, the settings, the rows
// chosen with their constraints, and their explanations.
type explained struct {
	s      *pipeline.Setup
	cfg    quce.Config
	sel    *selection
	cons   quce.Constraints
	ex     []*quce.Explanation
	report io.Writer // the text report: stdout, or stderr when -json or -csv writes to stdout
}

// explainRows does what explain and summary share once their flags are parsed: it checks
// the settings, the rows, the constraints and the outputs before any model is trained,
// prepares the models and explains the rows. pictures, called with the data, the rows chosen
// and the constraints before any training, checks the command's own flags against them and
// returns the files -svg will write, which are checked with the other outputs.
func (f *explainFlags) explainRows(ctx context.Context, stdout io.Writer, pictures func(*data.Dataset, *selection, quce.Constraints) ([]string, error)) (*explained, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	if err := f.rowFlags(); err != nil {
		return nil, err
	}
	f.jsonPath, f.csvPath = stdoutName(f.jsonPath, stdout), stdoutName(f.csvPath, stdout)
	files := []outputFile{{"-json", f.jsonPath}, {"-csv", f.csvPath}}
	if err := f.checkOutputs(files, f.svgDir, nil); err != nil {
		return nil, err
	}
	r := &explained{report: stdout}
	// The text report must not mix with JSON or CSV on standard output.
	if f.jsonPath == "-" || f.csvPath == "-" {
		r.report = f.stderr
	}
	if _, err := f.pictures.options(); err != nil {
		return nil, err
	}
	p, err := f.plan()
	if err != nil {
		return nil, err
	}
	if r.cons, err = f.cons.constraints(p.Data); err != nil {
		return nil, err
	}
	if r.sel, err = f.selectRows(p.Data, p.TrainIdx, p.TestIdx); err != nil {
		return nil, err
	}
	sel := r.sel
	if f.shard != "" {
		sh, _ := parseShard(f.shard) // checked by rowFlags
		if sel.picks, err = sh.of(sel.picks); err != nil {
			return nil, err
		}
	}
	pics, err := pictures(p.Data, sel, r.cons)
	if err != nil {
		return nil, err
	}
	if err := f.checkOutputs(files, f.svgDir, pics); err != nil {
		return nil, err
	}
	s, err := f.train(ctx, p)
	if err != nil {
		return nil, err
	}
	r.s = s
	if r.cfg, err = f.withBound(s, cfg); err != nil {
		return nil, err
	}
	cfg = r.cfg
	target, err := data.ClassIndex(s.Data.Labels, f.class)
	if err != nil {
		return nil, fmt.Errorf("-class %w", err)
	}
	qs := make([]quce.Query, len(sel.picks))
	for i, p := range sel.picks {
		if qs[i], err = s.Explainer.Constrain(quce.Query{X: s.Scaler.TransformRow(p.x), Original: p.x, Target: target}, r.cons); err != nil {
			return nil, fmt.Errorf("%s: %w", sel.name(p), err)
		}
	}
	lambdas := fmt.Sprintf("λ = %g, %g, %g", cfg.Lambda1, cfg.Lambda2, cfg.Lambda3)
	if cfg.Auto != nil {
		lambdas = fmt.Sprintf("λ1 = %g, (λ2, λ3) chosen per instance among %d candidates", cfg.Lambda1, len(cfg.Auto.Grid))
	}
	f.logf("explaining %d rows of %s: %d steps of %s, %s", len(qs), sel.file, cfg.Steps, cfg.Optimizer, lambdas)
	var ex []*quce.Explanation
	var tm quce.Stats
	if f.emit != nil {
		// What is streamed (the CSV, the text report) needs no path: each keeps its start
		// and end only.
		streamed := cfg
		streamed.PathPoints = 2
		tm, err = s.Explainer.ExplainStream(ctx, streamed, qs, streamChunk, func(first int, part []*quce.Explanation) error {
			return f.emit(r, first, flagNamedFailures(part))
		})
	} else {
		ex, tm, err = s.Explainer.ExplainWithStats(ctx, cfg, qs)
		flagNamedFailures(ex)
	}
	if err != nil {
		return nil, err
	}
	f.logf("done: optimisation with path attribution %.2fs, ± uncertainty %.2fs, paths %.2fs", tm.Optimisation, tm.Uncertainty, tm.Paths)
	r.ex = ex
	return r, nil
}

// write writes the outputs all or nothing (writeOutputs) and logs them; pictures is how
// many of them are -svg pictures.
func (f *explainFlags) write(stdout io.Writer, outs []output, pictures int, staged ...*atomicfile.Staged) error {
	if err := writeOutputs(stdout, outs, staged...); err != nil {
		return err
	}
	for _, p := range []string{f.jsonPath, f.csvPath} {
		if p != "" {
			f.logf("wrote %s", outputName(p))
		}
	}
	if f.svgDir != "" {
		f.logf("wrote %d plots into %s", pictures, f.svgDir)
	}
	return nil
}

// splitList is a comma-separated flag value as a list (empty for "").
func splitList(list string) []string {
	out := []string{}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// legend explains the Φ− and Φ+ columns, so that nobody reads them as an interval.
const legend = "Φ− and Φ+: attribution of moving the counterfactual by −ε and +ε (ε: the VAE's reconstruction gap), i.e. its uncertainty; not an interval around the attribution"

// maxChanges is the most changed columns listed on an instance's line.
const maxChanges = 8

func printExplanations(w io.Writer, s *pipeline.Setup, ex []*quce.Explanation, sel *selection, top int) {
	if top > 0 {
		fmt.Fprintln(w, legend)
	}
	printRows(w, s, ex, sel, top)
}

// printRows prints the text report's part for each explanation (ex[i] of sel.picks[i]).
func printRows(w io.Writer, s *pipeline.Setup, ex []*quce.Explanation, sel *selection, top int) {
	labels, cols := s.Data.Labels, s.Explainer.Columns()
	for i, e := range ex {
		p := e.Path0()
		if e.AlreadyTarget {
			fmt.Fprintf(w, "\n%s: %s\n", sel.name(sel.picks[i]), alreadyText(labels, e))
			continue
		}
		if p.Failure != "" {
			// A failed row has no counterfactual and no attribution to show: only why.
			fmt.Fprintf(w, "\n%s: predicted %q, target %q: F(target) %s at x; FAILED: %s\n",
				sel.name(sel.picks[i]), labels[e.PredictedClass], labels[e.Target], probText(e.ProbStart), p.Failure)
			continue
		}
		status := "valid"
		if !p.Valid {
			status = "NOT valid"
		}
		fmt.Fprintf(w, "\n%s: predicted %q, target %q: F(target) %.4f -> %.4f, %s (%d steps, completeness gap %.1e)\n",
			sel.name(sel.picks[i]), labels[e.PredictedClass], labels[e.Target], e.ProbStart, p.ProbEnd, status, p.Steps, e.CompletenessGap)
		if done := e.Completed(); len(done) < len(e.Paths) {
			first := ""
			for _, q := range e.Paths {
				if q.Failure != "" {
					first = q.Failure
					break
				}
			}
			fmt.Fprintf(w, "  %d of %d paths failed and are left out of the expected attribution (the first: %s)\n", len(e.Paths)-len(done), len(e.Paths), first)
		}
		if a := e.Auto; a != nil {
			c := a.Candidates[a.Chosen]
			plausible := fmt.Sprintf("L_ε %.3g within the bound %.3g", c.Uncertainty, a.Bound)
			if !a.Plausible {
				plausible = fmt.Sprintf("no valid candidate within the bound %.3g, so the valid one with the lowest L_ε (%.3g)", a.Bound, c.Uncertainty)
			}
			pulled := ""
			if p.PulledBack > 0 {
				pulled = fmt.Sprintf("; pulled back %.0f%% of the way towards x", 100*p.PulledBack)
			}
			fmt.Fprintf(w, "  automatic λ: λ2 %g, λ3 %g, candidate %d of %d, refinement round %d, %d steps (L1 %.3g; %s%s)\n", c.Lambda2, c.Lambda3, a.Chosen+1, len(a.Candidates), c.Round, c.Steps, c.Distance, plausible, pulled)
		}
		if p.Stalled > 0 {
			fmt.Fprintf(w, "  stalled at step %d (F(target) not rising, the model's gradient vanished), so it walked on without the proximity term (λ2 = 0) and stopped at F(target) ≥ threshold + 0.05\n", p.Stalled)
		}
		if note := projectionNote(cols, p); note != "" {
			fmt.Fprintf(w, "  %s\n", note)
		}
		xo := sel.picks[i].x
		changed := changedColumns(cols, e.X, p.Counterfactual)
		count := fmt.Sprintf("%d of %d columns changed", len(changed), len(cols))
		if p.Resets != nil {
			count += fmt.Sprintf(" (%d before -sparse reset %d)", len(changed)+len(p.Resets), len(p.Resets))
		}
		fmt.Fprintf(w, "  %s: %s\n", count, changes(cols, changed, xo, p.CounterfactualOriginal, maxChanges))
		if top == 0 {
			continue
		}
		byCol := e.ByColumn(cols)
		attr, minus, plus := byCol.Attribution, byCol.AttributionMinus, byCol.AttributionPlus
		detours, marked := byCol.Detours(), false
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  column\toriginal\t-> counterfactual\tattribution\tΦ−\tΦ+")
		for _, ci := range quce.RankFeatures(attr)[:min(top, len(attr))] {
			c, mark := cols[ci], ""
			if detours[ci] {
				mark, marked = detourMark, true
			}
			fmt.Fprintf(tw, "  %s\t%s\t-> %s\t%+.4f%s\t%+.4f\t%+.4f\n", c.Name, columnText(c, xo),
				columnText(c, p.CounterfactualOriginal), attr[ci], mark, minus[ci], plus[ci])
		}
		tw.Flush()
		if marked {
			fmt.Fprintf(w, "  %s %s\n", detourMark, detourNote)
		}
	}
}

// detourMark marks, in the text, an attribution of a column that ends unchanged (see
// quce.Explanation.Detours); detourNote says why it has one.
const (
	detourMark = "*"
	detourNote = "unchanged at the end: the path moved this column and back, so its attribution is what that detour contributed, not a change to make"
)

// alreadyText says that an instance is already predicted as its target class, so nothing was
// searched (quce.Explanation.AlreadyTarget).
func alreadyText(labels []string, e *quce.Explanation) string {
	text := fmt.Sprintf("already predicted %q (F(%s) %.4f): nothing to change, so no search ran", labels[e.Target], labels[e.Target], e.ProbStart)
	if !e.Path0().Valid {
		text += "; F is below the threshold that a counterfactual must reach, so it is NOT valid"
	}
	return text
}

// probText is a probability as printed: four decimals, or "n/a" when the model gave no
// finite value.
func probText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", v)
}

// resultJSON is one instance in quce explain's JSON. With several paths the attribution
// fields are the expectations over paths (exQUCE) and the counterfactual is path 1's.
// x_original is the row as read from its file, one value per column in its own type (text
// for categories); the attributions, Φ± and ε are per column (a categorical column's
// one-hot inputs summed), and inputs holds them per model input. x and counterfactual are
// the model's inputs, standardised. A failed row (valid false, failure set) has null for
// its counterfactual, attributions and the figures at its end, and no path.
type resultJSON struct {
	File               string `json:"file"`  // the CSV file holding the row
	Line               int    `json:"line"`  // the row's line in File (header = line 1)
	Split              string `json:"split"` // train, test, or instances (a row of -instances)
	PredictedClass     int    `json:"predicted_class"`
	PredictedClassName string `json:"predicted_class_name"`
	TargetClass        int    `json:"target_class"`
	TargetClassName    string `json:"target_class_name"`
	ClassProbabilities jvec   `json:"class_probabilities"`
	ProbTargetStart    jnum   `json:"prob_target_start"`
	ProbTargetEnd      jnum   `json:"prob_target_end"`
	Valid              bool   `json:"valid"`
	Failure            string `json:"failure,omitempty"`
	// RelaxedProbTargetEnd is F(τ) where the search ended, before its end was rounded to
	// the data's values (equal to prob_target_end when nothing was rounded).
	RelaxedProbTargetEnd   jnum     `json:"relaxed_prob_target_end"`
	Projected              bool     `json:"projected"`
	RepairColumns          []string `json:"repair_columns,omitempty"`
	X                      jvec     `json:"x"`
	Counterfactual         jvec     `json:"counterfactual"`
	XOriginal              []any    `json:"x_original"`
	CounterfactualOriginal []any    `json:"counterfactual_original"`
	Attribution            jvec     `json:"attribution"`
	AttributionStd         jvec     `json:"attribution_std"`
	AttributionPlus        jvec     `json:"attribution_plus"`
	AttributionMinus       jvec     `json:"attribution_minus"`
	Epsilon                jvec     `json:"epsilon"`
	CompletenessGap        jnum     `json:"completeness_gap"`
	CFUncertainty          jnum     `json:"cf_uncertainty"`
	CFUncertaintyPaper     jnum     `json:"cf_uncertainty_paper"`
	PathUncertainty        jnum     `json:"path_uncertainty"`
	PathUncertaintyPaper   jnum     `json:"path_uncertainty_paper"`
	PathSteps              int      `json:"path_steps"`
	Paths                  int      `json:"paths"`
	ValidPathsCount        int      `json:"valid_paths_count"`
	// ChangedFeatures names the features whose counterfactual value differs from x's;
	// ResetFeatures, with -sparse, those set back to x's value after the search, in order.
	ChangedFeatures []string         `json:"changed_features"`
	ResetFeatures   []string         `json:"reset_features,omitempty"`
	Auto            *quce.AutoChoice `json:"auto,omitempty"` // with -lambdas auto
	// StalledAtStep is the step at which the search stalled (quce.Path.Stalled) and walked
	// on without the proximity term; absent if it did not stall.
	StalledAtStep int        `json:"stalled_at_step,omitempty"`
	Inputs        inputsJSON `json:"inputs"`
	Path          *pathJSON  `json:"path"`

	// AlreadyTarget: the model already predicts the target class for x, so nothing was
	// searched; the counterfactual is x and the attributions are zero. Not a counterfactual
	// that was found.
	AlreadyTarget bool `json:"already_target"`
	// DetourColumns are the columns that end unchanged yet carry an attribution: the path
	// moved them and back (quce.Explanation.Detours).
	DetourColumns []string `json:"detour_columns"`
}

// inputsJSON is an instance's figures per model input (named by the top-level "features"):
// a categorical column's parts, one per category.
type inputsJSON struct {
	XOriginal              jvec `json:"x_original"`
	CounterfactualOriginal jvec `json:"counterfactual_original"`
	Attribution            jvec `json:"attribution"`
	AttributionStd         jvec `json:"attribution_std"`
	AttributionPlus        jvec `json:"attribution_plus"`
	AttributionMinus       jvec `json:"attribution_minus"`
	Epsilon                jvec `json:"epsilon"`
}

// pathJSON is the kept points of path 1 (the one from x), enough to redraw the path figure:
// point k is the path's point after Step[k] optimisation steps (0 is x).
type pathJSON struct {
	Step             []int `json:"step"`
	Points           jmat  `json:"points"`          // standardised
	PointsOriginal   jmat  `json:"points_original"` // in the data's units
	Probability      jvec  `json:"probability"`     // F(τ|·)
	Uncertainty      jvec  `json:"uncertainty"`     // L_ε, trained form
	UncertaintyPaper jvec  `json:"uncertainty_paper"`
}

// jnum and jvec are numbers that may be non-finite (a failed path's uncertainty, say):
// JSON has no NaN or Inf, so they are written as null (and a nil jvec too).
type jnum float64

func (v jnum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

type jvec []float64

func (v jvec) MarshalJSON() ([]byte, error) {
	if v == nil {
		return []byte("null"), nil
	}
	out := make([]jnum, len(v))
	for i, x := range v {
		out[i] = jnum(x)
	}
	return json.Marshal(out)
}

type jmat [][]float64

func (m jmat) MarshalJSON() ([]byte, error) {
	out := make([]jvec, len(m))
	for i, v := range m {
		out[i] = v
	}
	return json.Marshal(out)
}

// lineNote documents the row numbering in the JSON itself.
const lineNote = "line: the row's line in its CSV file (file; the header is line 1, so the first data row is line 2)"

func explainDoc(s *pipeline.Setup, cfg quce.Config, f *explainFlags, ex []*quce.Explanation, sel *selection) map[string]any {
	cols := s.Explainer.Columns()
	results := make([]resultJSON, len(ex))
	for i, e := range ex {
		p := e.Path0()
		valid := 0
		for _, q := range e.Paths {
			if q.Valid {
				valid++
			}
		}
		pk := sel.picks[i]
		results[i] = resultJSON{
			File: sel.file, Line: pk.line, Split: pk.split,
			PredictedClass: e.PredictedClass, TargetClass: e.Target,
			PredictedClassName: s.Data.Labels[e.PredictedClass], TargetClassName: s.Data.Labels[e.Target],
			ClassProbabilities: e.Probabilities,
			ProbTargetStart:    jnum(e.ProbStart), ProbTargetEnd: jnum(p.ProbEnd), Valid: p.Valid, Failure: p.Failure,
			RelaxedProbTargetEnd: jnum(p.RelaxedProb), Projected: p.Projected, RepairColumns: columnNames(cols, p.Repairs),
			X: e.X, Counterfactual: p.Counterfactual,
			XOriginal: columnValues(cols, pk.x), CounterfactualOriginal: columnValues(cols, p.CounterfactualOriginal),
			Attribution: perColumn(cols, e.Attribution), AttributionStd: perColumn(cols, e.AttributionStd),
			AttributionPlus: perColumn(cols, e.AttributionPlus), AttributionMinus: perColumn(cols, e.AttributionMinus),
			Epsilon: perColumn(cols, p.Epsilon), CompletenessGap: jnum(e.CompletenessGap),
			CFUncertainty: jnum(p.CFUncertainty), CFUncertaintyPaper: jnum(p.CFUncertaintyPaper),
			PathUncertainty: jnum(p.PathUncertainty), PathUncertaintyPaper: jnum(p.PathUncertaintyPaper),
			PathSteps: p.Steps, Paths: len(e.Paths), ValidPathsCount: valid, StalledAtStep: p.Stalled,
			ChangedFeatures: columnNames(cols, changedColumns(cols, e.X, p.Counterfactual)), Auto: e.Auto,
			AlreadyTarget: e.AlreadyTarget, DetourColumns: columnNames(cols, marked(e.ByColumn(cols).Detours())),
			Inputs: inputsJSON{
				XOriginal: pk.x, CounterfactualOriginal: p.CounterfactualOriginal,
				Attribution: e.Attribution, AttributionStd: e.AttributionStd,
				AttributionPlus: e.AttributionPlus, AttributionMinus: e.AttributionMinus, Epsilon: p.Epsilon,
			},
			Path: &pathJSON{
				Step: p.Step, Points: p.Points, PointsOriginal: p.PointsOriginal,
				Probability: p.Probability, Uncertainty: p.Uncertainty, UncertaintyPaper: p.UncertaintyPaper,
			},
		}
		if p.Resets != nil {
			results[i].ResetFeatures = columnNames(cols, p.Resets)
		}
		if p.Failure != "" {
			// The path from x failed: its numbers are NaN (null), and the row reports no
			// attribution (not even the other paths' mean: it has no counterfactual to go
			// with). Where its search went before it failed is no result, and may be far
			// outside the data.
			r := &results[i]
			r.Counterfactual, r.CounterfactualOriginal, r.Epsilon, r.ChangedFeatures, r.Path = nil, nil, nil, nil, nil
			r.Attribution, r.AttributionStd, r.AttributionPlus, r.AttributionMinus = nil, nil, nil, nil
			r.CompletenessGap, r.Inputs = jnum(math.NaN()), inputsJSON{XOriginal: pk.x}
		}
	}
	doc := runDoc(s, cfg, f, sel)
	doc["results"] = results
	return doc
}

// whileLoopsJSON says whether the backend ran training and the search in While loops: "ok",
// or why not, in which case they took one execution per step (backend.Loops).
func whileLoopsJSON(info backend.Info) string {
	if info.Loops != nil {
		return info.Loops.Error()
	}
	return "ok"
}

// runDoc is what the JSON of explain and summary both record, so that a run can be
// repeated and checked: the data, the backend, the versions, every setting, the models,
// the scaler and the columns.
func runDoc(s *pipeline.Setup, cfg quce.Config, f *explainFlags, sel *selection) map[string]any {
	lines := []int{}
	if l, _ := f.lineList(); l != nil {
		lines = l
	}
	doc := map[string]any{
		"dataset":   datasetJSON(s),
		"data_file": pipeline.DataFile(s.Data),
		"backend":   s.BackendInfo.Config,
		// false only on a GPU whose XLA_FLAGS turned XLA's deterministic operations off
		"deterministic": !s.BackendInfo.Nondeterministic,
		"while_loops":   whileLoopsJSON(s.BackendInfo),
		"versions":      versions(),
		"config": map[string]any{
			"quce": cfg, "split": f.split, "n": f.n, "rows": lines, "instances": f.instances,
			"split_seed": s.Options.SplitSeed, "test_fraction": s.Options.TestFraction,
			"model": modelJSON(s), "vae": s.VAE.Config, "class": f.class,
			"frozen": splitList(f.cons.frozen), "increase": splitList(f.cons.increase),
			"decrease": splitList(f.cons.decrease), "bounds": splitList(f.cons.bounds),
			"types": f.types, "ignore": splitList(f.ignore), "drop_missing": f.dropMissing,
		},
		"models": map[string]any{
			"cache_key": s.CacheKey, "train_accuracy": s.TrainAccuracy, "test_accuracy": s.TestAccuracy,
			"vae_train": s.VAETrain, "vae_test": s.VAETest, "model_check": s.ModelCheck,
		},
		"scaler":       map[string]any{"mean": jvec(s.Scaler.Mean), "std": jvec(s.Scaler.Std), "min": jvec(s.Scaler.Min), "max": jvec(s.Scaler.Max)},
		"features":     s.Data.Features,
		"columns":      columnsJSON(s.Explainer.Columns()),
		"line_numbers": lineNote,
	}
	if sel.instances {
		doc["instance_file"] = sel.file
	}
	if f.shard != "" {
		doc["config"].(map[string]any)["shard"] = f.shard
	}
	return doc
}

// csvColumns are the columns of the -csv table: one row per instance and data column. The
// instance is named by file and line; original and counterfactual are in the data's own
// terms (numbers, or a category's name); attributions and epsilon (standardised) are summed
// over a categorical column's inputs; changed says whether the column's counterfactual value
// differs from the original, detour whether it ends unchanged yet carries an attribution
// (quce.Explanation.Detours); the columns after detour are the instance's own figures,
// repeated on each of its rows.
var csvColumns = []string{
	"file", "line", "split", "column", "rank", "original", "counterfactual",
	"attribution", "attribution_std", "attribution_plus", "attribution_minus", "epsilon",
	"changed", "detour",
	"predicted_class", "target_class", "prob_target_start", "prob_target_end", "valid", "already_target",
	"completeness_gap", "cf_uncertainty", "cf_uncertainty_paper", "path_uncertainty",
	"path_uncertainty_paper", "path_steps", "paths", "valid_paths_count", "failure",
}

// explainCSV is the tidy long table of -csv, which pandas (read_csv) and R (read.csv) read
// as it is: a header, one row per instance and feature, numbers in full precision and NA
// for a number that is not finite (every figure of a failed row past its instance).
func explainCSV(s *pipeline.Setup, ex []*quce.Explanation, sel *selection) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(csvColumns); err != nil {
		return nil, err
	}
	if w.Flush(); w.Error() != nil {
		return nil, w.Error()
	}
	if err := writeCSVRows(&b, s, ex, sel); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeCSVRows writes the -csv table's rows of each explanation (ex[i] of sel.picks[i]).
func writeCSVRows(w io.Writer, s *pipeline.Setup, ex []*quce.Explanation, sel *selection) error {
	l := newCSVLine()
	// A continuous value in full precision; any other in the data's own terms.
	cell := func(c data.Column, x []float64) {
		if c.Type == data.Continuous {
			l.num(x[c.Start])
			return
		}
		l.text(c.Format(x))
	}
	cols := s.Explainer.Columns()
	for i, e := range ex {
		p, pk := e.Path0(), sel.picks[i]
		valid := 0
		for _, q := range e.Paths {
			if q.Valid {
				valid++
			}
		}
		failed := p.Failure != ""
		attr, std := data.SumColumns(cols, e.Attribution), data.SumColumns(cols, e.AttributionStd)
		plus, minus := data.SumColumns(cols, e.AttributionPlus), data.SumColumns(cols, e.AttributionMinus)
		eps := data.SumColumns(cols, p.Epsilon)
		gap := e.CompletenessGap
		if failed {
			// As in the JSON: no attribution for a row whose path from x failed.
			gap = math.NaN()
			for _, v := range [][]float64{attr, std, plus, minus} {
				for ci := range v {
					v[ci] = math.NaN()
				}
			}
		}
		rank := make([]int, len(attr))
		for r, ci := range quce.RankFeatures(attr) {
			rank[ci] = r + 1
		}
		changed := make([]bool, len(cols))
		for _, ci := range changedColumns(cols, e.X, p.Counterfactual) {
			changed[ci] = true
		}
		detours := e.ByColumn(cols).Detours()
		row := l.fields(func() {
			l.text(s.Data.Labels[e.PredictedClass])
			l.text(s.Data.Labels[e.Target])
			l.num(e.ProbStart)
			l.num(p.ProbEnd)
			l.bool(p.Valid)
			l.bool(e.AlreadyTarget)
			for _, v := range []float64{gap, p.CFUncertainty, p.CFUncertaintyPaper, p.PathUncertainty, p.PathUncertaintyPaper} {
				l.num(v)
			}
			l.int(p.Steps)
			l.int(len(e.Paths))
			l.int(valid)
			l.text(p.Failure)
		})
		for ci, c := range cols {
			l.text(sel.file)
			l.int(pk.line)
			l.text(pk.split)
			l.text(c.Name)
			// A failed row has no counterfactual, so no attribution to rank by and no change
			// to report.
			if failed {
				l.text("NA")
			} else {
				l.int(rank[ci])
			}
			cell(c, pk.x)
			if failed {
				l.text("NA")
			} else {
				cell(c, p.CounterfactualOriginal)
			}
			for _, v := range []float64{attr[ci], std[ci], plus[ci], minus[ci], eps[ci]} {
				l.num(v)
			}
			if failed {
				l.text("NA")
				l.text("NA")
			} else {
				l.bool(changed[ci])
				l.bool(detours[ci])
			}
			l.raw(row)
			l.end()
		}
		if len(l.buf) >= 1<<20 || i == len(ex)-1 {
			if _, err := w.Write(l.buf); err != nil {
				return err
			}
			l.buf = l.buf[:0]
		}
	}
	return nil
}

func datasetJSON(s *pipeline.Setup) map[string]any {
	return map[string]any{
		"name": s.Data.Name, "sha256": s.Data.Checksum, "rows": s.Data.Rows(), "target": s.Data.Target,
		"labels": s.Data.Labels, "train_rows": len(s.TrainIdx), "test_rows": len(s.TestIdx),
		"constant_columns": append([]string{}, s.Data.Constant...), // left out: one value in every row
	}
}

// versions records what is needed to rerun: Go and the GoMLX modules, with the local copy a
// module was replaced by (the patched pure-Go backend, third_party/README.md).
func versions() map[string]string {
	v := map[string]string{"go": runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/gomlx/gomlx", "github.com/gomlx/compute", "github.com/gomlx/go-xla":
				v[d.Path] = d.Version
				if d.Replace != nil {
					v[d.Path] += " => " + d.Replace.Path
				}
			}
		}
	}
	return v
}
