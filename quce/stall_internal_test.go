package quce

import (
	"math"
	"testing"
)

// watchStall: a row whose F(τ|·) stays invalid and flat over stallWindow steps while its
// class gradient ‖∇ log F‖ has vanished stalls and loses its proximity term (λ2 = 0);
// rising F, an ordinary class gradient (λ2 outweighing the class term) or a valid point
// does not stall. A stalled row stops at its first point with F ≥ ϑ + stallMargin.
func TestWatchStall(t *testing.T) {
	cfg := Config{Threshold: 0.5}
	flat := func(step int) (float32, float32) { return 1e-8, 1e-13 } // ‖∇ log F‖ = 1e-5
	for _, tc := range []struct {
		name string
		// at gives F(τ|·) and the size of ∇F(τ|·) at each step.
		at          func(step int) (p, grad float32)
		wantStalled int
	}{
		{"flat plateau, vanished gradient", flat, 1 + stallWindow},
		{"F underflowed to 0", func(int) (float32, float32) { return 0, 0 }, 1 + stallWindow},
		{"F rising", func(s int) (float32, float32) {
			p := float32(1e-8 * math.Exp(0.001*float64(s)))
			return p, p * 1e-5
		}, 0},
		{"held by λ2 against an ordinary class gradient", func(int) (float32, float32) { return 0.3, 0.3 }, 0},
		{"valid", func(int) (float32, float32) { return 0.6, 1e-9 }, 0},
		{"valid, then flat", func(s int) (float32, float32) {
			if s <= 50 {
				return 0.6, 1e-9
			}
			return flat(s)
		}, 51 + stallWindow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &row{lam: [3]float32{1, 0.01, 0.1}}
			acted := 0
			for step := 1; step <= 3*stallWindow; step++ {
				p, g := tc.at(step)
				r.last.prob = p
				switch r.watchStall(cfg, step, []float32{0.6 * g, 0.8 * g}) {
				case stallActed:
					acted++
				case stallStop:
					t.Fatalf("stopped at step %d with F %g", step, p)
				}
			}
			if r.stalled != tc.wantStalled {
				t.Errorf("stalled at step %d, want %d", r.stalled, tc.wantStalled)
			}
			wantLam := [3]float32{1, 0.01, 0.1}
			if tc.wantStalled > 0 {
				wantLam[1] = 0
			}
			if r.lam != wantLam || acted != min(tc.wantStalled, 1) {
				t.Errorf("λ %v after %d actions, want %v after %d", r.lam, acted, wantLam, min(tc.wantStalled, 1))
			}
		})
	}
	// A stalled row walks on below ϑ + stallMargin and stops once it is reached.
	r := &row{lam: [3]float32{1, 0, 0.1}, stalled: 101}
	for _, tc := range []struct {
		p    float32
		want stallOutcome
	}{{0.2, stallNone}, {0.52, stallNone}, {0.56, stallStop}} {
		r.last.prob = tc.p
		if got := r.watchStall(cfg, 300, []float32{0}); got != tc.want {
			t.Errorf("stalled row at F %g: %v, want %v", tc.p, got, tc.want)
		}
	}
}
