package population

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// table is a small hand-made table: an integer, a categorical (3 inputs), a continuous, an
// ordinal and a binary text column, 7 inputs in all. Its scaler is the identity, so a
// row's standardised and data units are one.
var table = []data.Column{
	{Name: "duration", Type: data.Integer, Start: 0, Width: 1},
	{Name: "housing", Type: data.Categorical, Levels: []string{"for free", "own", "rent"}, Start: 1, Width: 3},
	{Name: "rate", Type: data.Continuous, Start: 4, Width: 1},
	{Name: "skill", Type: data.Ordinal, Levels: []string{"low", "mid", "high"}, Start: 5, Width: 1},
	{Name: "sex", Type: data.Binary, Levels: []string{"female", "male"}, Start: 6, Width: 1},
}

// handRow is a row of table: duration, housing, rate, skill (rank), sex (code).
func handRow(duration float64, housing string, rate, skill, sex float64) []float64 {
	x := []float64{duration, 0, 0, 0, rate, skill, sex}
	x[1+slices.Index(table[1].Levels, housing)] = 1
	return x
}

// handExplanation is an explanation of x with counterfactual xc, made by hand; attr is the
// attribution per input (nil: zeros).
func handExplanation(x, xc []float64, valid, already bool, attr, plus, minus []float64, unc float64) *quce.Explanation {
	zeros := func(v []float64) []float64 {
		if v == nil {
			return make([]float64, len(x))
		}
		return v
	}
	p := &quce.Path{Counterfactual: xc, CounterfactualOriginal: xc, Valid: valid, ProbEnd: 0.9,
		Attribution: zeros(attr), AttributionPlus: zeros(plus), AttributionMinus: zeros(minus), Epsilon: zeros(nil),
		CFUncertainty: unc}
	return &quce.Explanation{X: x, XOriginal: x, ProbStart: 0.1, Paths: []*quce.Path{p}, AlreadyTarget: already,
		Attribution: p.Attribution, AttributionPlus: p.AttributionPlus, AttributionMinus: p.AttributionMinus}
}

// handInput is six rows of table in two groups, whose figures are worked out by hand in
// TestCountsByHand.
func handInput() Input {
	r := [][2][]float64{
		{handRow(12, "rent", 0.5, 0, 0), handRow(6, "own", 0.5, 1, 0)}, // A: valid
		{handRow(24, "own", 1, 1, 1), handRow(24, "own", 2.5, 1, 1)},   // A: valid
		{handRow(10, "own", 1, 1, 1), handRow(20, "own", 1, 2, 1)},     // A: NOT valid
		{handRow(30, "own", 1, 1, 1), handRow(30, "own", 1, 1, 1)},     // B: already the target
		{handRow(36, "rent", 2, 2, 0), handRow(12, "own", 1, 1, 0)},    // B: valid
		{handRow(6, "for free", 3, 0, 1), handRow(9, "rent", 3, 0, 1)}, // B: valid
	}
	attr := [][]float64{
		{0.1, 0.1, -0.3, 0, 0, 0, 0},
		{-0.2, 0, 0, 0, 0, 0, 0},
		{0.7, 0, 0, 0, 0, 0, 0}, // not valid: counted nowhere
		nil,
		{0.4, 0, 0, 0, 0, 0, 0},
		{-0.3, 0, 0, 0, 0, 0, 0},
	}
	in := Input{Columns: table, Groups: []string{"A", "A", "A", "B", "B", "B"}, GroupOrder: []string{"A", "B", "C"},
		CounterfactualGroups: []string{"A", "A", "A", "B", "A", "B"}}
	for i, xs := range r {
		var plus, minus []float64
		if i == 0 {
			plus, minus = []float64{0.02, 0, 0, 0, 0, 0, 0}, []float64{-0.04, 0, 0, 0, 0, 0, 0}
		}
		in.Explanations = append(in.Explanations, handExplanation(xs[0], xs[1], i != 2, i == 3, attr[i], plus, minus, float64(i)))
		in.Rows = append(in.Rows, xs[0])
	}
	return in
}

func near(a Number, b float64) bool { return math.Abs(float64(a)-b) < 1e-12 }

// TestCountsByHand checks every count, mean and cost of the summary of handInput against
// figures worked out by hand.
func TestCountsByHand(t *testing.T) {
	s, err := Summarise(handInput(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := s.Overall
	if all.Rows != 6 || all.AlreadyTarget != 1 || all.Searched != 5 || all.Valid != 4 {
		t.Errorf("overall rows %d, already %d, searched %d, valid %d; want 6, 1, 5, 4", all.Rows, all.AlreadyTarget, all.Searched, all.Valid)
	}
	// Per row: L1 (standardised inputs), L0 (columns), L1 in data units (numbers and levels).
	//   row 1: duration −6, housing rent → own (2 inputs), skill +1: L1 6+2+1 = 9, L0 3, data 7
	//   row 2: rate +1.5: L1 1.5, L0 1, data 1.5
	//   row 5: duration −24, housing rent → own, rate −1, skill −1: 28, 4, 26
	//   row 6: duration +3, housing for free → rent: 5, 2, 3
	wantRows := []struct {
		l1, data float64
		l0       int
		changed  string
	}{{9, 7, 3, "duration,housing,skill"}, {1.5, 1.5, 1, "rate"}, {10 + 1, 11, 2, "duration,skill"}, {0, 0, 0, ""}, {28, 26, 4, "duration,housing,rate,skill"}, {5, 3, 2, "duration,housing"}}
	for i, w := range wantRows {
		r := s.Rows[i]
		if !near(r.CostL1, w.l1) || !near(r.CostL1Data, w.data) || r.CostL0 != Number(w.l0) || strings.Join(r.Changed, ",") != w.changed {
			t.Errorf("row %d: L1 %v, data %v, L0 %v, changed %v; want %v, %v, %d, %s", i+1, r.CostL1, r.CostL1Data, r.CostL0, r.Changed, w.l1, w.data, w.l0, w.changed)
		}
	}
	// Over the 4 valid rows (1, 2, 5, 6), validity over the 5 searched.
	for _, w := range []struct {
		measure string
		n       int
		mean    float64
	}{
		{Validity, 5, 4.0 / 5}, {CostL1, 4, (9 + 1.5 + 28 + 5) / 4.0}, {CostL0, 4, 10 / 4.0},
		{CostL1Data, 4, (7 + 1.5 + 26 + 3) / 4.0}, {CFUncertainty, 4, (0 + 1 + 4 + 5) / 4.0},
	} {
		e := all.Measure(w.measure)
		if e.N != w.n || !near(e.Mean, w.mean) {
			t.Errorf("%s: n %d, mean %v; want %d, %v", w.measure, e.N, e.Mean, w.n, w.mean)
		}
		if !(e.Lo <= e.Mean && e.Mean <= e.Hi) {
			t.Errorf("%s: interval [%v, %v] does not hold the mean %v", w.measure, e.Lo, e.Hi, e.Mean)
		}
	}
	// L0 over the valid rows is 1, 2, 3, 4: quartiles by linear interpolation.
	if e := all.Measure(CostL0); !near(e.Min, 1) || !near(e.Q1, 1.75) || !near(e.Median, 2.5) || !near(e.Q3, 3.25) || !near(e.Max, 4) || !near(e.SD, math.Sqrt(5.0/3)) {
		t.Errorf("L0 spread %+v; want min 1, q1 1.75, median 2.5, q3 3.25, max 4, sd √(5/3)", e)
	}
	// Per column, over the 4 valid rows.
	col := func(name string) ColumnStats {
		return all.Columns[slices.IndexFunc(table, func(c data.Column) bool { return c.Name == name })]
	}
	d := col("duration")
	if d.Changed != 3 || !near(d.ChangeRate, 0.75) || !near(d.MeanChange, (-6-24+3)/3.0) || d.Transitions != nil {
		t.Errorf("duration: %+v; want 3 changed (0.75), mean change −9, no transitions", d)
	}
	// |Φ| of duration: 0.1, 0.2, 0.4, 0.3; housing's block sums to −0.2 on row 1 only.
	if !near(d.MeanAbsAttribution, 0.25) || !near(d.MeanAbsPlus, 0.005) || !near(d.MeanAbsMinus, 0.01) {
		t.Errorf("duration: mean |Φ| %v, |Φ+| %v, |Φ−| %v; want 0.25, 0.005, 0.01", d.MeanAbsAttribution, d.MeanAbsPlus, d.MeanAbsMinus)
	}
	h := col("housing")
	wantT := []Transition{{"rent", "own", 2}, {"for free", "rent", 1}}
	if h.Changed != 3 || !math.IsNaN(float64(h.MeanChange)) || !slices.Equal(h.Transitions, wantT) || !near(h.MeanAbsAttribution, 0.05) {
		t.Errorf("housing: %+v; want 3 changed, no mean change, transitions %v, mean |Φ| 0.05", h, wantT)
	}
	if r := col("rate"); r.Changed != 2 || !near(r.MeanChange, 0.25) {
		t.Errorf("rate: %+v; want 2 changed, mean change (1.5 − 1)/2", r)
	}
	sk := col("skill")
	if sk.Changed != 2 || !near(sk.MeanChange, 0) || !slices.Equal(sk.Transitions, []Transition{{"high", "mid", 1}, {"low", "mid", 1}}) {
		t.Errorf("skill: %+v; want 2 changed by +1 and −1 level, high → mid and low → mid", sk)
	}
	if got := []string{d.Change(), h.Change(), col("rate").Change(), sk.Change()}; !slices.Equal(got, []string{"-9", "", "+0.25", "0 levels"}) {
		t.Errorf("mean changes as printed: %q", got)
	}
	if x := col("sex"); x.Changed != 0 || !near(x.ChangeRate, 0) || !math.IsNaN(float64(x.MeanChange)) {
		t.Errorf("sex: %+v; want unchanged", x)
	}
	// Groups: A has rows 1–3 (2 valid of 3 searched), B rows 4–6 (one already the target,
	// 2 valid of 2; row 5's counterfactual is in group A); C has no row.
	if len(s.Groups) != 2 || !slices.Equal(s.Absent, []string{"C"}) {
		t.Fatalf("groups %d, absent %v; want A and B, C absent", len(s.Groups), s.Absent)
	}
	a, b := s.Groups[0], s.Groups[1]
	if a.Name != "A" || a.Rows != 3 || a.Searched != 3 || a.Valid != 2 || a.LeftGroup != 0 || !near(a.Measure(Validity).Mean, 2.0/3) || !near(a.Measure(CostL1).Mean, 5.25) {
		t.Errorf("group A: %+v", a)
	}
	if b.Name != "B" || b.Rows != 3 || b.AlreadyTarget != 1 || b.Searched != 2 || b.Valid != 2 || b.LeftGroup != 1 || !near(b.Measure(Validity).Mean, 1) || !near(b.Measure(CostL1).Mean, 16.5) {
		t.Errorf("group B: %+v", b)
	}
	if c := b.Columns[1]; c.Changed != 2 || !near(c.ChangeRate, 1) {
		t.Errorf("group B housing: %+v; want both valid counterfactuals changing it", c)
	}
	// Two groups: one comparison per measure, A − B.
	if len(s.Comparisons) != len(Measures) {
		t.Fatalf("%d comparisons; want %d", len(s.Comparisons), len(Measures))
	}
	for _, c := range s.Comparisons {
		if c.Group != "A" || c.Versus != "B" {
			t.Errorf("comparison %s − %s; want A − B", c.Group, c.Versus)
		}
		if c.Measure == CostL1 && (!near(c.Difference, 5.25-16.5) || c.N != 2 || c.NVersus != 2) {
			t.Errorf("L1 difference %v over %d and %d rows; want −11.25 over 2 and 2", c.Difference, c.N, c.NVersus)
		}
	}
	// The JSON writes undefined figures (sex's mean change) as null.
	j, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"mean_change":null`) {
		t.Errorf("the JSON lacks null for an undefined mean change")
	}
}

// TestFailedSearch: a row whose search failed has no counterfactual: it is counted, it is
// not valid, and it has no cost (NaN, null in the JSON) and changes nothing.
func TestFailedSearch(t *testing.T) {
	in := handInput()
	p := in.Explanations[1].Path0() // row 2, valid in handInput
	p.Failure, p.Valid = "the search diverged at step 12; fix: lower Config.LearningRate", false
	for i := range p.Counterfactual {
		p.Counterfactual[i], p.CounterfactualOriginal[i] = math.NaN(), math.NaN()
	}
	p.CFUncertainty = math.NaN()
	s, err := Summarise(in, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Rows[1]
	if r.Valid || r.Failure == "" || !math.IsNaN(float64(r.CostL1)) || !math.IsNaN(float64(r.CostL0)) || r.Changed != nil {
		t.Errorf("failed row %+v; want not valid, its failure, NaN costs and no changes", r)
	}
	all := s.Overall
	if all.Failed != 1 || all.Valid != 3 || all.Searched != 5 || !near(all.Measure(Validity).Mean, 3.0/5) || !near(all.Measure(CostL1).Mean, (9+28+5)/3.0) {
		t.Errorf("overall: failed %d, valid %d of %d, validity %v, L1 %v; want 1, 3 of 5, 0.6, 14", all.Failed, all.Valid, all.Searched, all.Measure(Validity).Mean, all.Measure(CostL1).Mean)
	}
	if s.Groups[0].Failed != 1 || s.Groups[1].Failed != 0 {
		t.Errorf("failed per group: %d, %d; want 1, 0", s.Groups[0].Failed, s.Groups[1].Failed)
	}
	if rate := all.Columns[2].ChangeRate; !near(rate, 1.0/3) { // rate: row 5 of rows 1, 5, 6
		t.Errorf("rate changed in %v of the valid counterfactuals; want 1/3", rate)
	}
}

// TestMoreGroups compares each of three groups with the rest of the rows.
func TestMoreGroups(t *testing.T) {
	in := handInput()
	in.Groups, in.GroupOrder, in.CounterfactualGroups = []string{"A", "B", "C", "A", "B", "C"}, nil, nil
	s, err := Summarise(in, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Groups) != 3 || len(s.Comparisons) != 3*len(Measures) {
		t.Fatalf("%d groups, %d comparisons; want 3 and %d", len(s.Groups), len(s.Comparisons), 3*len(Measures))
	}
	for _, c := range s.Comparisons {
		if c.Versus != Rest {
			t.Errorf("comparison of %s versus %s; want the rest", c.Group, c.Versus)
		}
		// Group A is rows 1 and 4 (already the target): its valid row 1 against rows 2, 5, 6.
		if !c.Few() {
			t.Errorf("comparison of %d and %d rows not marked as resting on few", c.N, c.NVersus)
		}
		if c.Measure == CostL1 && c.Group == "A" && (!near(c.Difference, 9-(1.5+28+5)/3.0) || c.N != 1 || c.NVersus != 3 || !math.IsNaN(float64(c.Lo))) {
			t.Errorf("L1 of A versus the rest: %+v; want 9 − 34.5/3 over 1 and 3 rows, no interval for 1 row", c)
		}
	}
}

// TestInputErrors: inputs that do not fit are errors, never a panic or a wrong figure.
func TestInputErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Input)
		want string
	}{
		{"no explanations", func(in *Input) { in.Explanations = nil }, "no explanations"},
		{"groups short", func(in *Input) { in.Groups = in.Groups[:2] }, "2 Groups for 6 explanations"},
		{"group not in order", func(in *Input) { in.GroupOrder = []string{"A"} }, `group "B", which is not in the group order`},
		{"wrong columns", func(in *Input) { in.Columns = in.Columns[:2] }, "columns of 4"},
		{"cf groups alone", func(in *Input) { in.Groups = nil }, "CounterfactualGroups without Groups"},
	} {
		in := handInput()
		tc.edit(&in)
		if _, err := Summarise(in, Options{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Summarise(handInput(), Options{Permutations: 10}); err == nil || !strings.Contains(err.Error(), "population.Options.Permutations 10") {
		t.Errorf("10 permutations: error %v", err)
	}
}

// TestPermutationExact checks the permutation p-value against the exact one: for {1, 2}
// against {3, 4, 5}, 2 of the 10 ways to pick two of the five values differ in mean by at
// least the observed 2.5 ({1, 2} and {4, 5}), so p = 0.2.
func TestPermutationExact(t *testing.T) {
	const n = 20000
	p := permutationP(rand.New(rand.NewPCG(1, 2)), []float64{1, 2}, []float64{3, 4, 5}, n)
	if math.Abs(p-0.2) > 4*math.Sqrt(0.2*0.8/n) {
		t.Errorf("p = %v; want 0.2 within sampling error", p)
	}
	// Identical values: every relabelling ties, so p = 1.
	if p := permutationP(rand.New(rand.NewPCG(1, 2)), []float64{1, 1, 1}, []float64{1, 1}, 500); p != 1 {
		t.Errorf("p = %v for identical values; want 1", p)
	}
	if q := quantile([]float64{1, 2, 3, 4}, 0.25); q != 1.75 {
		t.Errorf("quantile 0.25 of 1..4 = %v; want 1.75", q)
	}
}

// synthetic is an input of n rows per group of one continuous column, whose valid
// counterfactuals move it by a cost drawn from cost(group, rng); one row in ten is not
// valid.
func synthetic(seed uint64, n int, cost func(group int, r *rand.Rand) float64) Input {
	r := rand.New(rand.NewPCG(seed, 7))
	cols := []data.Column{{Name: "x", Type: data.Continuous, Start: 0, Width: 1}}
	in := Input{Columns: cols, GroupOrder: []string{"A", "B"}}
	for g, name := range in.GroupOrder {
		for i := range n {
			c := cost(g, r)
			x, xc := []float64{0}, []float64{float64(float32(c))}
			in.Explanations = append(in.Explanations, handExplanation(x, xc, i%10 != 9, false, []float64{c / 10}, nil, nil, c))
			in.Groups = append(in.Groups, name)
		}
	}
	return in
}

func comparison(t *testing.T, s *Summary, measure string) Comparison {
	t.Helper()
	for _, c := range s.Comparisons {
		if c.Measure == measure {
			return c
		}
	}
	t.Fatalf("no comparison of %s", measure)
	return Comparison{}
}

// TestPlantedDifference: group B needs a change one unit larger than group A's, with a
// spread of 0.5: the test detects it and the interval of the difference excludes 0 and
// holds the planted −1.
func TestPlantedDifference(t *testing.T) {
	in := synthetic(1, 40, func(g int, r *rand.Rand) float64 { return 2 + float64(g) + 0.5*r.NormFloat64() })
	s, err := Summarise(in, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := comparison(t, s, CostL1)
	if !(c.P < 0.05) || !(c.Hi < 0) || !(c.Lo < -1 && -1 < c.Hi) {
		t.Errorf("planted −1: difference %v [%v, %v], p %v; want p < 0.05 and an interval below 0 holding −1", c.Difference, c.Lo, c.Hi, c.P)
	}
	if c.P != Number(1.0/(1+DefaultPermutations)) {
		t.Errorf("p = %v; want the smallest possible, 1/%d, for a difference this clear", c.P, 1+DefaultPermutations)
	}
	// Validity is the same by construction (9 in 10 valid in each group): not significant.
	if v := comparison(t, s, Validity); !(v.P > 0.05) || !(v.Lo <= 0 && 0 <= v.Hi) {
		t.Errorf("validity, equal by construction: difference %v [%v, %v], p %v", v.Difference, v.Lo, v.Hi, v.P)
	}
	// Repeatable: the same seed gives the same figures; another seed other intervals.
	again, _ := Summarise(in, Options{Seed: 3})
	if comparison(t, again, CostL1) != c {
		t.Errorf("the same seed gave another comparison")
	}
	other, _ := Summarise(in, Options{Seed: 4})
	if oc := comparison(t, other, CostL1); oc.Lo == c.Lo && oc.Hi == c.Hi {
		t.Errorf("seed 4 gave the interval of seed 3")
	}
}

// TestExchangeableGroups: when both groups' costs come from one distribution, the test at
// the 0.05 level is significant in about one seed in 20 and the 95% interval misses 0 about
// as often: over 40 seeds, 2 of each are expected, and more than 5 would happen by chance
// once in 70 runs of a correct test (binomial, 40 draws at 0.05). The seeds are fixed, so
// the test is deterministic; the log shows the counts.
func TestExchangeableGroups(t *testing.T) {
	significant, missed := 0, 0
	const seeds = 40
	for seed := range uint64(seeds) {
		in := synthetic(100+seed, 30, func(_ int, r *rand.Rand) float64 { return 2 + 0.5*r.NormFloat64() })
		s, err := Summarise(in, Options{Seed: seed, Bootstrap: 1000, Permutations: 1000})
		if err != nil {
			t.Fatal(err)
		}
		c := comparison(t, s, CostL1)
		if c.P < 0.05 {
			significant++
		}
		if !(c.Lo <= 0 && 0 <= c.Hi) {
			missed++
		}
	}
	t.Logf("%d of %d seeds significant at 0.05, %d intervals miss 0", significant, seeds, missed)
	if significant > 5 || missed > 5 {
		t.Errorf("%d of %d seeds significant, %d intervals missing 0; want at most 5 each for exchangeable groups", significant, seeds, missed)
	}
}

// TestBootstrapCoverage: the interval of a mean of 400 standard normal values is about
// ±1.96/√400 = ±0.098 wide.
func TestBootstrapCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	v := make([]float64, 400)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	lo, hi := bootstrapMean(rand.New(rand.NewPCG(1, 1)), v, 4000, 0.95)
	if w := (hi - lo) / 2; math.Abs(w-0.098) > 0.015 {
		t.Errorf("half-width %v; want about 0.098", w)
	}
	if m := mean(v); !(lo < m && m < hi) {
		t.Errorf("interval [%v, %v] misses the mean %v", lo, hi, m)
	}
}

// TestGrouping: a column of levels groups by its levels; a numeric column by bins, a value
// on a cut point going to the bin above; every mistake is an error naming its flag.
func TestGrouping(t *testing.T) {
	cols := []data.Column{
		{Name: "age", Type: data.Integer, Min: 19, Max: 75, Start: 0, Width: 1},
		{Name: "housing", Type: data.Categorical, Levels: []string{"for free", "own", "rent"}, Start: 1, Width: 3},
		{Name: "rate", Type: data.Continuous, Min: 0, Max: 1, Start: 4, Width: 1},
	}
	g, err := NewGrouping(cols, "housing", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Names(), []string{"for free", "own", "rent"}) || g.Group([]float64{30, 0, 0, 1, 0.5}) != "rent" {
		t.Errorf("housing: names %v, group %q", g.Names(), g.Group([]float64{30, 0, 0, 1, 0.5}))
	}
	g, err = NewGrouping(cols, "age", []float64{30, 50}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"age<30", "30<=age<50", "age>=50"}; !slices.Equal(g.Names(), want) {
		t.Errorf("bins %v; want %v", g.Names(), want)
	}
	for _, tc := range []struct {
		age  float64
		want string
	}{{19, "age<30"}, {29.9999999, "30<=age<50"}, {30, "30<=age<50"}, {49, "30<=age<50"}, {50, "age>=50"}, {75, "age>=50"}} {
		if got := g.Group([]float64{tc.age, 0, 1, 0, 0}); got != tc.want {
			t.Errorf("age %v in %q; want %q", tc.age, got, tc.want)
		}
	}
	g, err = NewGrouping(cols, "rate", []float64{0.5}, []string{"low", "high"})
	if err != nil || !slices.Equal(g.Names(), []string{"low", "high"}) || g.Group([]float64{0, 0, 1, 0, 0.49}) != "low" {
		t.Errorf("named bins: %v, %v", g, err)
	}
	for _, tc := range []struct {
		column string
		edges  []float64
		names  []string
		want   string
	}{
		{"nope", nil, nil, `NewGrouping's column "nope": no such column; fix: use one of age, housing, rate`},
		{"age", nil, nil, "NewGrouping's column age: age is integer (19 … 75), so its values are not groups; fix: cut it into bins with NewGrouping's edges"},
		{"housing", []float64{1}, nil, "drop NewGrouping's edges and NewGrouping's names"},
		{"age", []float64{50, 30}, nil, "NewGrouping's edges: the cut points must rise"},
		{"age", []float64{math.NaN()}, nil, "NewGrouping's edges: cut point NaN is not a finite number"},
		{"age", []float64{30}, []string{"young"}, "NewGrouping's names: 1 names for the 2 bins"},
		{"age", []float64{30}, []string{"a", "a"}, `NewGrouping's names: "a" names two bins`},
		{"age", nil, []string{"a"}, "NewGrouping's names names the bins of NewGrouping's edges, and there are none"},
	} {
		if _, err := NewGrouping(cols, tc.column, tc.edges, tc.names); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%s %v %v: error %v; want %q with a fix", tc.column, tc.edges, tc.names, err, tc.want)
		}
	}
}

// TestGroupBy: Input.GroupBy groups the rows (Rows, or else each explanation's XOriginal)
// in the grouping's order, and the counterfactuals only when asked.
func TestGroupBy(t *testing.T) {
	g, err := NewGrouping(table, "housing", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := handInput()
	in.Groups, in.GroupOrder, in.CounterfactualGroups = nil, nil, nil
	rows := []string{"rent", "own", "own", "own", "rent", "for free"}
	cfs := []string{"own", "own", "own", "own", "own", "rent"}
	fixed := in.GroupBy(g, false)
	if !slices.Equal(fixed.Groups, rows) || !slices.Equal(fixed.GroupOrder, table[1].Levels) || fixed.CounterfactualGroups != nil {
		t.Errorf("frozen: groups %v, order %v, counterfactuals' %v; want %v, %v, nil", fixed.Groups, fixed.GroupOrder, fixed.CounterfactualGroups, rows, table[1].Levels)
	}
	in.Rows = nil // each explanation's XOriginal, the same rows
	free := in.GroupBy(g, true)
	if !slices.Equal(free.Groups, rows) || !slices.Equal(free.CounterfactualGroups, cfs) {
		t.Errorf("free: groups %v, counterfactuals' %v; want %v, %v", free.Groups, free.CounterfactualGroups, rows, cfs)
	}
	sum, err := Summarise(free, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Overall.LeftGroup != 3 { // rows 1 and 5 (rent → own) and 6 (for free → rent), all valid
		t.Errorf("%d valid counterfactuals left their group; want 3", sum.Overall.LeftGroup)
	}
}
