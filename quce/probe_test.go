package quce_test

import (
	"testing"
	"time"

	"github.com/quce-go/quce/quce"
)

func TestProbeDefaults(t *testing.T) {
	s := wbc(t)
	for _, cfg := range []quce.Config{quce.DefaultConfig()} {
		t0 := time.Now()
		ex := explain(t, cfg, s.XTest)
		valid, gap, cfu, pu := 0, 0.0, 0.0, 0.0
		for _, e := range ex {
			p := e.Path0()
			if p.Valid {
				valid++
			}
			gap += abs(p.CompletenessGap)
			cfu += p.CFUncertaintyPaper
			pu += p.PathUncertaintyPaper
		}
		n := float64(len(ex))
		t.Logf("%+v: %v valid %.3f gap %.2e cfU %.3f pathU %.3f", cfg, time.Since(t0), float64(valid)/n, gap/n, cfu/n, pu/n)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
