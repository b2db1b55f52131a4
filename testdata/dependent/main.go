// Command dependent is what a program of a researcher's own does with this module: prepare
// the embedded default data set and its models, explain a few test rows, print the results.
// scripts/test-dependent.sh runs it twice, inside this repository and as a module of its own
// outside it that requires this one through a module proxy, and compares what they print
// byte for byte: both get the same backend (backend.Default: the patched pure-Go one) and so
// the same bits.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "dependent:", err)
		os.Exit(1)
	}
}

func run() error {
	cache, err := os.MkdirTemp("", "dependent-cache")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cache)
	s, err := pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: cache})
	if err != nil {
		return err
	}
	fmt.Printf("backend %s; test accuracy %v\n", s.BackendInfo.Config, s.TestAccuracy)
	rows := s.XTest[:4]
	qs := make([]quce.Query, len(rows))
	for i, r := range rows {
		qs[i] = s.Query(r)
	}
	exs, err := s.Explainer.Explain(context.Background(), quce.DefaultConfig(), qs)
	if err != nil {
		return err
	}
	for i, ex := range exs {
		p := ex.Paths[0]
		fmt.Printf("row %d: target %d, F %v -> %v, valid %v, gap %v\n", i, ex.Target, ex.ProbStart, p.ProbEnd, p.Valid, ex.CompletenessGap)
		fmt.Printf("  counterfactual %v\n  attribution %v\n  ± %v %v\n", p.Counterfactual, ex.Attribution, ex.AttributionPlus, ex.AttributionMinus)
	}
	return nil
}
