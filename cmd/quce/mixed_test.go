package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
)

// TestExplainMixed explains German credit from the command line with constraints: the text
// shows changes in the data's own terms, the JSON holds each column's value in its own type,
// records the constraints, and keeps them; a bound that excludes an instance is refused.
func TestExplainMixed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.json")
	stdout, stderr, err := quceRun("explain", "-data", "german_credit", "-n", "4", "-frozen", "foreign_worker,personal_status",
		"-increase", "age", "-bounds", "duration=:60", "-json", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, " of 20 columns changed: ") || !strings.Contains(stdout, " → ") {
		t.Errorf("the text lacks the changed columns in the data's terms:\n%s", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Config struct {
			Frozen   []string `json:"frozen"`
			Increase []string `json:"increase"`
			Bounds   []string `json:"bounds"`
		} `json:"config"`
		Columns []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"columns"`
		Results []struct {
			Valid                  bool      `json:"valid"`
			XOriginal              []any     `json:"x_original"`
			CounterfactualOriginal []any     `json:"counterfactual_original"`
			Attribution            []float64 `json:"attribution"`
			ChangedFeatures        []string  `json:"changed_features"`
			Inputs                 struct {
				Attribution []float64 `json:"attribution"`
			} `json:"inputs"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Config.Frozen, []string{"foreign_worker", "personal_status"}) || !slices.Equal(doc.Config.Increase, []string{"age"}) ||
		!slices.Equal(doc.Config.Bounds, []string{"duration=:60"}) {
		t.Errorf("config does not record the constraints: %+v", doc.Config)
	}
	ds := data.GermanCredit()
	if len(doc.Columns) != len(ds.Columns) {
		t.Fatalf("%d columns in the JSON, want %d", len(doc.Columns), len(ds.Columns))
	}
	for _, r := range doc.Results {
		if len(r.XOriginal) != 20 || len(r.CounterfactualOriginal) != 20 || len(r.Attribution) != 20 || len(r.Inputs.Attribution) != ds.NumFeatures() {
			t.Fatalf("want 20 columns and %d inputs: %d, %d, %d, %d", ds.NumFeatures(), len(r.XOriginal), len(r.CounterfactualOriginal), len(r.Attribution), len(r.Inputs.Attribution))
		}
		for ci, c := range ds.Columns {
			x, cf := r.XOriginal[ci], r.CounterfactualOriginal[ci]
			if c.IsNumeric() {
				_, okx := x.(float64)
				v, okc := cf.(float64)
				if !okx || !okc || c.Type == data.Integer && v != float64(int(v)) {
					t.Errorf("column %s: %v → %v, want numbers (integers for an integer column)", c.Name, x, cf)
				}
				continue
			}
			s, ok := cf.(string)
			if !ok || !slices.Contains(c.Levels, s) {
				t.Errorf("column %s: counterfactual %v is not one of its levels %v", c.Name, cf, c.Levels)
			}
			if (c.Name == "foreign_worker" || c.Name == "personal_status") && cf != x {
				t.Errorf("frozen %s changed: %v → %v", c.Name, x, cf)
			}
		}
		age := slices.IndexFunc(ds.Columns, func(c data.Column) bool { return c.Name == "age" })
		if r.CounterfactualOriginal[age].(float64) < r.XOriginal[age].(float64) {
			t.Errorf("age fell: %v → %v", r.XOriginal[age], r.CounterfactualOriginal[age])
		}
		sum := 0.0
		for _, a := range r.Inputs.Attribution {
			sum -= a
		}
		for _, a := range r.Attribution {
			sum += a
		}
		if sum > 1e-9 || sum < -1e-9 {
			t.Errorf("per-column attributions do not sum to the per-input ones (difference %g)", sum)
		}
	}
	// Line 3 of german_credit.csv has duration 48: a bound of 24 excludes it.
	_, _, err = quceRun("explain", "-data", "german_credit", "-rows", "3", "-bounds", "duration=:24")
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "-bounds duration=:24 excludes the instance's value 48") {
		t.Errorf("a bound that excludes the instance: %v", err)
	}
}
