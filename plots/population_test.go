package plots

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/population"
	"github.com/quce-go/quce/quce"
)

// summaryFixture is the summary of 60 hand-made explanations of 8 continuous columns in
// three groups (rent, own, for free): column j is changed by the counterfactuals of rows i
// with i mod (j+1) = 0, so column 0 always and column 7 in one row in 8; group "for free"
// costs more; every fifth row is not valid.
func summaryFixture() *population.Summary {
	const n, k = 60, 8
	cols := make([]data.Column, k)
	for j := range cols {
		cols[j] = data.Column{Name: fmt.Sprintf("column_%d", j), Type: data.Continuous, Start: j, Width: 1}
	}
	groups := []string{"rent", "own", "for free"}
	in := population.Input{Columns: cols, GroupOrder: groups}
	for i := range n {
		x, xc, attr := make([]float64, k), make([]float64, k), make([]float64, k)
		for j := range k {
			if i%(j+1) == 0 {
				xc[j] = float64(1+i%3) * 0.5 * float64(1+i%4)
				attr[j] = 0.1 / float64(j+1)
			}
		}
		p := &quce.Path{Counterfactual: xc, CounterfactualOriginal: xc, Valid: i%5 != 4, Attribution: attr,
			AttributionPlus: make([]float64, k), AttributionMinus: make([]float64, k), Epsilon: make([]float64, k), CFUncertainty: float64(i % 7)}
		in.Explanations = append(in.Explanations, &quce.Explanation{X: x, XOriginal: x, Paths: []*quce.Path{p},
			Attribution: attr, AttributionPlus: p.AttributionPlus, AttributionMinus: p.AttributionMinus})
		in.Groups = append(in.Groups, groups[i%3])
	}
	s, err := population.Summarise(in, population.Options{Seed: 1, Bootstrap: 200, Permutations: 200})
	if err != nil {
		panic(err)
	}
	return s
}

// The population pictures name the columns and groups, order the columns by how often they
// change, and put the figures in the note, not the title.
func TestRecoursePictures(t *testing.T) {
	s := summaryFixture()
	b, err := RecourseColumns(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	var names []svgText
	for j := range 8 {
		found := doc.find(fmt.Sprintf("column_%d", j))
		if len(found) != 1 {
			t.Fatalf("column_%d named %d times", j, len(found))
		}
		names = append(names, found[0])
	}
	// Most often changed at the top (SVG's y grows downwards): column 0, then 1, ...
	if !sort.SliceIsSorted(names, func(a, b int) bool { return names[a].Y < names[b].Y }) {
		t.Errorf("the columns are not in order of how often they change: %+v", names)
	}
	if !doc.hasText("100%") || !strings.Contains(noteText(doc), "Over the 48 valid counterfactuals of 60 searched rows") {
		t.Errorf("the bars lack their shares, or the note its counts: %q", noteText(doc))
	}

	b, err = RecourseCost(s, "housing", Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc = parseSVG(t, b)
	for _, g := range []string{"rent (16 of 20 valid)", "own (16 of 20 valid)", "for free (16 of 20 valid)"} {
		if !doc.hasText(g) {
			t.Errorf("the cost picture lacks the group label %q", g)
		}
	}
	if !doc.hasText("The cost of recourse by housing") || !strings.Contains(noteText(doc), "L1 for free − rest = ") {
		t.Errorf("title or note lacks the grouping or the test: %q", noteText(doc))
	}

	b, err = RecourseGroups(s, "housing", Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc = parseSVG(t, b)
	if !doc.hasText("for free") || !doc.hasText("16 valid") || !doc.hasText("100%") {
		t.Errorf("the heat map lacks its groups or shares")
	}

	s.Groups = nil
	if _, err := RecourseGroups(s, "", Options{}); !errors.Is(err, errEmpty) {
		t.Errorf("a heat map without groups: error %v", err)
	}
	if _, err := RecourseCost(s, "", Options{}); err != nil {
		t.Errorf("the cost of all rows without groups: %v", err)
	}
	if _, err := RecourseColumns(nil, Options{}); !errors.Is(err, errEmpty) {
		t.Errorf("no summary: error %v", err)
	}
}
