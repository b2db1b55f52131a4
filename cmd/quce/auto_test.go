package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// -lambdas auto and -sparse: the JSON records the choice, its candidates and the resets, and
// the text says what was chosen.
func TestExplainAutoLambdaSparse(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.json")
	svg := filepath.Join(t.TempDir(), "svg")
	// Every candidate searches all of the tests' 50 steps (-auto-steps 1), enough to be valid.
	stdout, stderr, err := quceRun("explain", "-n", "3", "-lambdas", "auto", "-auto-steps", "1", "-sparse", "-json", out, "-svg", svg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"automatic λ: λ2 ", ", 50 steps (L1 ", "columns changed (30 before -sparse reset"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the text lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "plausible: L_ε ≤ ") {
		t.Errorf("no plausibility bound in the log:\n%s", stderr)
	}
	var doc struct {
		Config struct {
			Quce struct {
				Auto struct {
					Grid []struct{ Lambda2, Lambda3 float64 }
				}
				Sparse               bool
				Plausibility         float64
				PlausibilityQuantile float64 `json:"plausibility_quantile"`
			}
		}
		Features []string
		Results  []struct {
			X               []float64
			Counterfactual  []float64
			Valid           bool
			ChangedFeatures []string `json:"changed_features"`
			ResetFeatures   []string `json:"reset_features"`
			Auto            struct {
				Rule       string
				Bound      float64
				Quantile   float64
				Chosen     int
				Plausible  bool
				Candidates []struct {
					Lambda2, Lambda3, Distance, Uncertainty float64
					Valid                                   bool
				}
			}
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	q := doc.Config.Quce
	if len(q.Auto.Grid) != 6 || !q.Sparse || q.Plausibility <= 0 || q.PlausibilityQuantile != 0.9 {
		t.Errorf("config %+v does not record automatic λ, sparsity and the bound", q)
	}
	for i, r := range doc.Results {
		a := r.Auto
		if len(a.Candidates) < 6 || len(a.Candidates) > 6+3 || a.Rule == "" || a.Bound < q.Plausibility || a.Quantile != 0.9 {
			t.Errorf("result %d: auto %+v", i, a)
			continue
		}
		if c := a.Candidates[a.Chosen]; c.Valid != r.Valid || a.Chosen < 6 && c.Lambda2 != q.Auto.Grid[a.Chosen].Lambda2 {
			t.Errorf("result %d: chosen candidate %+v vs result valid %v", i, c, r.Valid)
		}
		if len(r.ChangedFeatures)+len(r.ResetFeatures) != len(doc.Features) {
			t.Errorf("result %d: %d changed + %d reset features, want all %d", i, len(r.ChangedFeatures), len(r.ResetFeatures), len(doc.Features))
		}
		for _, f := range r.ResetFeatures {
			if slices.Contains(r.ChangedFeatures, f) {
				t.Errorf("result %d: %s is both reset and changed", i, f)
			}
		}
	}
	fronts, _ := filepath.Glob(filepath.Join(svg, "line*-front.svg"))
	if len(fronts) != 3 {
		t.Errorf("front plots %v, want one per row", fronts)
	}
}

func TestAutoLambdaErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "-lambdas", "auto,0.1,0.1"}, "cannot be mixed with numbers"},
		{[]string{"explain", "-lambdas", "1,auto,0.1"}, "cannot be mixed with numbers"},
		{[]string{"explain", "-lambdas", "auto", "-auto-grid", ""}, "-auto-grid \"\" is empty"},
		{[]string{"explain", "-lambdas", "auto", "-auto-grid", " , "}, "is empty"},
		{[]string{"explain", "-lambdas", "auto", "-auto-grid", "0.1"}, "\"0.1\" is not a λ2:λ3 pair"},
		{[]string{"explain", "-lambdas", "auto", "-auto-grid", "0.1:-1"}, "finite and ≥ 0"},
		{[]string{"explain", "-auto-grid", "0.1:0.1"}, "fix: add -lambdas auto"},
		{[]string{"explain", "-auto-steps", "0.5"}, "fix: add -lambdas auto"},
		{[]string{"explain", "-lambdas", "auto", "-auto-steps", "0"}, "-auto-steps 0: fix: use a share of -steps above 0 and at most 1"},
		{[]string{"explain", "-lambdas", "auto", "-auto-steps", "2"}, "-auto-steps 2: fix"},
		{[]string{"explain", "-lambdas", "auto", "-plausibility-quantile", "1"}, "-plausibility-quantile 1 is not allowed"},
		{[]string{"explain", "-sparse", "-plausibility-quantile", "0"}, "-plausibility-quantile 0 is not allowed"},
		{[]string{"explain", "-plausibility-quantile", "0.5"}, "add one of them"},
		{[]string{"explain", "-lambdas", "auto", "-margin", "1"}, "-margin 1 is not allowed"},
		{[]string{"explain", "-sparse", "-margin", "NaN"}, "-margin NaN is not allowed"},
		{[]string{"explain", "-margin", "-0.1"}, "-margin -0.1 is not allowed"},
		{[]string{"eval", "-seeds", "1,x"}, "-seeds \"1,x\": \"x\" is not a positive integer"},
		{[]string{"eval", "-seeds", "1,1"}, "listed twice"},
		{[]string{"eval", "-seeds", "1,2", "-split-seed", "3"}, "-split-seed has no effect"},
	} {
		_, stderr, err := quceRun(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%v: error %v (stderr %q); want %q with a fix", tc.args, err, stderr, tc.want)
		}
	}
}

// quce eval runs quce-auto beside quce, and -seeds reports mean ± sd across seeds.
func TestEvalAutoAndSeeds(t *testing.T) {
	out := filepath.Join(t.TempDir(), "eval.json")
	stdout, stderr, err := quceRun("eval", "-n", "4", "-splits", "test", "-methods", "quce,quce-auto,agi", "-seeds", "1,2", "-json", out, "-q")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "over seeds 1, 2") || !strings.Contains(stdout, "quce-auto") || !strings.Contains(stdout, " ± ") {
		t.Errorf("the tables lack the seeds, quce-auto or ± sd:\n%s", stdout)
	}
	var doc struct {
		Summary struct {
			Seeds   []uint64
			Metrics map[string]map[string]map[string]struct{ Mean, Std float64 }
		}
		Reports []struct {
			Metrics  map[string]map[string]map[string]float64
			Settings struct{ Seed uint64 }
			Rows     map[string][]int
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Reports) != 2 || doc.Reports[0].Settings.Seed != 1 || doc.Reports[1].Settings.Seed != 2 {
		t.Fatalf("reports %+v, want one per seed", doc.Reports)
	}
	if slices.Equal(doc.Reports[0].Rows["test"], doc.Reports[1].Rows["test"]) {
		t.Error("both seeds evaluated the same rows")
	}
	for _, m := range []string{"quce", "quce-auto", "agi"} {
		a, b := doc.Reports[0].Metrics[m]["test"]["proximity_l1"], doc.Reports[1].Metrics[m]["test"]["proximity_l1"]
		got := doc.Summary.Metrics[m]["test"]["proximity_l1"]
		if mean := (a + b) / 2; abs(got.Mean-mean) > 1e-9 || abs(got.Std-abs(a-b)/2) > 1e-9 {
			t.Errorf("%s: summary %+v, from seeds %v and %v", m, got, a, b)
		}
	}
}

// quce eval's notes say how many steps quce-auto's candidates searched (-auto-steps of
// -steps) and how many instances were searched again for all of them.
func TestEvalAutoNotesSteps(t *testing.T) {
	stdout, stderr, err := quceRun("eval", "-n", "3", "-splits", "test", "-methods", "quce-auto", "-auto-steps", "0.2", "-q")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "each candidate searched for 10 of the 50 steps; no valid candidate, so the smallest λ2 searched again for all 50: "; !strings.Contains(stdout, want) {
		t.Errorf("the notes lack %q:\n%s", want, stdout)
	}
}
