package eval

import "context"

// Wachter is the QUCE search with λ3 = 0 (no uncertainty term).
const Wachter Method = "wachter"

type wachterRunner struct{}

func (wachterRunner) about() about {
	return about{name: Wachter, title: "Wachter (λ3=0)", path: true, ownCounterfactual: true}
}

func (wachterRunner) run(ctx context.Context, s *split) ([]*outcome, error) {
	return s.search(ctx, s.wachterCfg, "Wachter (λ3 = 0)")
}
