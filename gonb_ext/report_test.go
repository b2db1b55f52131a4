package gonbext_test

import (
	"strings"
	"testing"

	gonbext "github.com/quce-go/quce/gonb_ext"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// A row already predicted as its target class is shown as such, without figures (it has no
// path); a column that ends unchanged with an attribution is marked in the table, with the
// note that explains the mark.
func TestExplanationSaysWhatHappened(t *testing.T) {
	s := pipelinetest.WBC(t)
	probs, err := s.Explainer.Predict(s.XTest[:1])
	if err != nil {
		t.Fatal(err)
	}
	q := quce.NewQuery(s.XTest[0])
	q.Target = quce.PredictedClass(probs[0], 0.5)
	cfg := quce.DefaultConfig()
	ex, err := gonbext.ExplainQueries(s, cfg, []quce.Query{q})
	if err != nil {
		t.Fatal(err)
	}
	html, err := gonbext.ExplanationHTML(s, ex[0], plots.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html, "already predicted") || strings.Contains(html, "<svg") {
		t.Errorf("already the target: %s", html)
	}

	g := pipelinetest.German(t)
	gex, err := gonbext.Explain(g, cfg, g.XTest[:2])
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for _, e := range gex {
		html, err := gonbext.ExplanationHTML(g, e, plots.Options{TopK: 20})
		if err != nil {
			t.Fatal(err)
		}
		n := strings.Count(html, " *</td>")
		if (n > 0) != strings.Contains(html, "the path moved this column and back") {
			t.Errorf("%d marked rows, and the note is missing or alone:\n%s", n, html)
		}
		marked += n
	}
	if marked == 0 {
		t.Error("no detour marked in two rows of German credit")
	}
}

// With several counterfactuals the notebook's table lists the others, with the columns each
// held and its changes, and each one's path follows, folded under its name.
func TestExplanationShowsOtherCounterfactuals(t *testing.T) {
	s := pipelinetest.WBC(t)
	cfg := quce.DefaultConfig()
	cfg.Steps, cfg.Counterfactuals = 300, 2
	ex, err := gonbext.Explain(s, cfg, s.XTest[:1])
	if err != nil {
		t.Fatal(err)
	}
	if len(ex[0].Counterfactuals) != 2 {
		t.Fatalf("%d counterfactuals, want 2", len(ex[0].Counterfactuals))
	}
	html, err := gonbext.ExplanationHTML(s, ex[0], plots.Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := s.Explainer.Columns()[ex[0].Counterfactuals[1].Held[0]].Name
	if !strings.Contains(html, "Other counterfactuals") || !strings.Contains(html, "<td>2</td><td>"+held+"</td>") {
		t.Errorf("no row of option 2 holding %s:\n%s", held, html)
	}
	if !strings.Contains(html, "<details><summary>Path of option 2: holds "+held+"</summary><div><svg") || strings.Count(html, "<svg") != 3 {
		t.Errorf("the path of option 2 holding %s is not the third figure, folded under its name:\n%s", held, html)
	}
}
