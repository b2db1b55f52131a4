package data

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJSON writes v (or the string itself) into a file of a temporary folder.
func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, ok := v.(string)
	if !ok {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b = string(raw)
	}
	path := filepath.Join(t.TempDir(), "scaler.json")
	if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A scaler file by column name and one as scikit-learn's lists give the same scaler, in
// the data's input order whatever the file's order.
func TestReadScalerForms(t *testing.T) {
	d := WBC()
	want := d.FitScaler(d.X)
	byName := map[string]map[string]float64{}
	var cols []string
	var means, scales []float64
	for j := len(d.Features) - 1; j >= 0; j-- { // the file in reverse order
		f := d.Features[j]
		byName[f] = map[string]float64{"mean": want.Mean[j], "scale": want.Std[j]}
		cols, means, scales = append(cols, f), append(means, want.Mean[j]), append(scales, want.Std[j])
	}
	byMinMax := map[string]map[string]float64{}
	var maxes []float64
	for k, f := range cols {
		byMinMax[f] = map[string]float64{"min": means[k], "max": means[k] + scales[k]}
		maxes = append(maxes, means[k]+scales[k])
	}
	for name, v := range map[string]any{
		"by name":      byName,
		"lists":        map[string]any{"columns": cols, "mean": means, "scale": scales},
		"scikit-learn": map[string]any{"feature_names_in_": cols, "mean_": means, "scale_": scales},
		// Min-max scaling, (value − min) / (max − min), is mean = min, scale = max − min.
		"min-max by name":           byMinMax,
		"min-max lists":             map[string]any{"columns": cols, "min": means, "max": maxes},
		"scikit-learn MinMaxScaler": map[string]any{"feature_names_in_": cols, "data_min_": means, "data_max_": maxes},
	} {
		s, err := d.ReadScaler(writeJSON(t, v))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for j := range want.Mean {
			if s.Mean[j] != want.Mean[j] || math.Abs(s.Std[j]-want.Std[j]) > 1e-12*want.Std[j] {
				t.Fatalf("%s: feature %d: mean %v scale %v, want %v %v", name, j, s.Mean[j], s.Std[j], want.Mean[j], want.Std[j])
			}
		}
	}
}

// With mixed data the scaler covers every column that is one input; a categorical column's
// one-hot inputs stay 0/1 and may not be named.
func TestReadScalerMixed(t *testing.T) {
	d := GermanCredit()
	entries := map[string]map[string]float64{}
	for _, c := range d.Columns {
		if c.Type != Categorical {
			entries[c.Name] = map[string]float64{"mean": 2, "scale": 4}
		}
	}
	s, err := d.ReadScaler(writeJSON(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Columns {
		for j := c.Start; j < c.Start+c.Width; j++ {
			wantMean, wantStd := 2.0, 4.0
			if c.Type == Categorical {
				wantMean, wantStd = 0, 1
			}
			if s.Mean[j] != wantMean || s.Std[j] != wantStd {
				t.Errorf("%s input %d: mean %v scale %v, want %v %v", c.Name, j, s.Mean[j], s.Std[j], wantMean, wantStd)
			}
		}
	}
	entries["housing"] = map[string]float64{"mean": 0, "scale": 1}
	if _, err := d.ReadScaler(writeJSON(t, entries)); err == nil || !strings.Contains(err.Error(), `"housing"`) || !strings.Contains(err.Error(), "categorical") {
		t.Errorf("a categorical column in the scaler: error %v", err)
	}
}

// Every problem with a scaler file names the file and the column, with the fix.
func TestReadScalerErrors(t *testing.T) {
	d := WBC()
	good := func() map[string]any {
		m := map[string]any{}
		for _, f := range d.Features {
			m[f] = map[string]float64{"mean": 1, "scale": 2}
		}
		return m
	}
	without := good()
	delete(without, "mean_area")
	unknown := good()
	unknown["tumour_size"] = map[string]float64{"mean": 1, "scale": 2}
	zero := good()
	zero["mean_texture"] = map[string]float64{"mean": 1, "scale": 0}
	noScale := good()
	noScale["mean_texture"] = map[string]float64{"mean": 1}
	extra := good()
	extra["mean_texture"] = map[string]float64{"mean": 1, "scale": 2, "var": 4}
	mean := func(m float64) map[string]any {
		g := good()
		g["mean_texture"] = map[string]float64{"mean": m, "scale": 2}
		return g
	}
	scale := func(s float64) map[string]any {
		g := good()
		g["mean_texture"] = map[string]float64{"mean": 1, "scale": s}
		return g
	}
	for _, tc := range []struct {
		name string
		file any
		want []string
	}{
		{"missing column", without, []string{`column "mean_area"`, "missing"}},
		{"unknown column", unknown, []string{`column "tumour_size"`, "not a feature column"}},
		{"zero scale", zero, []string{`column "mean_texture"`, `value "0"`, "scale"}},
		{"no scale", noScale, []string{`column "mean_texture"`, `"scale"`}},
		{"mean and min mixed", `{"mean_radius": {"mean": 1, "max": 2}}`, []string{`column "mean_radius"`, `{"min": number, "max": number}`}},
		{"max below min", `{"mean_radius": {"min": 3, "max": 2}}`, []string{`column "mean_radius"`, `value "-1"`, "max − min"}},
		{"min list without max", map[string]any{"columns": []string{"mean_radius"}, "data_min_": []float64{1}}, []string{`"data_min_"`, "max or data_max_"}},
		{"unknown key", extra, []string{`column "mean_texture"`}},
		{"given twice", `{"mean_radius": {"mean": 1, "scale": 2}, "mean_radius": {"mean": 1, "scale": 2}}`, []string{`column "mean_radius"`, "twice"}},
		{"lists of other lengths", map[string]any{"columns": []string{"mean_radius"}, "mean": []float64{1, 2}, "scale": []float64{1}}, []string{"1 columns, 2 means"}},
		{"lists without names", map[string]any{"mean": []float64{1}, "scale": []float64{1}}, []string{"columns", "feature_names_in_"}},
		{"not JSON", "mean,scale\n1,2\n", []string{"not a JSON object"}},
		// Messages in JSON's terms, not Go's.
		{"a JSON array", []float64{1, 2}, []string{"is not a JSON object: it holds a JSON array"}},
		{"a name in the means", map[string]any{"columns": []string{"mean_radius"}, "mean_": []any{"a"}, "scale": []float64{1}}, []string{`"mean_" is not a list of numbers: it holds a JSON string`}},
		{"NaN, as Python writes it", `{"mean_radius": {"mean": NaN, "scale": 2}}`, []string{"JSON has no NaN"}},
		// The model computes in float32: these would make every input infinite.
		{"mean beyond float32", mean(1e39), []string{`column "mean_texture"`, `value "1e+39"`, "has a mean that is beyond the range of float32"}},
		{"scale below float32's normal numbers", scale(1e-40), []string{`column "mean_texture"`, `value "1e-40"`, "outside float32's normal numbers"}},
		{"scale beyond float32", scale(1e39), []string{`column "mean_texture"`, "outside float32's normal numbers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeJSON(t, tc.file)
			_, err := d.ReadScaler(path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, path, "fix:") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := d.ReadScaler(filepath.Join(t.TempDir(), "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a missing file: error %v", err)
	}
}
