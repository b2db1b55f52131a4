package plots

import (
	"fmt"

	"github.com/quce-go/quce/quce"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Front draws the candidates automatic λ saw for one instance (quce.AutoChoice): each
// candidate's distance ‖x_c − x‖₁ against its counterfactual's uncertainty L_ε, valid ones
// filled and invalid ones hollow, each labelled with its (λ2, λ3), the plausibility bound as
// a dashed line and the chosen candidate as QUCE's star. It is the instance's
// proximity–uncertainty front, the paper's Proposition 2 made visible: a larger λ2 buys
// proximity with uncertainty. A candidate whose search failed has no point to draw: the
// note counts it.
func Front(a *quce.AutoChoice, o Options) ([]byte, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if a == nil || len(a.Candidates) == 0 {
		return nil, fmt.Errorf("%w: no candidates", errEmpty)
	}
	if a.Chosen < 0 || a.Chosen >= len(a.Candidates) {
		return nil, fmt.Errorf("plots: chosen candidate %d of %d; fix: pass the AutoChoice as the explainer made it", a.Chosen, len(a.Candidates))
	}
	if err := checkFinite("bound", a.Bound); err != nil {
		return nil, err
	}
	if c := a.Candidates[a.Chosen]; c.Failure != "" {
		return nil, fmt.Errorf("%w: the chosen candidate's search failed (%s)", ErrFailed, c.Failure)
	}
	var valid, invalid plotter.XYs
	labels := plotter.XYLabels{}
	failed := 0
	for i, c := range a.Candidates {
		if c.Failure != "" {
			failed++ // no counterfactual to place
			continue
		}
		if err := checkFinite(fmt.Sprintf("candidate %d (distance, uncertainty)", i+1), c.Distance, c.Uncertainty); err != nil {
			return nil, err
		}
		pt := plotter.XY{X: c.Distance, Y: c.Uncertainty}
		if c.Valid {
			valid = append(valid, pt)
		} else {
			invalid = append(invalid, pt)
		}
		labels.XYs = append(labels.XYs, pt)
		labels.Labels = append(labels.Labels, fmt.Sprintf("λ2 %.4g, λ3 %.4g", c.Lambda2, c.Lambda3))
	}
	chosen := a.Candidates[a.Chosen]
	p := newPanel()
	p.X.Label.Text = "distance ‖x_c − x‖₁ (standardised)"
	p.Y.Label.Text = "uncertainty L_ε(x_c)"
	validMarks := marker(valid, draw.CircleGlyph{}, blue, vg.Points(3.5))
	invalidMarks := marker(invalid, draw.RingGlyph{}, grey, vg.Points(3.5))
	star := marker(plotter.XYs{{X: chosen.Distance, Y: chosen.Uncertainty}}, starGlyph{}, blue, vg.Points(7))
	text, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, err
	}
	for i := range text.TextStyle {
		text.TextStyle[i].Font = sans(8)
		text.TextStyle[i].XAlign = draw.XLeft
	}
	text.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(2)}
	p.Add(plotter.NewGrid())
	// The bound spans the data's distances, padded like the axes.
	lo, hi := labels.XYs[0].X, labels.XYs[0].X
	for _, pt := range labels.XYs {
		lo, hi = min(lo, pt.X), max(hi, pt.X)
	}
	span := max(hi-lo, 1e-9)
	bound := line(plotter.XYs{{X: lo - 0.1*span, Y: a.Bound}, {X: hi + 0.4*span, Y: a.Bound}}, darkGrey, vg.Points(1), vg.Points(4), vg.Points(3))
	p.Add(bound, validMarks, invalidMarks, star, text)
	pad(&p.Y, 0.08)
	legend := []legendItem{
		{"valid candidate", []plot.Thumbnailer{validMarks}},
		{"invalid candidate", []plot.Thumbnailer{invalidMarks}},
		{"chosen", []plot.Thumbnailer{star}},
		{"plausibility bound", []plot.Thumbnailer{bound}},
	}
	auto := fmt.Sprintf("Chosen: λ2 %.4g, λ3 %.4g (candidate %d of %d). Rule: %s. Bound: L_ε ≤ %.3g", chosen.Lambda2, chosen.Lambda3, a.Chosen+1, len(a.Candidates), quce.AutoRule, a.Bound)
	if a.Quantile > 0 {
		auto += fmt.Sprintf(", the %g quantile over the training rows", a.Quantile)
	}
	auto += "."
	if !a.Plausible {
		auto += " No valid candidate was within the bound."
	}
	if failed > 0 {
		auto += fmt.Sprintf(" %d of %d candidates failed and are not drawn.", failed, len(a.Candidates))
	}
	f := &figure{
		title:  o.title("Automatic λ: proximity against uncertainty of the candidates"),
		legend: legend,
		cols:   1,
		panels: []*plot.Plot{p},
		note:   o.note(auto),
	}
	return render(f, o, 3.2*vg.Inch)
}
