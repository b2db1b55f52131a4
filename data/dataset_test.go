package data

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestWBC(t *testing.T) {
	d := WBC()
	if d.Rows() != 569 || d.NumFeatures() != 30 || len(d.Y) != 569 {
		t.Fatalf("WBC is %dx%d with %d labels, want 569x30", d.Rows(), d.NumFeatures(), len(d.Y))
	}
	ones := 0
	for _, y := range d.Y {
		ones += y
	}
	if ones != 357 {
		t.Errorf("WBC has %d benign (1) rows, want 357", ones)
	}
	if d.Name != "wbc (embedded)" || d.Target != "target" || !slices.Equal(d.Labels, []string{"malignant", "benign"}) || d.NumClasses() != 2 {
		t.Errorf("Name, Target, Labels = %q, %q, %q", d.Name, d.Target, d.Labels)
	}
	if d.Features[0] != "mean_radius" || d.Features[29] != "worst_fractal_dimension" {
		t.Errorf("Features = %q ... %q", d.Features[0], d.Features[29])
	}
	for _, f := range d.Features {
		if strings.ContainsAny(f, " \t") {
			t.Errorf("feature name %q contains a space", f)
		}
	}
	if d.X[0][0] != 17.99 || d.Y[0] != 0 {
		t.Errorf("first row starts %v with label %d, want 17.99 and 0", d.X[0][0], d.Y[0])
	}
	const sum = "9b9e3a2fe53a2264f7e756aff00ab883450186c47bfb2027b4d90ca51d23347d"
	if d.Checksum != sum {
		t.Errorf("Checksum = %s, want %s", d.Checksum, sum)
	}
	for i, row := range d.X {
		if len(row) != 30 {
			t.Fatalf("row %d has %d values", i, len(row))
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("row %d has %v", i, v)
			}
		}
	}

	// Every call returns an independent deep copy.
	d.X[0][0] = -1
	d.Y[0] = 7
	d.Features[0] = "changed"
	d.Labels[0] = "changed"
	e := WBC()
	if e.X[0][0] != 17.99 || e.Y[0] != 0 || e.Features[0] != "mean_radius" || e.Labels[0] != "malignant" {
		t.Errorf("modifying one WBC() result changed another")
	}
}

func TestSubset(t *testing.T) {
	d := &Dataset{
		Name:     "s",
		Features: []string{"a", "b"},
		X:        [][]float64{{1, 2}, {3, 4}, {5, 6}},
		Y:        []int{0, 1, 1},
		Labels:   []string{"n", "p"},
		Target:   "t",
		Checksum: "abc",
	}
	s := d.Subset([]int{2, 0, 2})
	want := &Dataset{
		Name:     "s",
		Features: []string{"a", "b"},
		X:        [][]float64{{5, 6}, {1, 2}, {5, 6}},
		Y:        []int{1, 0, 1},
		Labels:   []string{"n", "p"},
		Target:   "t",
		Checksum: "abc",
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("Subset = %+v, want %+v", s, want)
	}
	s.X[0][0] = 99
	s.Features[0] = "z"
	s.Labels[0] = "z"
	if d.X[2][0] != 5 || d.Features[0] != "a" || d.Labels[0] != "n" {
		t.Errorf("Subset shares memory with the original")
	}
	if e := d.Subset(nil); e.Rows() != 0 || e.NumFeatures() != 2 {
		t.Errorf("empty Subset: %d rows, %d features", e.Rows(), e.NumFeatures())
	}
	// Appending to a subset row must not overwrite the next row.
	s2 := d.Subset([]int{0, 1})
	_ = append(s2.X[0], 42)
	if s2.X[1][0] != 3 {
		t.Errorf("rows of a subset overlap")
	}
}
