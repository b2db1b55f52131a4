package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"
)

// quce bench says what ran: per explain phase the engine and the graph executions it ran,
// and which kernel set the pure-Go backend used. With the "steps" engine each extra
// optimisation step of a batch costs exactly one more execution, which only a count of the
// explainer's executions shows.
func TestBenchSaysWhatRan(t *testing.T) {
	type benchDoc struct {
		SIMD   string `json:"simd"`
		Phases []struct {
			Name       string `json:"name"`
			Rows       int    `json:"rows"`
			Engine     string `json:"engine"`
			Executions int64  `json:"executions"`
		} `json:"phases"`
	}
	bench := func(steps int) benchDoc {
		var stdout, stderr bytes.Buffer
		args := []string{"bench", "-rows", "1,3", "-steps", strconv.Itoa(steps), "-early-stop", "0", "-epochs", "3", "-vae-epochs", "2", "-latent", "2", "-q"}
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("bench -steps %d: %v\n%s", steps, err, stderr.String())
		}
		var doc benchDoc
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	short, long := bench(5), bench(9)
	if short.SIMD != "avx2" && short.SIMD != "avx512" && short.SIMD != "generic" {
		t.Errorf(`"simd" is %q, want the pure-Go backend's kernel set: avx2, avx512 or generic`, short.SIMD)
	}
	explains := 0
	for i, p := range short.Phases {
		if p.Name != "explain" {
			continue
		}
		explains++
		if p.Engine != "steps" || p.Executions < 5 {
			t.Errorf("B=%d: engine %q, %d executions; want \"steps\" and at least one per step (5)", p.Rows, p.Engine, p.Executions)
		}
		if d := long.Phases[i].Executions - p.Executions; d != 4 {
			t.Errorf("B=%d: 4 more steps ran %d more executions, want 4 (one per step)", p.Rows, d)
		}
	}
	if explains != 2 {
		t.Errorf("%d explain phases, want 2 (-rows 1,3)", explains)
	}
}
