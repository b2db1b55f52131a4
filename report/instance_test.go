package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// testColumns are a categorical column (three inputs) and a continuous one.
var testColumns = []data.Column{
	{Name: "colour", Type: data.Categorical, Levels: []string{"red", "green", "blue"}, Start: 0, Width: 3},
	{Name: "age", Type: data.Continuous, Start: 3, Width: 1},
}

// testExplanation is an explanation of one path over testColumns, from red at age 40 to
// green at the same age, whose age carries an attribution (a detour); failure, if set, is
// the path's failure, which leaves its figures NaN as the explainer does.
func testExplanation(failure string) *quce.Explanation {
	nan := math.NaN()
	p := &quce.Path{
		Points: [][]float64{{1, 0, 0, 0.5}, {0, 1, 0, 0.5}}, PointsOriginal: [][]float64{{1, 0, 0, 40}, {0, 1, 0, 40}},
		Step: []int{0, 12}, Probability: []float64{0.2, 0.7}, Uncertainty: []float64{1, 2}, UncertaintyPaper: []float64{0.5, 1},
		Counterfactual: []float64{0, 1, 0, 0.5}, CounterfactualOriginal: []float64{0, 1, 0, 40},
		ProbEnd: 0.7, RelaxedProb: 0.7, Margin: 0.2, Valid: true, Steps: 12,
		Attribution: []float64{-0.25, 0.5, 0, 0.05}, AttributionPlus: []float64{0.01, 0.02, 0, 0.001},
		AttributionMinus: []float64{-0.01, -0.02, 0, -0.001}, Epsilon: []float64{0.1, 0.1, 0.1, 0.2},
		CFUncertainty: 2, CFUncertaintyPaper: 1, PathUncertainty: 1.5, PathUncertaintyPaper: 0.75,
	}
	if failure != "" {
		p.Failure, p.Valid = failure, false
		for _, v := range [][]float64{p.Counterfactual, p.CounterfactualOriginal, p.Attribution, p.AttributionPlus, p.AttributionMinus, p.Epsilon} {
			for i := range v {
				v[i] = nan
			}
		}
		p.ProbEnd, p.RelaxedProb, p.CFUncertainty, p.CFUncertaintyPaper, p.PathUncertainty, p.PathUncertaintyPaper = nan, nan, nan, nan, nan, nan
	}
	return &quce.Explanation{
		Target: 1, PredictedClass: 0, Probabilities: []float64{0.8, 0.2},
		X: []float64{1, 0, 0, 0.5}, XOriginal: []float64{1, 0, 0, 40}, ProbStart: 0.2, Paths: []*quce.Path{p},
		Attribution: p.Attribution, AttributionStd: make([]float64, 4),
		AttributionPlus: p.AttributionPlus, AttributionMinus: p.AttributionMinus,
		CompletenessGap: 0.3 - 0.5, Unchanged: []bool{false, false, true, true},
	}
}

var testSource = Source{File: "people.csv", Line: 7, Split: "test"}

// NewInstance works out once what every format shows: the per-column sums, the changed and
// detour marks, the ranks and the count of valid paths; a failed row has nil for what it
// cannot report, and no rank and no change.
func TestNewInstance(t *testing.T) {
	for _, tc := range []struct {
		name              string
		ex                *quce.Explanation
		attribution       Vector
		rank              []int
		changed, detour   []bool
		changedNames      []string
		validPaths        int
		counterfactualNil bool
		gapNaN            bool
	}{
		{"a valid row", testExplanation(""), Vector{0.25, 0.05}, []int{1, 2}, []bool{true, false}, []bool{false, true}, []string{"colour"}, 1, false, false},
		{"a failed row", testExplanation("diverged"), nil, nil, nil, []bool{false, false}, nil, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := NewInstance(testColumns, []string{"no", "yes"}, tc.ex, testSource)
			if !slices.Equal(in.Attribution, tc.attribution) || !slices.Equal(in.Rank, tc.rank) {
				t.Errorf("attribution %v, rank %v; want %v, %v", in.Attribution, in.Rank, tc.attribution, tc.rank)
			}
			if !slices.Equal(in.Changed, tc.changed) || !slices.Equal(in.ChangedFeatures, tc.changedNames) || !slices.Equal(in.Detour, tc.detour) {
				t.Errorf("changed %v %v, detour %v; want %v %v, %v", in.Changed, in.ChangedFeatures, in.Detour, tc.changed, tc.changedNames, tc.detour)
			}
			if in.ValidPathsCount != tc.validPaths || (in.Counterfactual == nil) != tc.counterfactualNil || (in.Path == nil) != tc.counterfactualNil {
				t.Errorf("valid paths %d, counterfactual %v, path %v", in.ValidPathsCount, in.Counterfactual, in.Path)
			}
			if math.IsNaN(float64(in.CompletenessGap)) != tc.gapNaN {
				t.Errorf("completeness gap %v", in.CompletenessGap)
			}
			if in.PredictedClassName != "no" || in.TargetClassName != "yes" || in.Name() != "line 7 of people.csv (test split)" {
				t.Errorf("named %q, classes %q → %q", in.Name(), in.PredictedClassName, in.TargetClassName)
			}
		})
	}
}

// The JSON of a failed row writes what it cannot report as null, and its row as read.
func TestInstanceJSON(t *testing.T) {
	b, err := json.Marshal(NewInstance(testColumns, []string{"no", "yes"}, testExplanation("diverged"), testSource))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"counterfactual", "counterfactual_original", "attribution", "epsilon", "completeness_gap", "prob_target_end", "changed_features", "path"} {
		if v, ok := got[k]; !ok || v != nil {
			t.Errorf("%s = %v, want null", k, v)
		}
	}
	if got["file"] != "people.csv" || got["line"] != 7.0 || !slices.Equal(got["x_original"].([]any), []any{"red", 40.0}) {
		t.Errorf("file %v, line %v, x_original %v", got["file"], got["line"], got["x_original"])
	}
	if _, ok := got["Columns"]; ok {
		t.Error("the JSON has the view's columns, which the run's columns already describe")
	}
}

// The CSV table has a line per instance and column, each with every column of the header;
// a failed row's counterfactual, rank, changes and attributions are NA.
func TestCSV(t *testing.T) {
	ins := []*Instance{
		NewInstance(testColumns, []string{"no", "yes"}, testExplanation(""), testSource),
		NewInstance(testColumns, []string{"no", "yes"}, testExplanation("diverged"), Source{File: "people.csv", Line: 8, Split: "train"}),
	}
	b, err := CSV(ins)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || !slices.Equal(recs[0], CSVColumns) {
		t.Fatalf("%d lines, header %v", len(recs), recs[0])
	}
	for _, tc := range []struct {
		line  int
		field string
		want  string
	}{
		{1, "column", "colour"}, {1, "original", "red"}, {1, "counterfactual", "green"}, {1, "attribution", "0.25"},
		{1, "rank", "1"}, {1, "changed", "true"}, {1, "detour", "false"}, {1, "predicted_class", "no"},
		{2, "column", "age"}, {2, "original", "40"}, {2, "rank", "2"}, {2, "changed", "false"}, {2, "detour", "true"},
		{2, "completeness_gap", "-0.2"}, {2, "valid_paths_count", "1"}, {2, "failure", ""},
		{3, "line", "8"}, {3, "split", "train"}, {3, "original", "red"}, {3, "counterfactual", "NA"}, {3, "rank", "NA"},
		{3, "attribution", "NA"}, {3, "changed", "NA"}, {3, "detour", "NA"}, {3, "prob_target_end", "NA"}, {3, "valid", "false"},
		{4, "epsilon", "NA"}, {4, "failure", "diverged"},
	} {
		if got := recs[tc.line][slices.Index(CSVColumns, tc.field)]; got != tc.want {
			t.Errorf("line %d, %s = %q, want %q", tc.line, tc.field, got, tc.want)
		}
	}
}

// The text names the row, says what changed, marks the detour in its table and explains
// the mark; a failed row says only why it failed.
func TestWriteText(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ex        *quce.Explanation
		top       int
		want, not []string
	}{
		{"a valid row", testExplanation(""), 5,
			[]string{"line 7 of people.csv (test split): predicted \"no\", target \"yes\": F(target) 0.2000 -> 0.7000, valid (12 steps",
				"1 of 2 columns changed: colour: red → green", "+0.0500" + DetourMark, DetourMark + " " + DetourNote},
			[]string{"FAILED"}},
		{"without a table", testExplanation(""), 0, []string{"1 of 2 columns changed"}, []string{"attribution", DetourNote}},
		{"a failed row", testExplanation("diverged"), 5, []string{"F(target) 0.2000 at x; FAILED: diverged"}, []string{"changed", "attribution"}},
		{"an unseen pair of categories", unseen(testExplanation("")), 0,
			[]string{"WARNING: no training row holds these category values together: colour=green, age=40"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			WriteText(&b, []*Instance{NewInstance(testColumns, []string{"no", "yes"}, tc.ex, testSource)}, tc.top)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("no %q in\n%s", w, b.String())
				}
			}
			for _, w := range tc.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("%q in\n%s", w, b.String())
				}
			}
		})
	}
}

// unseen is e with its counterfactual flagged for a pair of category values no training row
// holds (quce.Path.UnseenCombination).
func unseen(e *quce.Explanation) *quce.Explanation {
	e.Paths[0].UnseenCombination = []string{"colour=green", "age=40"}
	return e
}

// A counterfactual with an unseen pair of categories says so in every format: the JSON's
// unseen_combination, the CSV's (joined by ;) and the text's warning (TestWriteText); one
// without has none, and its margin is F(τ|x_c) − ϑ in the JSON and the CSV.
func TestUnseenCombinationAndMargin(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ex        *quce.Explanation
		json, csv string
		absent    bool
	}{
		{"unseen", unseen(testExplanation("")), `"unseen_combination":["colour=green","age=40"]`, ",0.2,true,colour=green;age=40,false,", false},
		{"seen", testExplanation(""), "", ",0.2,true,,false,", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := NewInstance(testColumns, []string{"no", "yes"}, tc.ex, testSource)
			b, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"margin":0.2`) {
				t.Errorf("the JSON has no margin 0.2: %s", b)
			}
			if got := strings.Contains(string(b), "unseen_combination"); got == tc.absent || (!tc.absent && !strings.Contains(string(b), tc.json)) {
				t.Errorf("the JSON's unseen_combination: %s; want %q (absent: %v)", b, tc.json, tc.absent)
			}
			table, err := CSV([]*Instance{in})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(table), tc.csv) {
				t.Errorf("the CSV lacks %q:\n%s", tc.csv, table)
			}
		})
	}
}

// An instance's other counterfactuals (quce.Explanation.Counterfactuals) are instances of
// their own in every format: the JSON's counterfactuals with their option and held columns,
// the CSV's lines of option 2 with their own figures, and a line of the text each.
func TestOptions(t *testing.T) {
	e := testExplanation("")
	alt := *e.Paths[0]
	alt.Counterfactual, alt.CounterfactualOriginal = []float64{1, 0, 0, 0.75}, []float64{1, 0, 0, 45}
	alt.ProbEnd, alt.Margin, alt.Held, alt.CompletenessGap = 0.6, 0.1, []int{0}, 1e-4
	e.Counterfactuals = []*quce.Path{e.Paths[0], &alt}
	in := NewInstance(testColumns, []string{"no", "yes"}, e, testSource)
	if len(in.Options) != 1 || in.Options[0].Option != 2 || !slices.Equal(in.Options[0].Held, []string{"colour"}) ||
		!slices.Equal(in.Options[0].ChangedFeatures, []string{"age"}) || in.Options[0].ProbTargetEnd != 0.6 {
		t.Fatalf("options %+v; want one, option 2, holding colour, changing age, F 0.6", in.Options)
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"counterfactuals":[{`, `"option":2`, `"held":["colour"]`, `"changed_features":["age"]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the JSON lacks %s: %s", want, b)
		}
	}
	table, err := CSV([]*Instance{in})
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(table)), "\n"); len(lines) != 1+2*len(testColumns) ||
		!strings.HasSuffix(lines[1], ",1") || !strings.HasSuffix(lines[3], ",2") || !strings.Contains(lines[4], ",age,") || !strings.Contains(lines[4], ",0.6,0.1,") {
		t.Errorf("the CSV, want two lines of option 1 then two of option 2 with its figures:\n%s", table)
	}
	var text strings.Builder
	WriteText(&text, []*Instance{in}, 0)
	if want := "counterfactual 2 of 2, holding colour at the row's values: F(target) 0.6000"; !strings.Contains(text.String(), want) {
		t.Errorf("the text lacks %q:\n%s", want, text.String())
	}
	if e.Counterfactuals = nil; NewInstance(testColumns, []string{"no", "yes"}, e, testSource).Options != nil {
		t.Error("an explanation of one counterfactual has options")
	}
}
