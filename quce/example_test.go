package quce_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// Explain one W-BC test instance with the built-in classifier and VAE (trained on the first
// run, then loaded from the model cache): the counterfactual reaches the other class, and the
// path attribution adds up to the change in F(τ|·) it explains, as its completeness gap says.
func Example() {
	s, err := pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: pipeline.DefaultCacheDir()})
	if err != nil {
		log.Fatal(err)
	}
	exps, err := s.Explainer.Explain(context.Background(), quce.DefaultConfig(), []quce.Query{quce.NewQuery(s.XTest[0])})
	if err != nil {
		log.Fatal(err)
	}
	e := exps[0]
	p := e.Path0()
	sum := 0.0
	for _, phi := range p.Attribution {
		sum += phi
	}
	fmt.Println(s.Data.Labels[e.PredictedClass], "→", s.Data.Labels[e.Target], "valid:", p.Valid)
	fmt.Println("Σ Φ − (F(τ|x_c) − F(τ|x)) = gap:", math.Abs(sum-(p.ProbEnd-e.ProbStart)-p.CompletenessGap) < 1e-9)
	fmt.Println("gap below 1e-3:", math.Abs(p.CompletenessGap) < 1e-3)
	// Output:
	// malignant → benign valid: true
	// Σ Φ − (F(τ|x_c) − F(τ|x)) = gap: true
	// gap below 1e-3: true
}

// A constraint holds along the whole path: here the instance's first feature may not change
// and its second may only grow (in original units, the researcher's).
func ExampleExplainer_Constrain() {
	s, err := pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: pipeline.DefaultCacheDir()})
	if err != nil {
		log.Fatal(err)
	}
	names := s.Explainer.Features()
	q, err := s.Explainer.Constrain(quce.NewQuery(s.XTest[0]), quce.Constraints{Frozen: names[:1], Increase: names[1:2]})
	if err != nil {
		log.Fatal(err)
	}
	exps, err := s.Explainer.Explain(context.Background(), quce.DefaultConfig(), []quce.Query{q})
	if err != nil {
		log.Fatal(err)
	}
	e := exps[0]
	frozen, grows := true, true
	for _, pt := range e.Path0().Points {
		orig := s.Scaler.InverseRow(pt)
		frozen = frozen && math.Abs(orig[0]-e.XOriginal[0]) <= 1e-4*math.Abs(e.XOriginal[0])
		grows = grows && orig[1] >= e.XOriginal[1]-1e-4*math.Abs(e.XOriginal[1])
	}
	fmt.Printf("%s unchanged: %v; %s never below x's: %v\n", names[0], frozen, names[1], grows)
	// Output:
	// mean_radius unchanged: true; mean_texture never below x's: true
}

// An explainer is configured once; With makes one of the same models with other settings
// (sharing the compiled programs), and each call reports what it ran. Here the step engine,
// one execution per optimisation step, for comparison with the default engine.
func ExampleExplainer_With() {
	s, err := pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: pipeline.DefaultCacheDir()})
	if err != nil {
		log.Fatal(err)
	}
	settings := s.Explainer.Settings()
	settings.Engine = quce.EngineSteps
	steps, err := s.Explainer.With(settings)
	if err != nil {
		log.Fatal(err)
	}
	cfg := quce.DefaultConfig()
	qs := []quce.Query{quce.NewQuery(s.XTest[0])}
	_, st, err := steps.ExplainWithStats(context.Background(), cfg, qs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("engine:", st.Engine, "at least one execution a step:", st.Executions >= int64(cfg.Steps))
	// Output:
	// engine: steps at least one execution a step: true
}
