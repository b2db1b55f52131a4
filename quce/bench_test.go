package quce_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// BenchmarkExplain explains B training rows with the defaults (n = 1000 Adam steps,
// trapezoid rule with K = 1, 3 (the speed issue's work unit at B = 455) and 10, ± integrals)
// on each engine. Run with
//
//	go test ./quce -run XXX -bench Explain -benchtime 1x -count 3
func BenchmarkExplain(b *testing.B) {
	s := wbc(b)
	for _, rows := range []int{1, 100, 455} {
		for _, k := range []int{1, 3, 10} {
			for _, engine := range []string{"loop", "steps", "replay"} {
				b.Run(fmt.Sprintf("B=%d/K=%d/engine=%s", rows, k, engine), func(b *testing.B) {
					e := with(b, s.Explainer, func(st *quce.Settings) { st.Engine = quce.EngineChoice(engine) })
					cfg := quce.DefaultConfig()
					cfg.K = k
					qs := queries(s.XTrain[:rows])
					gap := 0.0
					for b.Loop() {
						ex, err := e.Explain(context.Background(), cfg, qs)
						if err != nil {
							b.Fatal(err)
						}
						gap = 0
						for _, e := range ex {
							gap += math.Abs(e.CompletenessGap) / float64(len(ex))
						}
					}
					b.ReportMetric(gap, "gap")
					b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}

// BenchmarkExplainModelKinds times the speed issue's work unit (455 W-BC training rows,
// n = 1000, the default rule and K, ± integrals) on the same 30→16→1 network given as a
// native GoMLX model and as an ONNX file, and as a GoMLX model of 50 hidden units (the same
// function: 34 more units of zero weights), whose products have a width no padded layer
// has. Run with
//
//	go test ./quce -run XXX -bench ExplainModelKinds -benchtime 1x -count 3
func BenchmarkExplainModelKinds(b *testing.B) {
	for _, kind := range []struct {
		name  string
		setup func(testing.TB) *pipeline.Setup
	}{{"gomlx", pipelinetest.WBCStd(false)}, {"onnx", pipelinetest.WBCStd(true)}, {"gomlx-hidden-50", pipelinetest.WBCStdWide(50)}} {
		b.Run(kind.name, func(b *testing.B) {
			s := kind.setup(b)
			qs := queries(s.XTrain)
			for b.Loop() {
				if _, err := s.Explainer.Explain(context.Background(), quce.DefaultConfig(), qs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
