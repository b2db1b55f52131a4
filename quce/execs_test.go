package quce

import (
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/quce-go/quce/third_party/gobackend"
)

// The compiled graphs beyond execsKept are freed, least recently used first, but never
// while a call holds them; reset frees held ones when they are released.
func TestExecsBounded(t *testing.T) {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	var c execs
	builds := 0
	get := func(rows int) (*graph.Exec, func()) {
		t.Helper()
		ex, release, err := c.get(execKey{rows: rows}, func() (*graph.Exec, error) {
			builds++
			return graph.NewExec(b, func(x *graph.Node) *graph.Node { return graph.AddScalar(x, 1) })
		})
		if err != nil {
			t.Fatal(err)
		}
		return ex, release
	}
	run := func(ex *graph.Exec, rows int) {
		t.Helper()
		out, err := ex.Exec(make([]float32, rows))
		if err != nil {
			t.Fatalf("rows %d: %v", rows, err)
		}
		out[0].FinalizeAll()
	}

	held, releaseHeld := get(1)
	for rows := 2; rows <= 3*execsKept; rows++ {
		ex, release := get(rows)
		run(ex, rows)
		release()
	}
	if n := len(c.entries); n > execsKept {
		t.Errorf("%d graphs kept, want at most %d", n, execsKept)
	}
	run(held, 1) // the oldest, but in use: kept
	if ex, release := get(1); ex != held {
		t.Error("the graph in use was rebuilt")
	} else {
		release()
	}
	last := builds
	ex, release := get(3 * execsKept) // recently used: still there
	release()
	if builds != last {
		t.Error("the most recent graph was rebuilt")
	}
	run(ex, 3*execsKept)

	c.reset()
	if len(c.entries) != 0 {
		t.Errorf("%d graphs after reset, want 0", len(c.entries))
	}
	run(held, 1) // still usable until released
	releaseHeld()
	if ex, release := get(1); ex == held {
		t.Error("reset kept a graph")
	} else {
		release()
	}
}
