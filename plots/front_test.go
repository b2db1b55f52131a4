package plots

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/quce-go/quce/quce"
)

func frontFixture() *quce.AutoChoice {
	return &quce.AutoChoice{
		Rule: quce.AutoRule, Bound: 12, Quantile: 0.9, Chosen: 2, Plausible: true,
		Candidates: []quce.Candidate{
			{Lambdas: quce.Lambdas{Lambda2: 0.01, Lambda3: 0.1}, Distance: 21, Uncertainty: 3, ProbEnd: 0.99, Valid: true},
			{Lambdas: quce.Lambdas{Lambda2: 0.1, Lambda3: 0.1}, Distance: 15, Uncertainty: 6, ProbEnd: 0.95, Valid: true},
			{Lambdas: quce.Lambdas{Lambda2: 1, Lambda3: 0.1}, Distance: 9, Uncertainty: 11, ProbEnd: 0.6, Valid: true},
			{Lambdas: quce.Lambdas{Lambda2: 3, Lambda3: 0.1}, Distance: 5, Uncertainty: 14, ProbEnd: 0.3, Valid: false},
		},
	}
}

func TestFront(t *testing.T) {
	b, err := Front(frontFixture(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	for _, want := range []string{"λ2 0.01, λ3 0.1", "λ2 3, λ3 0.1", "valid candidate", "invalid candidate", "chosen", "plausibility bound", "Chosen: λ2 1, λ3 0.1 (candidate 3 of 4)"} {
		if !doc.hasText(want) {
			t.Errorf("the front lacks %q", want)
		}
	}
	none := frontFixture()
	none.Plausible = false
	b, err = Front(none, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, tx := range parseSVG(t, b).Texts {
		all = append(all, tx.Text)
	}
	if !strings.Contains(strings.Join(all, " "), "No valid candidate was within the bound") {
		t.Error("an implausible choice is not said so")
	}
	for _, tc := range []struct {
		name string
		edit func(*quce.AutoChoice)
		want string
	}{
		{"no candidates", func(a *quce.AutoChoice) { a.Candidates = nil }, "nothing to draw"},
		{"chosen out of range", func(a *quce.AutoChoice) { a.Chosen = 4 }, "chosen candidate 4 of 4"},
		{"NaN distance", func(a *quce.AutoChoice) { a.Candidates[1].Distance = math.NaN() }, "candidate 2"},
		{"infinite bound", func(a *quce.AutoChoice) { a.Bound = math.Inf(1) }, "bound"},
	} {
		a := frontFixture()
		tc.edit(a)
		_, err := Front(a, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Front(nil, Options{}); !errors.Is(err, errEmpty) {
		t.Errorf("nil choice: %v", err)
	}
}
