package eval_test

import (
	"image/color"
	"strings"
	"testing"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/report"
)

// A method registered as its file would register it is drawn in the evaluation plot with its
// own label and colour, in its place among the others: plots and report need nothing of it.
func TestRegisteredMethodIsDrawn(t *testing.T) {
	defer eval.RegisterForTest("growing-spheres", "Growing Spheres", color.RGBA{0x12, 0x34, 0x56, 0xff}, 35)()
	r := &eval.Report{Metrics: map[eval.Method]map[string]map[string]float64{}}
	for i, m := range eval.DefaultMethods() {
		r.Metrics[m] = map[string]map[string]float64{eval.Test: {eval.Validity: 0.5 + 0.05*float64(i)}}
	}
	svg, err := plots.Evaluation(report.EvaluationTable(r), nil, plots.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := string(svg)
	if !strings.Contains(doc, "fill:#123456") {
		t.Error("no bar in the registered method's colour")
	}
	at := func(label string) int { return strings.Index(doc, ">"+label+"</text>") }
	ig, gs, agi := at("IG"), at("Growing Spheres"), at("AGI")
	if gs < 0 || !(ig < gs && gs < agi) {
		t.Errorf("legend entries IG at %d, Growing Spheres at %d, AGI at %d; want Growing Spheres between the others", ig, gs, agi)
	}
}
