package gonbext_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	gonbext "github.com/quce-go/quce/gonb_ext"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/population"
	"github.com/quce-go/quce/quce"
)

// ShowSummary summarises German credit's first test rows by foreign_worker and displays the
// tables and the three pictures; a group column left free is counted as such.
func TestShowSummary(t *testing.T) {
	if gonbext.InNotebook() {
		t.Skip("running inside GoNB")
	}
	dir := t.TempDir()
	t.Setenv("QUCE_OUTPUT_DIR", dir)
	s, err := gonbext.Prepare(pipeline.Options{Data: data.GermanCredit(), SplitSeed: 1, CacheDir: pipelinetest.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := quce.DefaultConfig()
	cfg.Steps = 100
	const n = 30
	qs := make([]quce.Query, n)
	for i, x := range s.XTest[:n] {
		if qs[i], err = s.Explainer.Constrain(quce.NewQuery(x), quce.Constraints{Frozen: []string{"foreign_worker"}}); err != nil {
			t.Fatal(err)
		}
	}
	ex, err := gonbext.ExplainQueries(s, cfg, qs)
	if err != nil {
		t.Fatal(err)
	}
	rows := s.Data.Subset(s.TestIdx).X[:n]
	for _, column := range []string{"foreign_worker", "housing"} {
		g, err := population.NewGrouping(s.Explainer.Columns(), column, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := gonbext.ShowSummary(s, ex, rows, g, population.Options{Seed: 1, Bootstrap: 200, Permutations: 200})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Overall.Rows != n || len(sum.Groups) == 0 {
			t.Errorf("%s: %d rows, %d groups", column, sum.Overall.Rows, len(sum.Groups))
		}
		// foreign_worker is frozen, housing free: its counterfactuals may leave their group.
		if column == "foreign_worker" && sum.Overall.LeftGroup != 0 {
			t.Errorf("the frozen foreign_worker: %d counterfactuals left their group", sum.Overall.LeftGroup)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-summary.html"))
	if len(files) != 2 {
		t.Fatalf("%d summary outputs, want 2: %v", len(files), files)
	}
	b, _ := os.ReadFile(files[0])
	for _, want := range []string{"By foreign_worker", "Differences in mean", "cost L1 (standardised inputs)", "most frequent changes"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	if got := strings.Count(string(b), "<svg"); got != 3 {
		t.Errorf("%d pictures, want 3 (columns, cost, heat map)", got)
	}
}
