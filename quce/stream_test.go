package quce_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/quce"
)

// Explaining chunk by chunk gives exactly the explanations of one call on all the rows,
// whatever the chunk: rows are independent and each row's random numbers (here the offset
// starts of a second path) are keyed by its instance, not its position.
func TestExplainStreamEqualsOneCall(t *testing.T) {
	modeltest.NeedRowsIndependent(t)
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps, cfg.Paths = 60, 2
	qs := queries(s.XTest[:7])
	want, err := s.Explainer.Explain(context.Background(), cfg, qs)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int{1, 3, len(qs)} {
		got := make([]*quce.Explanation, 0, len(qs))
		var firsts []int
		_, err := s.Explainer.ExplainStream(context.Background(), cfg, qs, chunk, func(first int, ex []*quce.Explanation) error {
			firsts = append(firsts, first)
			got = append(got, ex...)
			return nil
		})
		if err != nil {
			t.Fatalf("chunk %d: %v", chunk, err)
		}
		if wantChunks := (len(qs) + chunk - 1) / chunk; len(firsts) != wantChunks || firsts[len(firsts)-1] != (wantChunks-1)*chunk {
			t.Errorf("chunk %d: emitted at %v; want %d chunks of %d", chunk, firsts, wantChunks, chunk)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("chunk %d: the streamed explanations differ from one call's", chunk)
		}
	}
	if _, err := s.Explainer.ExplainStream(context.Background(), cfg, qs, -1, nil); err == nil || !strings.Contains(err.Error(), "fix") {
		t.Errorf("chunk -1: %v; want an error with the fix", err)
	}
}

// Each chunk is emitted while the next is explained, in order, one at a time. An error of
// emit's stops the job and is returned as it is; a job stopped while a chunk is emitted (as
// a user's interrupt would) returns the context's error. Either way no chunk after that one
// is emitted.
func TestExplainStreamStops(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 20
	qs := queries(s.XTest[:9])
	bad := errors.New("the disk is full")
	for _, tc := range []struct {
		name   string
		stopAt int                       // the chunk (its first instance) whose emit stops the job
		stop   func(cancel func()) error // what that emit does
		want   func(err error) bool      // the error ExplainStream returns
	}{
		{"emit fails", 4, func(func()) error { return bad }, func(err error) bool { return errors.Is(err, bad) && err.Error() == bad.Error() }},
		{"stopped while emitting", 2, func(cancel func()) error { cancel(); return nil }, func(err error) bool { return errors.Is(err, context.Canceled) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var firsts []int
			_, err := s.Explainer.ExplainStream(ctx, cfg, qs, 2, func(first int, ex []*quce.Explanation) error {
				firsts = append(firsts, first)
				if first == tc.stopAt {
					return tc.stop(cancel)
				}
				return nil
			})
			if !tc.want(err) {
				t.Errorf("ExplainStream: %v", err)
			}
			if wantFirsts := []int{0, 2, 4}[:tc.stopAt/2+1]; !slices.Equal(firsts, wantFirsts) {
				t.Errorf("emitted the chunks at %v; want %v and none after", firsts, wantFirsts)
			}
		})
	}
}

// A streamed job needs the memory of one chunk, not of all its rows: a row count that one
// call refuses starts when streamed.
func TestExplainStreamMemoryIsOneChunk(t *testing.T) {
	s := wbc(t)
	limited := with(t, s.Explainer, func(st *quce.Settings) { st.MemoryLimit = 1 << 30 })
	cfg := quce.DefaultConfig()
	qs := make([]quce.Query, 0, 20000)
	for len(qs) < cap(qs) {
		qs = append(qs, queries(s.XTest)...)
	}
	qs = qs[:cap(qs)]
	if _, err := limited.Explain(context.Background(), cfg, qs); err == nil || !strings.Contains(err.Error(), "needs about") {
		t.Fatalf("one call on %d rows: %v; want it refused for memory", len(qs), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The streamed job stops at its first step: it was let through.
	e := with(t, limited, func(st *quce.Settings) { st.Progress = func(int, int) { cancel() } })
	_, err := e.ExplainStream(ctx, cfg, qs, 64, func(int, []*quce.Explanation) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("streamed in chunks of 64: %v; want it to start (and be cancelled at its first step)", err)
	}
}

// A point's L_ε does not depend on how many points its call evaluates: one call on 50 000
// points (more than one VAE execution takes at once) gives each the figures of calls on a
// thousand, as a file explained in chunks needs.
func TestUncertaintyIndependentOfCallSize(t *testing.T) {
	modeltest.NeedRowsIndependent(t)
	s := wbc(t)
	pts := make([][]float64, 0, 50000)
	for i := 0; len(pts) < cap(pts); i++ {
		x := slices.Clone(s.XTest[i%len(s.XTest)])
		x[i%len(x)] += float64(i) * 1e-5 // each point its own
		pts = append(pts, x)
	}
	all, allPaper, _, err := s.Explainer.Uncertainty(pts)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(pts); start += 1000 {
		u, up, _, err := s.Explainer.Uncertainty(pts[start : start+1000])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(u, all[start:start+1000]) || !slices.Equal(up, allPaper[start:start+1000]) {
			t.Fatalf("points %d to %d: L_ε alone differs from L_ε in one call on %d points", start, start+999, len(pts))
		}
	}
}

// With chunk 0, ExplainStream explains JobSize.StreamChunk instances at a time: a unit of
// rows per shard.
func TestExplainStreamDefaultChunk(t *testing.T) {
	s := wbc(t)
	small := with(t, s.Explainer, func(st *quce.Settings) { st.UnitRows, st.Shards = 2, 1 })
	cfg := quce.DefaultConfig()
	cfg.Steps = 10
	if got := small.JobSize(cfg, 5).StreamChunk; got != 2 {
		t.Fatalf("StreamChunk = %d with units of 2 rows and one shard; want 2", got)
	}
	var firsts []int
	if _, err := small.ExplainStream(context.Background(), cfg, queries(s.XTest[:5]), 0, func(first int, _ []*quce.Explanation) error {
		firsts = append(firsts, first)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(firsts, []int{0, 2, 4}) {
		t.Errorf("chunk 0 emitted at %v; want chunks of StreamChunk = 2 at [0 2 4]", firsts)
	}
}
