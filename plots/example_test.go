package plots_test

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"log"
	"strings"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// A small explanation made by hand; real ones come from quce.Explainer.Explain.
func explanation() *quce.Explanation {
	path := &quce.Path{
		Points:      [][]float64{{0, 0, 0}, {0.5, -0.2, 0.1}, {1, -0.4, 0.1}},
		Probability: []float64{0.2, 0.45, 0.7},
		Uncertainty: []float64{3, 2.5, 2.2},
		ProbEnd:     0.7, Valid: true, Steps: 2,
		Attribution:      []float64{0.35, 0.1, 0.05},
		AttributionPlus:  []float64{0.01, -0.002, 0},
		AttributionMinus: []float64{-0.01, 0.003, 0},
	}
	return &quce.Explanation{
		Target: 1, ProbStart: 0.2, X: path.Points[0], Paths: []*quce.Path{path},
		Attribution: path.Attribution, AttributionStd: []float64{0, 0, 0},
		AttributionPlus: path.AttributionPlus, AttributionMinus: path.AttributionMinus,
	}
}

func ExampleAttribution() {
	svg, err := plots.Attribution(explanation(), []string{"radius", "texture", "smoothness"}, plots.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// In a notebook, display the bytes as SVG; elsewhere write them to a .svg file.
	fmt.Println(bytes.HasPrefix(svg, []byte("<?xml")), bytes.Contains(svg, []byte(">radius</text>")))
	// Output: true true
}

func ExamplePath() {
	// PNG output, at twice the default resolution; a nil scaler keeps standardised units.
	b, err := plots.Path(explanation(), []string{"radius", "texture", "smoothness"}, nil,
		plots.Options{TopK: 2, Format: plots.PNG, DPI: 192})
	if err != nil {
		log.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Width, "pixels wide")
	// Output: 1344 pixels wide
}

func ExampleEvaluation() {
	// Each method's results, in the order drawn, with its label and colour:
	// report.EvaluationTable makes such a table of an eval.Report, each method with its own.
	table := plots.MetricTable{
		{MethodStyle: plots.MethodStyle{Label: "QUCE", Color: color.RGBA{0x00, 0x72, 0xb2, 0xff}},
			Metrics: map[string]map[string]float64{"test": {"validity": 1, "proximity_l1": 21.5}}},
		{MethodStyle: plots.MethodStyle{Label: "IG", Color: color.RGBA{0xe6, 0x9f, 0x00, 0xff}},
			Metrics: map[string]map[string]float64{"test": {"validity": 0.4, "proximity_l1": 30.2}}},
	}
	svg, err := plots.Evaluation(table, []string{"validity", "proximity_l1"}, plots.Options{Title: "W-BC, test split"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(string(svg), ">QUCE</text>"), strings.Contains(string(svg), ">IG</text>"))

	_, err = plots.Evaluation(table, []string{"sparsity"}, plots.Options{})
	fmt.Println(err)
	// Output:
	// true true
	// plots: no method has the metric "sparsity"; fix: use one of proximity_l1, validity
}

func ExampleSweep() {
	points := []eval.SweepPoint{
		{Lambda: 0.01, Validity: 1, ProximityL1: 17.7, CFUncertainty: 6.3},
		{Lambda: 0.1, Validity: 1, ProximityL1: 21.5, CFUncertainty: 2.1},
		{Lambda: 1, Validity: 0.95, ProximityL1: 21.7, CFUncertainty: 1.8},
	}
	svg, err := plots.Sweep(points, "λ3", plots.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bytes.Contains(svg, []byte("λ3 (log scale)")))
	// Output: true
}
