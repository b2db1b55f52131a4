package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

type explainFlags struct {
	common
	split    string
	n, top   int
	jsonPath string
	svgDir   string
	frozen   string
}

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := &explainFlags{}
	f.stderr = stderr
	fs := flag.NewFlagSet("quce explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.StringVar(&f.split, "split", "test", "which split's rows to explain: train or test")
	fs.IntVar(&f.n, "n", 5, "explain the first n rows of the split")
	fs.IntVar(&f.top, "top", 5, "features printed per instance")
	fs.StringVar(&f.jsonPath, "json", "", "write the results as JSON to this file")
	fs.StringVar(&f.svgDir, "svg", "", "write plots (SVG) for every instance into this folder")
	fs.StringVar(&f.frozen, "frozen", "", "comma-separated feature names that may not change")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; fix: put flags before nothing else (quce explain -n 3)", fs.Arg(0))
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if f.split != "train" && f.split != "test" {
		return fmt.Errorf("-split %q: fix: use train or test", f.split)
	}
	if f.n <= 0 {
		return fmt.Errorf("-n %d: fix: explain at least 1 row", f.n)
	}
	if err := f.checkOutput(f.jsonPath); err != nil {
		return err
	}
	s, err := f.prepare()
	if err != nil {
		return err
	}
	rows, idx := s.XTest, s.TestIdx
	if f.split == "train" {
		rows, idx = s.XTrain, s.TrainIdx
	}
	if f.n > len(rows) {
		return fmt.Errorf("-n %d: the %s split has only %d rows; fix: use -n %d or less", f.n, f.split, len(rows), len(rows))
	}
	frozen, err := frozenMask(f.frozen, s.Data.Features)
	if err != nil {
		return err
	}
	target, err := eval.ClassIndex(s.Data.Labels, f.class)
	if err != nil {
		return err
	}
	qs := make([]quce.Query, f.n)
	for i := range qs {
		qs[i] = quce.Query{X: rows[i], Target: target, Frozen: frozen}
	}
	f.logf("explaining %d %s rows: %d steps of %s, λ = %g, %g, %g", f.n, f.split, cfg.Steps, cfg.Optimizer, cfg.Lambda1, cfg.Lambda2, cfg.Lambda3)
	ex, tm, err := s.Explainer.ExplainTimed(ctx, cfg, qs)
	if err != nil {
		return err
	}
	f.logf("done: optimisation with path attribution %.2fs, ± uncertainty %.2fs", tm.Optimisation, tm.Uncertainty)
	printExplanations(stdout, s, ex, idx, f.split, f.top)
	if f.jsonPath != "" {
		doc := explainDoc(s, cfg, f, ex, idx)
		b, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			return err
		}
		if err := writeOutput(f.jsonPath, append(b, '\n')); err != nil {
			return err
		}
		f.logf("wrote %s", f.jsonPath)
	}
	if f.svgDir != "" {
		return writeExplainPlots(f, s, ex, idx)
	}
	return nil
}

func frozenMask(list string, features []string) ([]bool, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	mask := make([]bool, len(features))
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		i := indexOf(features, name)
		if i < 0 {
			return nil, fmt.Errorf("-frozen: unknown feature %q; fix: use names from the header (%s, ...)", name, strings.Join(features[:min(4, len(features))], ", "))
		}
		mask[i] = true
	}
	return mask, nil
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

func printExplanations(w io.Writer, s *pipeline.Setup, ex []*quce.Explanation, idx []int, split string, top int) {
	labels := s.Data.Labels
	for i, e := range ex {
		p := e.Path0()
		status := "valid"
		if !p.Valid {
			status = "NOT valid"
			if p.Failure != "" {
				status = "FAILED: " + p.Failure
			}
		}
		fmt.Fprintf(w, "\n%s row %d (data row %d): predicted %q, target %q: F(target) %.4f -> %.4f, %s (%d steps, completeness gap %.1e)\n",
			split, i, idx[i]+1, labels[e.PredictedClass], labels[e.Target], e.ProbStart, p.ProbEnd, status, p.Steps, e.CompletenessGap)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  feature\toriginal\t-> counterfactual\tattribution\t[minus, plus]")
		for _, f := range quce.RankFeatures(e.Attribution)[:min(top, len(e.Attribution))] {
			fmt.Fprintf(tw, "  %s\t%.4g\t-> %.4g\t%+.4f\t[%+.4f, %+.4f]\n", s.Data.Features[f], e.XOriginal[f],
				p.CounterfactualOriginal[f], e.Attribution[f], e.AttributionMinus[f], e.AttributionPlus[f])
		}
		tw.Flush()
	}
}

// resultJSON is one instance in quce explain's JSON. With several paths the attribution
// fields are the expectations over paths (exQUCE) and the counterfactual is path 1's.
type resultJSON struct {
	Index                  int    `json:"index"`
	SplitRow               int    `json:"split_row"`
	PredictedClass         int    `json:"predicted_class"`
	PredictedClassName     string `json:"predicted_class_name"`
	TargetClass            int    `json:"target_class"`
	TargetClassName        string `json:"target_class_name"`
	ClassProbabilities     jvec   `json:"class_probabilities"`
	ProbTargetStart        jnum   `json:"prob_target_start"`
	ProbTargetEnd          jnum   `json:"prob_target_end"`
	Valid                  bool   `json:"valid"`
	Failure                string `json:"failure,omitempty"`
	X                      jvec   `json:"x"`
	Counterfactual         jvec   `json:"counterfactual"`
	XOriginal              jvec   `json:"x_original"`
	CounterfactualOriginal jvec   `json:"counterfactual_original"`
	Attribution            jvec   `json:"attribution"`
	AttributionStd         jvec   `json:"attribution_std"`
	AttributionPlus        jvec   `json:"attribution_plus"`
	AttributionMinus       jvec   `json:"attribution_minus"`
	Epsilon                jvec   `json:"epsilon"`
	CompletenessGap        jnum   `json:"completeness_gap"`
	CFUncertainty          jnum   `json:"cf_uncertainty"`
	CFUncertaintyPaper     jnum   `json:"cf_uncertainty_paper"`
	PathUncertainty        jnum   `json:"path_uncertainty"`
	PathUncertaintyPaper   jnum   `json:"path_uncertainty_paper"`
	PathSteps              int    `json:"path_steps"`
	Paths                  int    `json:"paths"`
	ValidPaths             jnum   `json:"valid_paths"`
}

// jnum and jvec are numbers that may be non-finite (a failed path's uncertainty, say):
// JSON has no NaN or Inf, so they are written as null.
type jnum float64

func (v jnum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

type jvec []float64

func (v jvec) MarshalJSON() ([]byte, error) {
	out := make([]jnum, len(v))
	for i, x := range v {
		out[i] = jnum(x)
	}
	return json.Marshal(out)
}

func explainDoc(s *pipeline.Setup, cfg quce.Config, f *explainFlags, ex []*quce.Explanation, idx []int) map[string]any {
	results := make([]resultJSON, len(ex))
	for i, e := range ex {
		p := e.Path0()
		results[i] = resultJSON{
			Index: idx[i], SplitRow: i, PredictedClass: e.PredictedClass, TargetClass: e.Target,
			PredictedClassName: s.Data.Labels[e.PredictedClass], TargetClassName: s.Data.Labels[e.Target],
			ClassProbabilities: e.Probabilities,
			ProbTargetStart:    jnum(e.ProbStart), ProbTargetEnd: jnum(p.ProbEnd), Valid: p.Valid, Failure: p.Failure,
			X: e.X, Counterfactual: p.Counterfactual, XOriginal: e.XOriginal, CounterfactualOriginal: p.CounterfactualOriginal,
			Attribution: e.Attribution, AttributionStd: e.AttributionStd, AttributionPlus: e.AttributionPlus,
			AttributionMinus: e.AttributionMinus, Epsilon: p.Epsilon, CompletenessGap: jnum(e.CompletenessGap),
			CFUncertainty: jnum(p.CFUncertainty), CFUncertaintyPaper: jnum(p.CFUncertaintyPaper),
			PathUncertainty: jnum(p.PathUncertainty), PathUncertaintyPaper: jnum(p.PathUncertaintyPaper),
			PathSteps: p.Steps, Paths: len(e.Paths), ValidPaths: jnum(e.ValidRate()),
		}
	}
	return map[string]any{
		"dataset":  datasetJSON(s),
		"backend":  s.BackendInfo.Config,
		"versions": versions(),
		"config": map[string]any{
			"quce": cfg, "split": f.split, "split_seed": s.Options.SplitSeed, "test_fraction": s.Options.TestFraction,
			"model": modelJSON(s), "vae": s.VAE.Config, "class": f.class, "frozen": splitList(f.frozen),
		},
		"models": map[string]any{
			"cache_key": s.CacheKey, "train_accuracy": s.TrainAccuracy, "test_accuracy": s.TestAccuracy,
			"vae_train": s.VAETrain, "vae_test": s.VAETest,
		},
		"features": s.Data.Features,
		"results":  results,
	}
}

func datasetJSON(s *pipeline.Setup) map[string]any {
	return map[string]any{
		"name": s.Data.Name, "sha256": s.Data.Checksum, "rows": s.Data.Rows(), "target": s.Data.Target,
		"labels": s.Data.Labels, "train_rows": len(s.TrainIdx), "test_rows": len(s.TestIdx),
	}
}

// versions records what is needed to rerun: Go and the GoMLX modules.
func versions() map[string]string {
	v := map[string]string{"go": runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/gomlx/gomlx", "github.com/gomlx/compute", "github.com/gomlx/go-xla":
				v[d.Path] = d.Version
			}
		}
	}
	return v
}
