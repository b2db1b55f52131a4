package plots

import (
	"image/color"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
)

// allText is the SVG's texts joined by spaces (a wrapped note reads as one).
func (d svgDoc) allText() string {
	parts := make([]string, len(d.Texts))
	for i, tx := range d.Texts {
		parts[i] = tx.Text
	}
	return strings.Join(parts, " ")
}

// A feature that ends unchanged but has an attribution (quce.Explanation.Detours) is marked
// by its name, and the note says why it has one; without Unchanged nothing is marked.
func TestAttributionMarksDetours(t *testing.T) {
	for _, tc := range []struct {
		name   string
		marked bool
	}{{"unchanged given", true}, {"no Unchanged", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ex, names := fixture(5, 3, 10)
			if tc.marked {
				ex.Unchanged = make([]bool, 5)
				ex.Unchanged[3] = true
			}
			for _, draw := range []func() ([]byte, error){
				func() ([]byte, error) { return Attribution(ex, names, Options{}) },
				func() ([]byte, error) { return Paths(ex, names, Options{}) },
			} {
				b, err := draw()
				if err != nil {
					t.Fatal(err)
				}
				doc := parseSVG(t, b)
				text := doc.allText()
				if got := len(doc.find(names[3] + detourMark)); got != map[bool]int{true: 1, false: 0}[tc.marked] {
					t.Errorf("%d labels %q", got, names[3]+detourMark)
				}
				if strings.Contains(text, "Unchanged at the counterfactual: the path moved it and back") != tc.marked {
					t.Errorf("the note's account of the mark is wrong:\n%s", text)
				}
			}
		})
	}
	ex, names := fixture(5, 1, 10)
	ex.Unchanged = make([]bool, 4)
	if _, err := Attribution(ex, names, Options{}); err == nil {
		t.Error("an Unchanged of the wrong length gave no error")
	}
}

// A zero Φ± (a frozen feature's: ε = 0 there) draws no bar, and a zero spread over paths no
// error bar.
func TestZeroUncertaintyDrawsNoBar(t *testing.T) {
	ex, names := fixture(5, 3, 10)
	ex.AttributionPlus[2], ex.AttributionMinus[2] = 0, 0
	b, err := Attribution(ex, names, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	for what, c := range map[string]color.Color{"Φ+": skyBlue, "Φ−": darkGrey} {
		if got := doc.fills(c); got != 5 { // 4 features and the legend
			t.Errorf("%d %s bars with the legend's, want 5", got, what)
		}
	}
	before, err := Paths(ex, names, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ex.AttributionStd[2] = 0
	after, err := Paths(ex, names, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, m := len(parseSVG(t, before).PathStyles), len(parseSVG(t, after).PathStyles); m >= n {
		t.Errorf("a zero spread still draws its error bar: %d paths, %d with the spread", m, n)
	}
}

// The path's note gives x's values and the counterfactual's without float32 noise: a feature
// at 0 in the data stays "0" (not "-2.033e-08"), whether it ends unchanged (said once, and
// marked as moved and back when it has an attribution) or moves to 0.
func TestPathNoteHasNoFloatNoise(t *testing.T) {
	ex, names := fixture(5, 1, 10)
	scaler := &data.Scaler{Mean: []float64{0.0888, 0.5, 0.5, 0.5, 0.0888}, Std: []float64{0.0797, 1, 1, 1, 0.0797}}
	orig := []float64{0, 1, 2, 3, 0.05}
	ex.X = scaler.TransformRow(orig)
	ex.XOriginal = scaler.InverseRow(ex.X)
	p := ex.Paths[0]
	last := len(p.Points) - 1
	for s, pt := range p.Points {
		t := float64(s) / float64(last)
		pt[0] = float64(float32(ex.X[0])) // leaves 0 and comes back
		if s > 0 && s < last {
			pt[0] += 0.5
		}
		pt[4] = float64(float32(ex.X[4] + t*(ex.X[0]-ex.X[4]))) // 0.05 → 0
	}
	p.Counterfactual = p.Points[last]
	p.Attribution[0], p.Attribution[4] = 0.5, 0.45 // the top two
	ex.Attribution = p.Attribution
	ex.Unchanged = []bool{true, false, false, false, false}
	if v := scaler.InverseRow(p.Points[last])[0]; v == 0 {
		t.Fatalf("the fixture has no float32 noise to hide (%v)", v)
	}
	b, err := Path(ex, names, scaler, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := parseSVG(t, b).allText()
	for _, want := range []string{names[0] + ": unchanged at 0 (moved and back), Φ = 0.5", names[4] + ": 0.05 → 0, Φ = 0.45"} {
		if !strings.Contains(text, want) {
			t.Errorf("the note lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "e-0") || strings.Contains(text, "e-1") {
		t.Errorf("the note shows float noise:\n%s", text)
	}
}
