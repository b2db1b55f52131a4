package quce_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/quce-go/quce/quce"
)

// BenchmarkExplain explains B training rows with the defaults (n = 1000 Adam steps,
// trapezoid rule with K = 10, ± integrals). Run with
//
//	go test ./quce -run XXX -bench Explain -benchtime 1x -count 3
func BenchmarkExplain(b *testing.B) {
	s := wbc(b)
	for _, rows := range []int{1, 100, 455} {
		for _, k := range []int{1, 10} {
			b.Run(fmt.Sprintf("B=%d/K=%d", rows, k), func(b *testing.B) {
				cfg := quce.DefaultConfig()
				cfg.K = k
				qs := queries(s.XTrain[:rows])
				gap := 0.0
				for b.Loop() {
					ex, err := s.Explainer.Explain(context.Background(), cfg, qs)
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
