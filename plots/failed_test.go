package plots

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// A path that failed (quce.Path.Failure: its figures are NaN) is left out of the figures
// that average over paths, with a note; a figure of a failed path, or of a chosen candidate
// that failed, is refused with ErrFailed rather than drawn from NaN.
func TestFailedPathsAreLeftOut(t *testing.T) {
	nan := math.NaN()
	ex, names := fixture(5, 3, 10)
	p := ex.Paths[1]
	p.Failure, p.Valid, p.ProbEnd = "diverged at step 4 (…); fix: …", false, nan
	for j := range p.Attribution {
		p.Attribution[j], p.AttributionPlus[j], p.AttributionMinus[j] = nan, nan, nan
	}
	for name, draw := range map[string]func() ([]byte, error){
		"Paths":       func() ([]byte, error) { return Paths(ex, names, Options{}) },
		"Attribution": func() ([]byte, error) { return Attribution(ex, names, Options{}) },
	} {
		b, err := draw()
		if err != nil {
			t.Fatalf("%s with one of 3 paths failed: %v", name, err)
		}
		var all []string
		for _, tx := range parseSVG(t, b).Texts {
			all = append(all, tx.Text)
		}
		text := strings.Join(all, " ")
		if strings.Contains(text, "NaN") {
			t.Errorf("%s draws NaN", name)
		}
		if name == "Paths" && !strings.Contains(text, "1 failed and left out") {
			t.Errorf("the exQUCE figure does not say a path was left out: %s", text)
		}
	}

	// The path from x failed: nothing of it to draw.
	ex0, _ := fixture(5, 1, 10)
	ex0.Paths[0].Failure = "diverged at step 1 (…); fix: …"
	for j := range ex0.Attribution {
		ex0.Attribution[j] = nan
	}
	if _, err := Path(ex0, names, nil, Options{}); !errors.Is(err, ErrFailed) {
		t.Errorf("Path of a failed path: %v; want ErrFailed", err)
	}
	if _, err := Attribution(ex0, names, Options{}); !errors.Is(err, ErrFailed) {
		t.Errorf("Attribution with every path failed: %v; want ErrFailed", err)
	}

	// Automatic λ: a failed candidate is not drawn, but counted; a failed choice is refused.
	a := frontFixture()
	a.Candidates[3].Failure = "diverged at step 2 (…); fix: …"
	a.Candidates[3].Distance, a.Candidates[3].Uncertainty, a.Candidates[3].ProbEnd = nan, nan, nan
	b, err := Front(a, Options{})
	if err != nil {
		t.Fatalf("Front with a failed candidate: %v", err)
	}
	var all []string
	for _, tx := range parseSVG(t, b).Texts {
		all = append(all, tx.Text)
	}
	if text := strings.Join(all, " "); !strings.Contains(text, "1 of 4 candidates failed and are not drawn") || strings.Contains(text, "λ2 3, λ3 0.1") {
		t.Errorf("the front draws the failed candidate, or does not count it: %s", text)
	}
	a.Chosen = 3
	if _, err := Front(a, Options{}); !errors.Is(err, ErrFailed) {
		t.Errorf("Front with a failed choice: %v; want ErrFailed", err)
	}
}
