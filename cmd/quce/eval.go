package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/plots"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := &common{stderr: stderr}
	fs := flag.NewFlagSet("quce eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	d := eval.DefaultOptions()
	n := fs.Int("n", d.N, "instances per split")
	splits := fs.String("splits", "train,test", "splits to evaluate: train, test or both")
	methods := fs.String("methods", "quce,ig,agi,wachter,dice-random", "methods to compare")
	evalSeed := fs.Uint64("eval-seed", d.Seed, "seed choosing the instances and seeding DiCE-random")
	jsonPath := fs.String("json", "", "write the report as JSON to this file")
	svgDir := fs.String("svg", "", "write the evaluation plot (SVG) into this folder")
	if err := f.parse(fs, args); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	o := d
	o.N, o.Seed, o.Config, o.Class = *n, *evalSeed, cfg, f.class
	if o.N <= 0 {
		return fmt.Errorf("-n %d: fix: evaluate at least 1 instance", o.N)
	}
	if o.Splits, err = eval.ParseSplits(*splits); err != nil {
		return fmt.Errorf("-splits %q: %w", *splits, err)
	}
	if o.Methods, err = eval.ParseMethods(*methods); err != nil {
		return fmt.Errorf("-methods %q: %w", *methods, err)
	}
	svgPath := ""
	if *svgDir != "" {
		svgPath = filepath.Join(*svgDir, "evaluation.svg")
	}
	if err := f.checkOutput("-json", *jsonPath); err != nil {
		return err
	}
	if err := f.checkOutputDir("-svg", *svgDir); err != nil {
		return err
	}
	if err := f.checkOutput("-svg", svgPath); err != nil {
		return err
	}
	s, err := f.prepare(nil)
	if err != nil {
		return err
	}
	o.Progress = f.logf
	r, err := eval.Run(ctx, s, o)
	if err != nil {
		return err
	}
	if err := r.WriteTables(stdout); err != nil {
		return err
	}
	if *jsonPath != "" {
		var b bytes.Buffer
		if err := r.WriteJSON(&b); err != nil {
			return err
		}
		if err := writeOutput(*jsonPath, b.Bytes()); err != nil {
			return err
		}
		f.logf("wrote %s", *jsonPath)
	}
	if svgPath != "" {
		table := plots.MetricTable{}
		for m, v := range r.Metrics {
			table[string(m)] = v
		}
		svg, err := plots.Evaluation(table, nil, plots.Options{})
		if err != nil {
			return err
		}
		if err := writeOutput(svgPath, svg); err != nil {
			return err
		}
		f.logf("wrote %s", svgPath)
	}
	return nil
}
