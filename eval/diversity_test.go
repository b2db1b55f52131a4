package eval

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// DiCE's measures by hand: continuous distances in MADs over the continuous and integer
// columns only, a categorical one-hot block one column, ordinal and binary columns
// categorical, and count-diversity over every column with the sparsity tolerance.
func TestDiversity(t *testing.T) {
	mixed := []data.Column{
		{Name: "a", Type: data.Continuous, Start: 0, Width: 1},
		{Name: "n", Type: data.Integer, Start: 1, Width: 1},
		{Name: "c", Type: data.Categorical, Levels: []string{"x", "y", "z"}, Start: 2, Width: 3},
		{Name: "b", Type: data.Binary, Levels: []string{"0", "1"}, Start: 5, Width: 1},
	}
	numeric := []data.Column{{Name: "u", Type: data.Continuous, Start: 0, Width: 1}, {Name: "v", Type: data.Continuous, Start: 1, Width: 1}}
	ordinal := []data.Column{{Name: "u", Type: data.Continuous, Start: 0, Width: 1}, {Name: "o", Type: data.Ordinal, Levels: []string{"lo", "mid", "hi"}, Start: 1, Width: 1}}
	nan := math.NaN()
	for _, tc := range []struct {
		name             string
		cols             []data.Column
		mad              []float64
		cfs              [][]float64
		cont, cat, count float64
	}{
		// Pairs (1,2), (1,3), (2,3): continuous (|Δa|/2 + |Δn|/1)/2 = 1, 1.5, 1.5; categorical
		// c and b differing 1/2, 1/2, 2/2; cells differing 3, 2, 4 of 4.
		{"mixed", mixed, []float64{2, 1, 9, 9, 9, 9}, [][]float64{
			{0, 0, 1, 0, 0, 0},
			{2, 1, 0, 1, 0, 0},
			{6, 0, 1, 0, 0, 1},
		}, 4.0 / 3, 2.0 / 3, 9.0 / 12},
		// A move below the tolerance is a distance but no differing cell.
		{"below the tolerance", numeric, []float64{1, 0.5}, [][]float64{{0, 0}, {0.0005, 1}}, (0.0005 + 2) / 2, nan, 0.5},
		// An ordinal rank is categorical: it differs, and is no distance in MADs.
		{"ordinal", ordinal, []float64{0.5, 7}, [][]float64{{0, 0}, {1, 2}}, 2, 1, 1},
		{"the same twice", numeric, []float64{1, 1}, [][]float64{{3, 4}, {3, 4}}, 0, nan, 0},
		{"one counterfactual", mixed, []float64{2, 1, 9, 9, 9, 9}, [][]float64{{0, 0, 1, 0, 0, 0}}, nan, nan, nan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cont, cat := DiversityOf(tc.cols, tc.cfs, tc.mad, 1e-3)
			count := CountDiversityOf(tc.cols, tc.cfs, 1e-3)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"continuous diversity", cont, tc.cont}, {"categorical diversity", cat, tc.cat}, {"count-diversity", count, tc.count}} {
				if math.IsNaN(c.want) != math.IsNaN(c.got) || !math.IsNaN(c.want) && !near(c.got, c.want, 1e-12) {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
		})
	}
}

// MAD is numpy's median of absolute deviations from the median; a zero MAD is one unit of the
// data, as dice_ml's get_valid_mads.
func TestMAD(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		unit   float64
		want   float64
	}{
		{"odd count", []float64{10, 1, 2}, 1, 1},              // median 2; deviations 8, 1, 0
		{"even count", []float64{1, 2, 3, 10}, 1, 1},          // median 2.5; deviations 1.5, 0.5, 0.5, 7.5
		{"scaled", []float64{0.5, 1, 1.5, 5}, 1, 0.5},         // the same halved
		{"zero: one unit", []float64{5, 5, 5, 9}, 0.25, 0.25}, // median 5; deviations 0, 0, 0, 4
		{"one row", []float64{3}, 2, 2},
	} {
		rows := make([][]float64, len(tc.values))
		for i, v := range tc.values {
			rows[i] = []float64{v}
		}
		if got := MAD(rows, []float64{tc.unit}); !near(got[0], tc.want, 1e-12) {
			t.Errorf("%s: MAD = %v, want %v", tc.name, got[0], tc.want)
		}
	}
}

// DiCE-random with several counterfactuals: the first is the one counterfactual found alone
// (the same seed, the same draws), the others distinct and valid; it draws at least two
// rounds, as DiCE does; and the result is the same for the same seed.
func TestDiceSeveral(t *testing.T) {
	b, clf, lo, hi, xs := diceProblem(t)
	cfg := DiceConfig{Samples: 200}
	one, err := RunDice(context.Background(), b, clf, xs, nil, lo, hi, cfg, 0.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	run := func() []*DiceResult {
		spaces := make([]*diceSpace, len(xs))
		for i, x := range xs {
			spaces[i] = newDiceSpace(inputColumns(3), nil, openBox(x), lo, hi)
		}
		res, err := newModel(b, clf).dice(context.Background(), spaces, nil, cfg, 0.5, 3, 3)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res, again := run(), run()
	for i, r := range res {
		if !slices.Equal(r.Counterfactual, one[i].Counterfactual) || r.ProbEnd != one[i].ProbEnd || r.Features != one[i].Features {
			t.Errorf("row %d: the first counterfactual %v (F %v, %d features) is not the one found alone, %v (F %v, %d features)",
				i, r.Counterfactual, r.ProbEnd, r.Features, one[i].Counterfactual, one[i].ProbEnd, one[i].Features)
		}
		if len(r.Counterfactuals) != 3 || !slices.Equal(r.Counterfactuals[0], r.Counterfactual) {
			t.Fatalf("row %d: %d counterfactuals, want 3, the first the closest", i, len(r.Counterfactuals))
		}
		if r.Candidates < 2*cfg.Samples {
			t.Errorf("row %d: %d candidates; DiCE draws at least two rounds", i, r.Candidates)
		}
		z0 := xs[i][0] - xs[i][1] + 0.5*xs[i][2]
		for k, c := range r.Counterfactuals {
			if z := c[0] - c[1] + 0.5*c[2]; (z >= 0) == (z0 >= 0) {
				t.Errorf("row %d, counterfactual %d: %v (logit %v) is not in the other class", i, k+1, c, z)
			}
			for _, d := range r.Counterfactuals[:k] {
				if slices.Equal(c, d) {
					t.Errorf("row %d: counterfactual %d repeats an earlier one", i, k+1)
				}
			}
			if !slices.Equal(c, again[i].Counterfactuals[k]) {
				t.Errorf("row %d, counterfactual %d differs between runs with one seed", i, k+1)
			}
		}
	}
}

// pick keeps the first and samples the others without repeating one; a pool smaller than
// asked gives what it has.
func TestDicePoolPick(t *testing.T) {
	p := &dicePool{seen: map[string]bool{}}
	for _, r := range [][]float64{{1}, {2}, {3}, {2}, {4}, {5}} {
		p.add(r)
	}
	if len(p.rows) != 5 {
		t.Fatalf("%d rows kept of 5 distinct", len(p.rows))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	got := p.pick(rng, []float64{3}, 3)
	if len(got) != 3 || got[0][0] != 3 || got[1][0] == got[2][0] || got[1][0] == 3 || got[2][0] == 3 {
		t.Errorf("pick = %v; want 3 first, then two others of the pool", got)
	}
	small := &dicePool{seen: map[string]bool{}}
	small.add([]float64{3})
	small.add([]float64{7})
	if got := small.pick(rng, []float64{3}, 3); len(got) != 2 || got[1][0] != 7 {
		t.Errorf("pick of a pool of two = %v; want [3] [7]", got)
	}
}

// quce eval with three counterfactuals on a few W-BC and German credit rows: QUCE gives most
// rows two or more, every method with counterfactuals of its own reports the measures of
// several (finite, in the tables and the JSON), each instance lists its further options, and
// DiCE-random's first counterfactual is the one it finds alone.
func TestRunSeveralCounterfactuals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs QUCE three times on W-BC and German credit")
	}
	for _, tc := range []struct {
		name  string
		setup func(testing.TB) *pipeline.Setup
		cat   bool // the data have categorical columns
	}{{"wbc", pipelinetest.WBC, false}, {"german", pipelinetest.German, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(t)
			o := DefaultOptions()
			o.N, o.Splits, o.Methods = 12, []string{Test}, []Method{QUCE, DiceRandom}
			o.Config.Counterfactuals = 3
			rep, err := Run(context.Background(), FromSetup(s), o)
			if err != nil {
				t.Fatal(err)
			}
			keys := []string{CounterfactualsPerRow, TwoOrMore, DiversityContinuous, CountDiversity, OptionsDistanceL1MinMax}
			if tc.cat {
				keys = append(keys, DiversityCategorical)
			}
			for _, m := range o.Methods {
				for _, k := range keys {
					if v, ok := rep.Metrics[m][Test][k]; !ok || math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%s: %s = %v (present %v); want a finite value", m, k, v, ok)
					}
				}
				for _, in := range rep.Instances[m][Test] {
					n := in.Metrics[CounterfactualsPerRow]
					if n < 0 || n > 3 || int(n) != len(in.Options)+min(1, int(n)) || (n > 0) != in.Valid {
						t.Errorf("%s row %d: %v counterfactuals, %d further options, valid %v", m, in.Row, n, len(in.Options), in.Valid)
					}
				}
			}
			several := 0
			for _, in := range rep.Instances[QUCE][Test] {
				if in.Metrics[CounterfactualsPerRow] >= 2 {
					several++
				}
			}
			t.Logf("%s: QUCE gave %d of %d rows two or more counterfactuals; metrics %v", tc.name, several, len(rep.Instances[QUCE][Test]), rep.Metrics[QUCE][Test])
			if 2*several <= len(rep.Instances[QUCE][Test]) || rep.Metrics[QUCE][Test][TwoOrMore] <= 0.5 {
				t.Errorf("QUCE gave %d rows two or more counterfactuals (share %v); want most", several, rep.Metrics[QUCE][Test][TwoOrMore])
			}
			var tables, doc bytes.Buffer
			if err := rep.WriteTables(&tables); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteJSON(&doc); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"Counterfactuals per row", "Count-diversity (DiCE)", "Several counterfactuals: up to 3 per row"} {
				if !strings.Contains(tables.String(), want) {
					t.Errorf("the tables lack %q", want)
				}
			}
			for _, want := range []string{`"count_diversity"`, `"two_or_more"`, `"options"`} {
				if !strings.Contains(doc.String(), want) {
					t.Errorf("the JSON lacks %s", want)
				}
			}
			// DiCE-random alone with one counterfactual finds the same first one.
			o.Methods, o.Config.Counterfactuals = []Method{DiceRandom}, 0
			alone, err := Run(context.Background(), FromSetup(s), o)
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range alone.Instances[DiceRandom][Test] {
				if several := rep.Instances[DiceRandom][Test][i]; !slices.Equal(in.Counterfactual, several.Counterfactual) || in.Metrics[ProximityL1] != several.Metrics[ProximityL1] {
					t.Errorf("DiCE-random row %d: the first of three differs from the one found alone", in.Row)
				}
				if _, ok := in.Metrics[CounterfactualsPerRow]; ok || in.Options != nil {
					t.Errorf("DiCE-random row %d: measures of several with one counterfactual asked for", in.Row)
				}
			}
		})
	}
}

// The count of counterfactuals and the share with two or more are over every instance (a
// failure has none); the diversities and the options' distance over the valid rows that
// have them.
func TestAggregateSeveral(t *testing.T) {
	outs := []*outcome{
		{res: InstanceResult{Valid: true, Metrics: map[string]float64{CounterfactualsPerRow: 3, CountDiversity: 0.5, DiversityContinuous: 2, OptionsDistanceL1MinMax: 1}}},
		{res: InstanceResult{Valid: true, Metrics: map[string]float64{CounterfactualsPerRow: 1, OptionsDistanceL1MinMax: 3}}},
		{res: InstanceResult{Valid: false, Metrics: map[string]float64{CounterfactualsPerRow: 0}}},
		{res: InstanceResult{Valid: true, Metrics: map[string]float64{CounterfactualsPerRow: 2, CountDiversity: 0.25, DiversityContinuous: 1, OptionsDistanceL1MinMax: 2}}},
	}
	got := aggregate(DiceRandom, outs, Options{})
	for k, w := range map[string]float64{CounterfactualsPerRow: 1.5, TwoOrMore: 0.5, CountDiversity: 0.375, DiversityContinuous: 1.5, OptionsDistanceL1MinMax: 2} {
		if !near(got[k], w, 1e-12) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	if _, ok := got[DiversityCategorical]; ok {
		t.Error("a categorical diversity without any instance's")
	}
	if got := aggregate(IG, outs, Options{}); len(got) > 0 {
		t.Errorf("ig has measures of several counterfactuals: %v", got)
	}
}
