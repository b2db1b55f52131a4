package budget

import "testing"

func TestBatch(t *testing.T) {
	for _, tc := range []struct{ configured, n, want int }{
		{32, 455, 32},        // W-BC: unchanged
		{64, 720, 64},        // German credit's VAE rows: unchanged
		{32, 20_000, 100},    // an epoch stays 200 steps
		{32, 1_000_000, 512}, // up to MaxBatch
		{1024, 2_000, 1024},  // a larger configured batch is kept
		{32, 10, 10},         // never above the rows
	} {
		if got := Batch(tc.configured, tc.n); got != tc.want {
			t.Errorf("Batch(%d, %d) = %d, want %d", tc.configured, tc.n, got, tc.want)
		}
	}
}
