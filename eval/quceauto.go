package eval

import (
	"context"
	"fmt"
)

// QUCEAuto is the QUCE search with λ2 and λ3 chosen per instance (quce.Auto, grid
// Options.Auto) under the plausibility bound of Options.PlausibilityQuantile.
const QUCEAuto Method = "quce-auto"

type quceAutoRunner struct{}

func (quceAutoRunner) about() about {
	return about{name: QUCEAuto, title: "QUCE (automatic λ)", aliases: []string{"auto", "quce_auto"}, path: true, ownCounterfactual: true}
}

func (quceAutoRunner) run(ctx context.Context, s *split) ([]*outcome, error) {
	return s.search(ctx, s.autoCfg, fmt.Sprintf("QUCE with automatic λ (%d candidates each)", len(s.autoCfg.Auto.Grid)))
}
