package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/atomicfile"
	"github.com/quce-go/quce/internal/progress"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
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
		b, err := report.JSON(explainDoc(s, cfg, f, ex, sel))
		if err != nil {
			return err
		}
		outs = append(outs, output{f.jsonPath, b})
	}
	if f.csvPath != "" {
		b, err := report.CSV(instances(s, ex, sel))
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

// nothingWritten is err, a run's failure, saying that no output file was written (without
// the "quce: " or "eval: " that the library's message starts with).
func nothingWritten(err error) error {
	return fmt.Errorf("%s; no output files were written", strings.TrimPrefix(strings.TrimPrefix(err.Error(), "quce: "), "eval: "))
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
	// The rows and outputs are checked before any training; with -class and -n, again once
	// the trained model has said which rows need recourse.
	check := func() error {
		if f.shard != "" {
			sh, _ := parseShard(f.shard) // checked by rowFlags
			if sel.picks, err = sh.of(sel.picks); err != nil {
				return err
			}
		}
		pics, err := pictures(p.Data, sel, r.cons)
		if err != nil {
			return err
		}
		return f.checkOutputs(files, f.svgDir, pics)
	}
	if err := check(); err != nil {
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
	if sel.pool != nil {
		if err := f.needRecourse(s, sel, target, cfg.Threshold); err != nil {
			return nil, err
		}
		if err := check(); err != nil {
			return nil, err
		}
	}
	qs := make([]quce.Query, len(sel.picks))
	for i, p := range sel.picks {
		if qs[i], err = s.Explainer.Constrain(quce.Query{X: s.Scaler.TransformRow(p.x), Original: p.x, Target: target}, r.cons); err != nil {
			return nil, fmt.Errorf("%s: %w", sel.name(p), err)
		}
	}
	f.logf("explaining %d rows of %s: %d steps of %s, %s", len(qs), sel.file, cfg.Steps, cfg.Optimizer, lambdasText(cfg))
	if r.ex, err = f.explainQueries(ctx, r, qs); err != nil {
		return nil, err
	}
	return r, nil
}

// lambdasText says which λ the search uses, for the log.
func lambdasText(cfg quce.Config) string {
	if cfg.Auto != nil {
		return fmt.Sprintf("λ1 = %g, (λ2, λ3) chosen per instance among %d candidates", cfg.Lambda1, len(cfg.Auto.Grid))
	}
	return fmt.Sprintf("λ = %g, %g, %g", cfg.Lambda1, cfg.Lambda2, cfg.Lambda3)
}

// explainQueries explains the queries of the rows r chose, streaming them to f.emit when it
// is set (and then returning none), with progress and a line of timings.
func (f *explainFlags) explainQueries(ctx context.Context, r *explained, qs []quce.Query) ([]*quce.Explanation, error) {
	s, cfg := r.s, r.cfg
	size := s.Explainer.JobSize(cfg, len(qs))
	chunk := 0 // all at once
	if f.emit != nil {
		chunk = cmp.Or(streamChunk, size.StreamChunk)
	}
	f.meter.Phase(progress.Searches(cfg, len(qs), chunk))
	var ex []*quce.Explanation
	var tm quce.Stats
	var err error
	if f.emit != nil {
		// What is streamed (the CSV, the text report) needs no path: each keeps its start
		// and end only.
		streamed := cfg
		streamed.PathPoints = 2
		tm, err = s.Explainer.ExplainStream(ctx, streamed, qs, chunk, func(first int, part []*quce.Explanation) error {
			return f.emit(r, first, flagNamedFailures(part))
		})
	} else {
		// Not when streamed: the size is of all the rows at once, and a streamed job holds
		// one chunk at a time.
		if line := progress.Size(size); line != "" {
			f.logf("%s", line)
		}
		ex, tm, err = s.Explainer.ExplainWithStats(ctx, cfg, qs)
		flagNamedFailures(ex)
	}
	if err != nil {
		return nil, err
	}
	f.logf("done: optimisation with path attribution %.2fs, ± uncertainty %.2fs, paths %.2fs", tm.Optimisation, tm.Uncertainty, tm.Paths)
	return ex, nil
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

// printExplanations prints the text report of the explanations (ex[i] of sel.picks[i]),
// with the legend of its tables when it has any.
func printExplanations(w io.Writer, s *pipeline.Setup, ex []*quce.Explanation, sel *selection, top int) {
	if top > 0 {
		fmt.Fprintln(w, report.Legend)
	}
	report.WriteText(w, instances(s, ex, sel), top)
}

// instances are the views of the explanations that every output formats (ex[i] of
// sel.picks[i]).
func instances(s *pipeline.Setup, ex []*quce.Explanation, sel *selection) []*report.Instance {
	out := make([]*report.Instance, len(ex))
	for i, e := range ex {
		out[i] = report.NewInstance(s.Explainer.Columns(), s.Data.Labels, e, sel.source(sel.picks[i]))
	}
	return out
}

// lineNote documents the row numbering in the JSON itself.
const lineNote = "line: the row's line in its CSV file (file; the header is line 1, so the first data row is line 2)"

// explainDoc is quce explain's JSON: the run (runDoc) and its results, one report.Instance
// per row.
func explainDoc(s *pipeline.Setup, cfg quce.Config, f *explainFlags, ex []*quce.Explanation, sel *selection) map[string]any {
	doc := runDoc(s, cfg, f, sel)
	doc["results"] = instances(s, ex, sel)
	return doc
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
		"dataset":   report.DatasetJSON(s),
		"data_file": pipeline.DataFile(s.Data),
		"backend":   s.BackendInfo.Config,
		// false only on a GPU whose XLA_FLAGS turned XLA's deterministic operations off
		"deterministic": !s.BackendInfo.Nondeterministic,
		"while_loops":   report.WhileLoopsJSON(s.BackendInfo),
		"versions":      backend.Versions(),
		"config": map[string]any{
			"quce": cfg, "split": f.split, "n": f.n, "rows": lines, "instances": f.instances,
			"split_seed": s.Options.SplitSeed, "test_fraction": s.Options.TestFraction,
			"model": report.ModelJSON(s), "vae": s.VAE.Config, "class": f.class,
			"frozen": splitList(f.cons.frozen), "increase": splitList(f.cons.increase),
			"decrease": splitList(f.cons.decrease), "bounds": splitList(f.cons.bounds),
			"types": f.types, "ignore": splitList(f.ignore), "drop_missing": f.dropMissing,
		},
		"models": map[string]any{
			"cache_key": s.CacheKey, "train_accuracy": s.TrainAccuracy, "test_accuracy": s.TestAccuracy,
			"vae_train": s.VAETrain, "vae_test": s.VAETest, "model_check": s.ModelCheck,
		},
		"scaler":       map[string]any{"mean": report.Vector(s.Scaler.Mean), "std": report.Vector(s.Scaler.Std), "min": report.Vector(s.Scaler.Min), "max": report.Vector(s.Scaler.Max)},
		"features":     s.Data.Features,
		"columns":      report.ColumnsJSON(s.Explainer.Columns()),
		"line_numbers": lineNote,
	}
	if sp := s.Options.Split; sp != nil { // the data's own split: no seed, no fraction
		config := doc["config"].(map[string]any)
		config["split_by"], config["split_seed"], config["test_fraction"] = sp.By, nil, nil
	}
	if sel.instances {
		doc["instance_file"] = sel.file
	}
	if f.shard != "" {
		doc["config"].(map[string]any)["shard"] = f.shard
	}
	return doc
}
