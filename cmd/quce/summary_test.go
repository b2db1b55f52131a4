package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/population"
)

// summaryOut is the part of quce summary's JSON these tests read.
type summaryOut struct {
	Config struct {
		GroupBy      string   `json:"group_by"`
		Frozen       []string `json:"frozen"`
		Bootstrap    int      `json:"bootstrap"`
		Permutations int      `json:"permutations"`
	} `json:"config"`
	Group struct {
		Column string   `json:"column"`
		Frozen bool     `json:"frozen"`
		Groups []string `json:"groups"`
	} `json:"group"`
	Target  string `json:"target"`
	Summary struct {
		Overall     scopeOut   `json:"overall"`
		Groups      []scopeOut `json:"groups"`
		Comparisons []struct {
			Measure    string   `json:"measure"`
			Group      string   `json:"group"`
			Versus     string   `json:"versus"`
			N          int      `json:"n"`
			NVersus    int      `json:"n_versus"`
			Difference *float64 `json:"difference"`
			Lo         *float64 `json:"lo"`
			Hi         *float64 `json:"hi"`
			P          *float64 `json:"p"`
		} `json:"comparisons"`
		Rows []any `json:"rows"`
	} `json:"summary"`
	Rows []struct {
		File           string   `json:"file"`
		Line           int      `json:"line"`
		Split          string   `json:"split"`
		Group          string   `json:"group"`
		AlreadyTarget  bool     `json:"already_target"`
		Valid          bool     `json:"valid"`
		CostL0         int      `json:"cost_l0"`
		CostL1         float64  `json:"cost_l1"`
		ChangedColumns []string `json:"changed_columns"`
	} `json:"rows"`
}

type scopeOut struct {
	Name          string `json:"name"`
	Rows          int    `json:"rows"`
	AlreadyTarget int    `json:"already_target"`
	Searched      int    `json:"searched"`
	Valid         int    `json:"valid"`
	LeftGroup     int    `json:"left_group"`
	Failed        int    `json:"failed"`
	Measures      []struct {
		Measure string   `json:"measure"`
		N       int      `json:"n"`
		Mean    *float64 `json:"mean"`
		Lo      *float64 `json:"lo"`
		Hi      *float64 `json:"hi"`
	} `json:"measures"`
	Columns []struct {
		Column     string   `json:"column"`
		Changed    int      `json:"changed"`
		ChangeRate *float64 `json:"change_rate"`
	} `json:"columns"`
}

// The lines of german_credit.csv of 8 applicants who are not foreign workers (most are), and
// of 12 who are.
var (
	notForeign = []int{24, 26, 110, 119, 142, 153, 158, 175}
	foreign    = []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
)

// TestSummaryGroups runs quce summary on German credit grouped by foreign_worker (frozen):
// the text, the JSON, the CSV and the pictures hold the groups by the data's names, the
// intervals and the tests, and their counts agree with the rows they summarise.
func TestSummaryGroups(t *testing.T) {
	dir := t.TempDir()
	jsonPath, csvPath, svg := filepath.Join(dir, "s.json"), filepath.Join(dir, "s.csv"), filepath.Join(dir, "pics")
	var lines []string
	for _, l := range slices.Concat(notForeign, foreign) {
		lines = append(lines, strconv.Itoa(l))
	}
	stdout, stderr, err := quceRun("summary", "-data", "german_credit", "-group-by", "foreign_worker", "-frozen", "foreign_worker",
		"-rows", strings.Join(lines, ","), "-bootstrap", "500", "-permutations", "500",
		"-json", jsonPath, "-csv", csvPath, "-svg", svg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"target: each row's other class (no -class)", "By foreign_worker (foreign_worker is frozen", "Differences in mean (no − yes)",
		"cost L1 (standardised inputs)", "permutation p-values (500 relabellings", "Share of each group's valid counterfactuals",
		"8, 12 (!)", "(!) fewer than 10 rows on a side"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the text lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc summaryOut
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Config.GroupBy != "foreign_worker" || doc.Config.Bootstrap != 500 || doc.Config.Permutations != 500 || !doc.Group.Frozen ||
		!slices.Equal(doc.Group.Groups, []string{"no", "yes"}) || !strings.HasPrefix(doc.Target, "target: each row's other class") || doc.Summary.Rows != nil {
		t.Errorf("config %+v, group %+v, target %q, summary rows %v", doc.Config, doc.Group, doc.Target, doc.Summary.Rows)
	}
	if len(doc.Rows) != 20 || doc.Summary.Overall.Rows != 20 || len(doc.Summary.Groups) != 2 {
		t.Fatalf("%d rows, overall %d, %d groups; want 20, 20, 2", len(doc.Rows), doc.Summary.Overall.Rows, len(doc.Summary.Groups))
	}
	// The counts agree with the rows: per group, the searched and valid rows, and per column
	// the valid counterfactuals that change it.
	allLines := slices.Concat(notForeign, foreign)
	for _, g := range append([]scopeOut{doc.Summary.Overall}, doc.Summary.Groups...) {
		rows, searched, valid := 0, 0, 0
		changed := map[string]int{}
		for i, r := range doc.Rows {
			if g.Name != "all" && r.Group != g.Name {
				continue
			}
			wantGroup := "yes"
			if i < len(notForeign) {
				wantGroup = "no"
			}
			if r.Group != wantGroup || r.Line != allLines[i] || r.File != "german_credit.csv" {
				t.Errorf("row %d: line %d of %s in group %q; want group %q", i, r.Line, r.File, r.Group, wantGroup)
			}
			rows++
			if !r.AlreadyTarget {
				searched++
				if r.Valid {
					valid++
					for _, c := range r.ChangedColumns {
						changed[c]++
					}
				}
			}
			if r.CostL0 != len(r.ChangedColumns) {
				t.Errorf("line %d: L0 %d for %d changed columns", r.Line, r.CostL0, len(r.ChangedColumns))
			}
		}
		if g.Rows != rows || g.Searched != searched || g.Valid != valid || g.LeftGroup != 0 {
			t.Errorf("group %s: rows %d, searched %d, valid %d, left %d; the rows give %d, %d, %d, 0", g.Name, g.Rows, g.Searched, g.Valid, g.LeftGroup, rows, searched, valid)
		}
		for _, c := range g.Columns {
			if c.Changed != changed[c.Column] {
				t.Errorf("group %s, column %s: %d changed; the rows give %d", g.Name, c.Column, c.Changed, changed[c.Column])
			}
			if c.Column == "foreign_worker" && c.Changed != 0 {
				t.Errorf("group %s: the frozen foreign_worker changed %d times", g.Name, c.Changed)
			}
		}
		if len(g.Measures) != 5 || g.Measures[0].Measure != "validity" || g.Measures[0].N != searched {
			t.Errorf("group %s: measures %+v; want validity first over the %d searched rows", g.Name, g.Measures, searched)
		}
	}
	if len(doc.Summary.Comparisons) != 5 {
		t.Fatalf("%d comparisons; want one per measure", len(doc.Summary.Comparisons))
	}
	for _, c := range doc.Summary.Comparisons {
		if c.Group != "no" || c.Versus != "yes" || c.P == nil || !(*c.P > 0 && *c.P <= 1) || c.Difference == nil {
			t.Errorf("comparison %+v; want no − yes with a p-value in (0, 1]", c)
		}
		if c.Lo != nil && c.Hi != nil && !(*c.Lo <= *c.Hi) {
			t.Errorf("comparison %s: interval [%v, %v]", c.Measure, *c.Lo, *c.Hi)
		}
	}

	recs := readRecords(t, csvPath)
	if !slices.Equal(recs[0], population.CSVColumns) || len(recs) != 1+3*20 {
		t.Fatalf("CSV header %v and %d rows; want %v and 60 (20 columns × all, no, yes)", recs[0], len(recs)-1, population.CSVColumns)
	}
	groups := map[string]int{}
	for _, r := range recs[1:] {
		groups[r[1]]++
		if r[0] != "foreign_worker" {
			t.Errorf("group_by %q", r[0])
		}
		if v, err := strconv.ParseFloat(r[4], 64); r[4] != "NA" && (err != nil || v < 0 || v > 1) {
			t.Errorf("change_rate %q", r[4])
		}
	}
	if groups["all"] != 20 || groups["no"] != 20 || groups["yes"] != 20 {
		t.Errorf("CSV rows per group %v; want 20 each of all, no, yes", groups)
	}

	files, _ := filepath.Glob(filepath.Join(svg, "*"))
	want := []string{filepath.Join(svg, "summary-columns.svg"), filepath.Join(svg, "summary-cost.svg"), filepath.Join(svg, "summary-groups.svg")}
	if !slices.Equal(files, want) {
		t.Fatalf("pictures %v; want %v", files, want)
	}
	for p, names := range map[string][]string{want[1]: {">no (", ">yes ("}, want[2]: {">no<", ">yes<"}} {
		b, _ := os.ReadFile(p)
		for _, s := range append(names, "by foreign_worker", "each row&#39;s other class") {
			if !strings.Contains(string(b), s) {
				t.Errorf("%s lacks %q", p, s)
			}
		}
	}
}

// TestSummaryBinsChangeable groups by a numeric column cut into named bins, which the
// counterfactuals may change: the note says so, rows are grouped by their own value, and
// the counterfactuals that left their group are counted.
func TestSummaryBinsChangeable(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "s.json")
	stdout, stderr, err := quceRun("summary", "-data", "german_credit", "-group-by", "age", "-bins", "30,50", "-bin-names", "young,middle,old",
		"-n", "12", "-json", jsonPath, "-bootstrap", "200", "-permutations", "200", "-q")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"age is not -frozen, so a counterfactual may change it", "left group", "each group − the rest of the rows"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the text lacks %q:\n%s", want, stdout)
		}
	}
	b, _ := os.ReadFile(jsonPath)
	var doc summaryOut
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Group.Frozen || !slices.Equal(doc.Group.Groups, []string{"young", "middle", "old"}) {
		t.Errorf("group %+v; want not frozen, young, middle, old", doc.Group)
	}
	left := 0
	for _, g := range doc.Summary.Groups {
		left += g.LeftGroup
	}
	if left != doc.Summary.Overall.LeftGroup {
		t.Errorf("left group %d over the groups, %d overall", left, doc.Summary.Overall.LeftGroup)
	}
	for _, c := range doc.Summary.Comparisons {
		if c.Versus != "rest" {
			t.Errorf("comparison %s versus %s; with three groups, want each versus the rest", c.Group, c.Versus)
		}
	}
}

// Mistakes in quce summary's own flags fail before any model is prepared, naming the flag.
func TestSummaryFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-data", "german_credit", "-group-by", "nope"}, []string{`-group-by "nope": no such column`, "foreign_worker"}},
		{[]string{"-data", "german_credit", "-group-by", "age"}, []string{"-group-by age: age is integer", "-bins"}},
		{[]string{"-data", "german_credit", "-group-by", "housing", "-bins", "1"}, []string{"housing is categorical", "drop -bins"}},
		{[]string{"-data", "german_credit", "-bins", "30"}, []string{"-bins cuts the -group-by column", "add -group-by"}},
		{[]string{"-data", "german_credit", "-group-by", "age", "-bins", "30,x"}, []string{`-bins "30,x": "x" is not a number`}},
		{[]string{"-bootstrap", "10"}, []string{"-bootstrap 10", "at least 100"}},
		{[]string{"-permutations", "5"}, []string{"-permutations 5", "at least 100"}},
		{[]string{"-json", filepath.Join(dir, "x"), "-csv", filepath.Join(dir, "x")}, []string{"are the same file"}},
		{[]string{"-top", "-1"}, []string{"-top -1"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			failsEarly(t, append([]string{"summary"}, tc.args...), tc.want)
		})
	}
}

// docs/REFERENCE.md lists the columns of quce summary's -csv table, in order.
func TestReferenceListsTheSummaryCSVColumns(t *testing.T) {
	var named []string
	for _, m := range regexp.MustCompile("`([a-z_0-9]+)(\\(_lo, _hi\\))?`").FindAllStringSubmatch(referenceParagraph(t, "The `quce summary -csv FILE` table", "`-svg DIR` writes"), -1) {
		if m[1] == "all" || m[1] == "summary" {
			continue // the group of all rows, the command
		}
		named = append(named, m[1])
		if m[2] != "" {
			named = append(named, m[1]+"_lo", m[1]+"_hi")
		}
	}
	if !slices.Equal(named, population.CSVColumns) {
		t.Errorf("docs/REFERENCE.md lists the -csv columns\n%v\nthe file has\n%v", named, population.CSVColumns)
	}
}

// A row whose search fails beside one that does not: the summary counts it as failed and
// not valid, gives it no cost (null in the JSON), and summarises the other.
func TestSummaryFailedRow(t *testing.T) {
	ds := data.WBC()
	good, huge := make([]string, len(ds.Features)), make([]string, len(ds.Features))
	for i, v := range ds.X[1] {
		good[i], huge[i] = strconv.FormatFloat(v, 'g', -1, 64), "1e19" // its squared reconstruction error overflows
	}
	dir := t.TempDir()
	in, js := filepath.Join(dir, "new.csv"), filepath.Join(dir, "s.json")
	text := strings.Join(ds.Features, ",") + "\n" + strings.Join(good, ",") + "\n" + strings.Join(huge, ",") + "\n"
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := quceRun("summary", "-instances", in, "-json", js, "-bootstrap", "100", "-permutations", "100")
	if err != nil {
		t.Fatalf("summary: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "The search of 1 rows failed") {
		t.Errorf("the text does not say a search failed:\n%s", stdout)
	}
	b, _ := os.ReadFile(js)
	var doc struct {
		Summary struct {
			Overall scopeOut `json:"overall"`
		} `json:"summary"`
		Rows []struct {
			Line    int      `json:"line"`
			Valid   bool     `json:"valid"`
			Failure string   `json:"failure"`
			CostL1  *float64 `json:"cost_l1"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	o := doc.Summary.Overall
	if o.Searched != 2 || o.Failed != 1 || o.Valid > 1 || len(doc.Rows) != 2 {
		t.Fatalf("overall %+v, %d rows; want 2 searched, 1 failed", o, len(doc.Rows))
	}
	if r := doc.Rows[1]; r.Line != 3 || r.Valid || r.Failure == "" || r.CostL1 != nil {
		t.Errorf("the failed row %+v; want line 3, not valid, its failure, no cost", r)
	}
	if r := doc.Rows[0]; r.Failure != "" || r.CostL1 == nil {
		t.Errorf("the good row %+v; want a cost", r)
	}
}
