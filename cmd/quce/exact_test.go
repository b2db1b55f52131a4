package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// exactOut is what TestExplainExactDataUnits reads of quce explain's JSON.
type exactOut struct {
	Features []string `json:"features"`
	Results  []struct {
		Inputs struct {
			XOriginal              []float64 `json:"x_original"`
			CounterfactualOriginal []float64 `json:"counterfactual_original"`
		} `json:"inputs"`
		Path struct {
			PointsOriginal [][]float64 `json:"points_original"`
		} `json:"path"`
	} `json:"results"`
}

// withValues writes a CSV file of the header and the given data rows of src (a CSV file's
// text), each with the named columns set to the given cells.
func withValues(t *testing.T, path, src string, rows []int, set map[string]string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(src)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := [][]string{recs[0]}
	for _, r := range rows {
		rec := slices.Clone(recs[r])
		for name, v := range set {
			k := slices.Index(recs[0], name)
			if k < 0 {
				t.Fatalf("no column %q", name)
			}
			rec[k] = v
		}
		out = append(out, rec)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll(out)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExplainExactDataUnits: values float32 cannot hold come back exactly in the JSON and
// the CSV: a frozen -0.342 and an unchanged increase-only 72000.1 (both outside W-BC's
// observed range, as a new instance may be), bounds with two decimals that the search
// reaches from above and below, and an increase-only age of 200 (German credit, above its
// observed maximum) that once came back as 199. In the text, the frozen column is not
// listed as changed.
func TestExplainExactDataUnits(t *testing.T) {
	dir := t.TempDir()
	wbcCSV, err := os.ReadFile(filepath.Join("..", "..", "data", "wbc.csv"))
	if err != nil {
		t.Fatal(err)
	}
	germanCSV, err := os.ReadFile(filepath.Join("..", "..", "data", "german_credit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	newWBC, age200 := filepath.Join(dir, "new.csv"), filepath.Join(dir, "age200.csv")
	withValues(t, newWBC, string(wbcCSV), []int{1, 20, 40}, map[string]string{"mean_smoothness": "-0.342", "worst_area": "72000.1"})
	withValues(t, age200, string(germanCSV), []int{1, 2, 3, 4}, map[string]string{"age": "200"})
	// Bounds of ±0.05 on mean_radius, ±1 on mean_texture and ±0.005 on mean_concavity
	// around line 2 of wbc.csv (17.99, 10.38, 0.3001).
	bounds := "mean_radius=17.94:18.04,mean_texture=9.38:11.38,mean_concavity=0.2951:0.3051"
	for _, tc := range []struct {
		name  string
		args  []string
		exact map[string]float64 // column: the value every point must hold exactly
		least map[string]float64 // column: the value no point may go below
		box   map[string][2]float64
	}{
		{"frozen and increase-only, new instances", []string{"-instances", newWBC, "-frozen", "mean_smoothness", "-increase", "worst_area"},
			map[string]float64{"mean_smoothness": -0.342}, map[string]float64{"worst_area": 72000.1}, nil},
		{"bounds hit from both sides", []string{"-rows", "2", "-bounds", bounds, "-lambdas", "1,0,0"},
			nil, nil, map[string][2]float64{"mean_radius": {17.94, 18.04}, "mean_texture": {9.38, 11.38}, "mean_concavity": {0.2951, 0.3051}}},
		{"increase-only age above the observed maximum", []string{"-data", "german_credit", "-instances", age200, "-increase", "age"},
			nil, map[string]float64{"age": 200}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jsonPath, csvPath := filepath.Join(t.TempDir(), "e.json"), filepath.Join(t.TempDir(), "e.csv")
			args := append([]string{"explain", "-top", "40", "-json", jsonPath, "-csv", csvPath, "-steps", "300", "-cache", pipelinetest.CacheDir()}, tc.args...)
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			var doc exactOut
			b, _ := os.ReadFile(jsonPath)
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			onBound := 0
			check := func(where, name string, v float64) {
				t.Helper()
				if want, ok := tc.exact[name]; ok && v != want {
					t.Errorf("%s: %s = %v, want exactly %v", where, name, v, want)
				}
				if least, ok := tc.least[name]; ok && v < least {
					t.Errorf("%s: increase-only %s = %v, below %v", where, name, v, least)
				}
				if b, ok := tc.box[name]; ok {
					if v < b[0] || v > b[1] {
						t.Errorf("%s: %s = %v outside its bounds [%v, %v]", where, name, v, b[0], b[1])
					}
					if v == b[0] || v == b[1] {
						onBound++
					}
				}
			}
			for i, r := range doc.Results {
				for f, name := range doc.Features {
					check("JSON x_original", name, r.Inputs.XOriginal[f])
					check("JSON counterfactual_original", name, r.Inputs.CounterfactualOriginal[f])
					for k, pt := range r.Path.PointsOriginal {
						check("JSON points_original "+strconv.Itoa(k), name, pt[f])
					}
					if v, ok := tc.least[name]; ok && r.Inputs.XOriginal[f] != v {
						t.Errorf("result %d: x_original %s = %v, want exactly %v", i, name, r.Inputs.XOriginal[f], v)
					}
				}
			}
			recs, err := csv.NewReader(bytes.NewReader(must(os.ReadFile(csvPath)))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			col := func(name string) int { return slices.Index(recs[0], name) }
			for _, rec := range recs[1:] {
				name := rec[col("column")]
				for _, side := range []string{"original", "counterfactual"} {
					v, err := strconv.ParseFloat(rec[col(side)], 64)
					if err != nil {
						continue // a category
					}
					check("CSV "+side, name, v)
					if want, ok := tc.exact[name]; ok && rec[col(side)] != strconv.FormatFloat(want, 'g', -1, 64) {
						t.Errorf("CSV %s: %s is %q, want %q", side, name, rec[col(side)], strconv.FormatFloat(want, 'g', -1, 64))
					}
				}
			}
			for name := range tc.exact {
				if strings.Contains(stdout.String(), name+": ") {
					t.Errorf("the text lists the frozen %s as changed:\n%s", name, stdout.String())
				}
			}
			if tc.box != nil && onBound == 0 {
				t.Errorf("no value lies on a bound: the case does not test them")
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
