package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/report"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := &common{stderr: stderr}
	fs := flag.NewFlagSet("quce eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	d := eval.DefaultOptions()
	n := fs.Int("n", d.N, "instances per split")
	splits := fs.String("splits", "train,test", "splits to evaluate: train, test or both")
	methods := fs.String("methods", eval.JoinMethods(eval.DefaultMethods(), ","),
		"methods to compare, comma-separated: any of "+eval.JoinMethods(eval.AllMethods(), ", ")+", or all")
	rows := fs.String("rows", "", "evaluate these rows, by their lines in the CSV file (comma-separated, such as 3,17,42; the header is line 1), each in its split, instead of -n rows of each split")
	evalSeed := fs.Uint64("eval-seed", d.Seed, "seed choosing the instances and seeding DiCE-random")
	jsonPath := fs.String("json", "", "write the report as JSON to this file (- for standard output, the tables then going to standard error)")
	svgDir := fs.String("svg", "", "write the evaluation plot (SVG) into this folder")
	var cons constraintFlags
	cons.register(fs)
	seedList := fs.String("seeds", "", "run the whole evaluation once per seed (comma-separated, e.g. 1,2,3), each seed setting the split, the models, the search and the instances, and report mean ± sd across seeds")
	if err := f.parse(fs, args); err != nil {
		return err
	}
	o := d
	var err error
	if o.Methods, err = eval.ParseMethods(*methods); err != nil {
		return fmt.Errorf("-methods %q: %w", *methods, err)
	}
	f.autoMethod = slices.Contains(o.Methods, eval.QUCEAuto)
	cfg, err := f.config()
	if err != nil {
		return err
	}
	o.N, o.Seed, o.Config, o.Class = *n, *evalSeed, cfg, f.class
	o.PlausibilityQuantile = f.plausQuantile
	if f.set["margin"] {
		o.AutoMargin = &f.margin
	}
	if o.Auto, err = f.autoGridFlag(); err != nil {
		return err
	}
	if o.N <= 0 {
		return fmt.Errorf("-n %d: fix: evaluate at least 1 instance", o.N)
	}
	if o.Rows, err = parseLines(*rows); err != nil || (o.Rows != nil && f.set["n"]) {
		return cmp.Or(err, fmt.Errorf("-n and -rows both choose rows; fix: use one of them (-rows 3,17,42 names lines, -n 5 takes 5 rows of each split)"))
	}
	if o.Splits, err = eval.ParseSplits(*splits); err != nil {
		return fmt.Errorf("-splits %q: %w", *splits, err)
	}
	seeds, err := parseSeeds(*seedList)
	if err != nil {
		return err
	}
	for _, name := range []string{"split-seed", "seed", "eval-seed"} {
		if seeds != nil && f.set[name] {
			return fmt.Errorf("-seeds sets the split, model, search and instance seeds of each run, so -%s has no effect with it; fix: drop -%s (or -seeds)", name, name)
		}
	}
	out, err := f.evalOutputs(*jsonPath, *svgDir, stdout, stderr)
	if err != nil {
		return err
	}
	// The constraints name columns, so the data are read first (again by prepare: cheap).
	ds, err := f.loadData()
	if err != nil {
		return err
	}
	if o.Constraints, err = cons.constraints(ds); err != nil {
		return err
	}
	o.Progress = func(format string, args ...any) { // a line per method, which names its searches
		f.logf(format, args...)
		f.meter.Phase(fmt.Sprintf(format, args...), 0)
	}
	if seeds != nil {
		return evalSeeds(ctx, f, o, seeds, out)
	}
	return evalOnce(ctx, f, o, out)
}

// evalOnce runs one evaluation with options o and writes its tables and out's files.
func evalOnce(ctx context.Context, f *common, o eval.Options, out evalOutputs) error {
	s, err := f.prepare(ctx)
	if err != nil {
		return err
	}
	r, err := eval.Run(ctx, eval.FromSetup(s), o)
	if err != nil {
		return err
	}
	flagNamedReport(r)
	fmt.Fprint(out.tables, modelHeader(f, s))
	if err := r.WriteTables(out.tables); err != nil {
		return err
	}
	// A report without a single valid result measures nothing: the tables say why.
	if err := r.NoneSucceeded(); err != nil {
		return nothingWritten(err)
	}
	return out.write(f, func() ([]byte, error) {
		var b bytes.Buffer
		err := r.WriteJSON(&b)
		return b.Bytes(), err
	}, report.EvaluationTable(r), "")
}

// evalOutputs is where quce eval writes: its tables, -json and the -svg plot.
type evalOutputs struct {
	jsonPath, svgPath string // "" for none; jsonPath "-" for standard output
	stdout, tables    io.Writer
}

// evalOutputs are the outputs of -json and -svg, checked before any work; the tables go to
// standard error when the JSON goes to standard output.
func (f *common) evalOutputs(jsonPath, svgDir string, stdout, stderr io.Writer) (evalOutputs, error) {
	out := evalOutputs{jsonPath: stdoutName(jsonPath, stdout), stdout: stdout, tables: stdout}
	var pictures []string
	if svgDir != "" && svgDir != "-" {
		out.svgPath = filepath.Join(svgDir, "evaluation.svg")
		pictures = []string{out.svgPath}
	}
	if err := f.checkOutputs([]outputFile{{"-json", out.jsonPath}}, svgDir, pictures); err != nil {
		return out, err
	}
	if out.jsonPath == "-" {
		out.tables = stderr // the tables must not mix with the JSON
	}
	return out, nil
}

// write writes the JSON (made by doc) and the evaluation plot of table, all or nothing.
func (out evalOutputs) write(f *common, doc func() ([]byte, error), table plots.MetricTable, note string) error {
	var outs []output
	if out.jsonPath != "" {
		b, err := doc()
		if err != nil {
			return err
		}
		outs = append(outs, output{out.jsonPath, b})
	}
	if out.svgPath != "" {
		svg, err := plots.Evaluation(table, nil, plots.Options{Note: note})
		if err != nil {
			return err
		}
		outs = append(outs, output{out.svgPath, svg})
	}
	if err := writeOutputs(out.stdout, outs); err != nil {
		return err
	}
	for _, o := range outs {
		f.logf("wrote %s", outputName(o.path))
	}
	return nil
}

// parseSeeds reads -seeds; "" gives nil (one run with the usual seeds).
func parseSeeds(list string) ([]uint64, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var seeds []uint64
	for _, p := range strings.Split(list, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 10, 64)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("-seeds %q: %q is not a positive integer; fix: list seeds such as 1,2,3", list, strings.TrimSpace(p))
		}
		if slices.Contains(seeds, v) {
			return nil, fmt.Errorf("-seeds %q: seed %d is listed twice; fix: list each seed once", list, v)
		}
		seeds = append(seeds, v)
	}
	return seeds, nil
}

// evalSeeds runs the evaluation once per seed, each with its own split (but the data's own,
// which stays), models (trained with that seed, and cached), search seed and instances, and
// prints mean ± sd across seeds; -json holds the summary and every seed's report, -svg plots
// the means.
func evalSeeds(ctx context.Context, f *common, o eval.Options, seeds []uint64, out evalOutputs) error {
	var reports []*eval.Report
	if f.splitColumn != "" || f.trainCSV != "" {
		f.logf("-seeds with the data's own split: every seed trains and searches with its own seed, on that one split")
	}
	for _, seed := range seeds {
		f.splitSeed, f.modelSeed = int64(seed), seed
		o.Seed, o.Config.Seed = seed, seed
		f.logf("eval: seed %d", seed)
		s, err := f.prepare(ctx)
		if err != nil {
			return fmt.Errorf("seed %d: %w", seed, err)
		}
		fmt.Fprintf(out.tables, "seed %d: %s", seed, modelHeader(f, s))
		r, err := eval.Run(ctx, eval.FromSetup(s), o)
		if err != nil {
			return fmt.Errorf("seed %d: %w", seed, err)
		}
		flagNamedReport(r)
		reports = append(reports, r)
	}
	sum, err := eval.Summarize(seeds, reports)
	if err != nil {
		return err
	}
	if err := sum.WriteTables(out.tables); err != nil {
		return err
	}
	var failed error
	for _, r := range reports {
		if failed = r.NoneSucceeded(); failed == nil {
			break
		}
	}
	if failed != nil {
		return fmt.Errorf("with every seed, %w", nothingWritten(failed))
	}
	doc := func() ([]byte, error) { return report.JSON(map[string]any{"summary": sum, "reports": reports}) }
	return out.write(f, doc, report.SeedMeansTable(sum), fmt.Sprintf("Means over %d seeds (the tables give ± sd).", len(seeds)))
}
