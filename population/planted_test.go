package population

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// plantedData is a data set in which group B needs a larger change than group A: the class
// is yes exactly when x1 > 0, in both groups alike, but group B's "no" rows lie further
// from that boundary (x1 in [−3, −2.3]) than group A's ([−1, −0.3]). x2 is noise, and the
// group says nothing about the class (half of each group is yes).
func plantedData(t *testing.T) *data.Dataset {
	r := rand.New(rand.NewPCG(33, 1))
	var b strings.Builder
	b.WriteString("x1,x2,group,y\n")
	for i := range 400 {
		group, yes := []string{"A", "B"}[i%2], (i/2)%2 == 1
		x1 := 0.3 + 2.7*r.Float64()
		switch {
		case yes:
		case group == "A":
			x1 = -0.3 - 0.7*r.Float64()
		default:
			x1 = -2.3 - 0.7*r.Float64()
		}
		y := "no"
		if yes {
			y = "yes"
		}
		fmt.Fprintf(&b, "%.4f,%.4f,%s,%s\n", x1, r.NormFloat64(), group, y)
	}
	ds, err := data.Parse(strings.NewReader(b.String()), "planted.csv", data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestPlantedRecourse explains the planted data's training rows with QUCE (target yes,
// group frozen) and summarises them by group: the rows predicted no get counterfactuals,
// group B's cost more, and the test and the interval of the difference say so. Given the
// same explanations with group labels drawn at random instead, which makes the groups
// exchangeable, the test is significant in few of 20 draws and the interval mostly covers 0.
func TestPlantedRecourse(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two small models and explains 320 rows")
	}
	s, err := pipeline.Prepare(pipeline.Options{Data: plantedData(t), SplitSeed: 1, CacheDir: pipelinetest.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	yes := 1 // the labels sorted: no, yes
	if s.Data.Labels[yes] != "yes" {
		t.Fatalf("labels %v", s.Data.Labels)
	}
	cons := quce.Constraints{Frozen: []string{"group"}}
	qs := make([]quce.Query, len(s.XTrain))
	for i, x := range s.XTrain {
		if qs[i], err = s.Explainer.Constrain(quce.Query{X: x, Target: yes}, cons); err != nil {
			t.Fatal(err)
		}
	}
	ex, err := s.Explainer.Explain(context.Background(), quce.DefaultConfig(), qs)
	if err != nil {
		t.Fatal(err)
	}
	cols := s.Explainer.Columns()
	g, err := NewGrouping(cols, "group", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := s.Data.Subset(s.TrainIdx).X
	in := Input{Columns: cols, Explanations: ex, Rows: rows, Groups: g.Groups(rows), GroupOrder: g.Names()}
	sum, err := Summarise(in, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, b := sum.Groups[0], sum.Groups[1]
	t.Logf("A: %d searched, %d valid, L1 %.3f; B: %d searched, %d valid, L1 %.3f", a.Searched, a.Valid, a.Measure(CostL1).Mean, b.Searched, b.Valid, b.Measure(CostL1).Mean)
	if a.Searched < 50 || b.Searched < 50 || a.Valid < a.Searched*9/10 || b.Valid < b.Searched*9/10 {
		t.Fatalf("A: %d searched, %d valid; B: %d searched, %d valid; want at least 50 searched and 90%% valid in each", a.Searched, a.Valid, b.Searched, b.Valid)
	}
	for _, m := range []string{CostL1, CostL1Data} {
		c := comparison(t, sum, m)
		t.Logf("%s: A − B = %.3f [%.3f, %.3f], p = %.4g", m, c.Difference, c.Lo, c.Hi, c.P)
		if !(c.P < 0.05) || !(c.Hi < 0) {
			t.Errorf("%s: A − B = %v [%v, %v], p %v; want group B's larger cost detected (p < 0.05, interval below 0)", m, c.Difference, c.Lo, c.Hi, c.P)
		}
	}
	// x1 is the column recourse changes; the frozen group never.
	if x1, grp := sum.Overall.Columns[0], sum.Overall.Columns[2]; !(x1.ChangeRate > 0.9) || !(x1.MeanChange > 0) || grp.Changed != 0 || sum.Overall.LeftGroup != 0 {
		t.Errorf("x1 changed in %v of the rows by %v on average, group in %d; want x1 nearly always, upwards, and group never", x1.ChangeRate, x1.MeanChange, grp.Changed)
	}

	significant, missed := 0, 0
	const draws = 20
	for seed := range uint64(draws) {
		r := rand.New(rand.NewPCG(seed, 9))
		in.Groups = make([]string, len(rows))
		for i := range in.Groups {
			in.Groups[i] = []string{"A", "B"}[r.IntN(2)]
		}
		sum, err := Summarise(in, Options{Seed: seed, Bootstrap: 1000, Permutations: 1000})
		if err != nil {
			t.Fatal(err)
		}
		c := comparison(t, sum, CostL1)
		if c.P < 0.05 {
			significant++
		}
		if !(c.Lo <= 0 && 0 <= c.Hi) {
			missed++
		}
	}
	t.Logf("random groups: %d of %d draws significant at 0.05, %d intervals miss 0", significant, draws, missed)
	if significant > 3 || missed > 3 {
		t.Errorf("random groups: %d of %d draws significant, %d intervals miss 0; want at most 3 each (1 expected)", significant, draws, missed)
	}
}
