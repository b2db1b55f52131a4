package quce

import "github.com/gomlx/gomlx/core/graph"

// SetCompiledHook has f called with each program's graph once it is compiled (from the
// goroutine that compiled it), until the returned function restores the hook before it.
func SetCompiledHook(f func(program string, g *graph.Graph)) (restore func()) {
	old := compiledHook
	compiledHook = f
	return func() { compiledHook = old }
}

// PlausibilityBound is the bound WithBound sets for the quantile q of rows' L_ε.
func PlausibilityBound(e *Explainer, rows [][]float64, q float64) (float64, error) {
	return e.programs().plausibilityBound(rows, q)
}
