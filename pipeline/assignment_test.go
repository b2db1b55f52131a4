package pipeline

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// bestAssignment finds the assignment with the largest sum, as trying every permutation
// does.
func TestBestAssignment(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 6; n++ {
		for range 20 {
			w := make([][]float64, n)
			for i := range w {
				w[i] = make([]float64, n)
				for j := range w[i] {
					w[i][j] = float64(rng.IntN(50))
				}
			}
			sum := func(a []int) float64 {
				s := 0.0
				for j, i := range a {
					s += w[i][j]
				}
				return s
			}
			got := bestAssignment(w)
			if seen := slices.Clone(got); len(seen) != n || func() bool { slices.Sort(seen); return !slices.Equal(seen, indices(n)) }() {
				t.Fatalf("%v is not an assignment of %d rows", got, n)
			}
			best := -1.0
			permutations(indices(n), func(a []int) { best = max(best, sum(a)) })
			if sum(got) != best {
				t.Fatalf("w %v: assignment %v sums to %v, the best to %v", w, got, sum(got), best)
			}
		}
	}
}

func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// permutations calls fn with every permutation of a (Heap's algorithm).
func permutations(a []int, fn func([]int)) {
	var gen func(k int)
	gen = func(k int) {
		if k <= 1 {
			fn(a)
			return
		}
		for i := range k {
			gen(k - 1)
			if k%2 == 0 {
				a[i], a[k-1] = a[k-1], a[i]
			} else {
				a[0], a[k-1] = a[k-1], a[0]
			}
		}
	}
	gen(len(a))
}
