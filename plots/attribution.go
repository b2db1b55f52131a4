package plots

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/quce-go/quce/quce"
)

// rowHeight is the height of one feature's row: room for a 9 pt name with a gap.
const rowHeight = 0.22 * vg.Inch

// Attribution draws the paper's Figure 1 for one explanation: one row per feature, the
// largest |attribution| at the top. The left panel holds the attribution Φ along the path
// from x to its counterfactual x_c; the right panel, on its own scale since the two are
// often orders of magnitude apart, holds the uncertainty attributions Φ+ (x_c → x_c + ε)
// and Φ− (x_c → x_c − ε). With several paths these are exQUCE's means. The note gives x's
// predicted class and the target probability at x and at the counterfactual (the paths'
// mean), with the classes named by o.Classes.
//
// features names the features (nil: "feature 1", ...). o.TopK limits the rows (default
// all); the default height grows with the rows so names never overlap.
func Attribution(ex *quce.Explanation, features []string, o Options) ([]byte, error) {
	names, err := checkExplanation(ex, features, o)
	if err != nil {
		return nil, err
	}
	if err := checkVector("AttributionPlus", ex.AttributionPlus, len(names)); err != nil {
		return nil, err
	}
	if err := checkVector("AttributionMinus", ex.AttributionMinus, len(names)); err != nil {
		return nil, err
	}
	rows := rankByMagnitude(ex.Attribution, o.topK(len(names), len(names)))
	names, detours := markDetours(ex, names, rows)

	phi := &bars{values: byRow(ex.Attribution, rows), thickness: 0.6, horizontal: true, color: blue}
	plus := &bars{values: byRow(ex.AttributionPlus, rows), offset: 0.17, thickness: 0.32, horizontal: true, color: skyBlue}
	minus := &bars{values: byRow(ex.AttributionMinus, rows), offset: -0.17, thickness: 0.32, horizontal: true, color: darkGrey}

	left := featurePanel(names, rows, true)
	left.Add(phi, zeroLine(len(rows)))
	left.X.Label.Text = "attribution Φ (probability)"
	setRows(left, len(rows))
	pad(&left.X, 0.04)

	right := featurePanel(names, rows, false)
	right.Add(plus, minus, zeroLine(len(rows)))
	right.X.Label.Text = "uncertainty attribution Φ± (probability)"
	setRows(right, len(rows))
	pad(&right.X, 0.04)

	auto := "QUCE attribution of %s along the path from x to its counterfactual"
	if len(ex.Paths) > 1 {
		auto = "exQUCE attribution of %s, the mean over paths to counterfactuals"
	}
	f := &figure{
		title: o.title(fmt.Sprintf(auto, prob(o, ex, "·"))),
		note:  o.note(explanationNote(o, ex, len(rows), len(names)) + detours),
		legend: []legendItem{
			{"Φ: along the path x → x_c", []plot.Thumbnailer{phi}},
			{"Φ+: x_c → x_c + ε", []plot.Thumbnailer{plus}},
			{"Φ−: x_c → x_c − ε", []plot.Thumbnailer{minus}},
		},
		cols:   2,
		panels: []*plot.Plot{left, right},
	}
	return render(f, o, rowsHeight(len(rows)))
}

// Paths draws exQUCE's expected attribution over an explanation's paths: per feature the
// mean Φ as a bar, ± one standard deviation across paths as an error bar, and each path's
// Φ as a faint dot (spread vertically within the row, in path order). Rows and o.TopK are
// as in Attribution.
func Paths(ex *quce.Explanation, features []string, o Options) ([]byte, error) {
	names, err := checkExplanation(ex, features, o)
	if err != nil {
		return nil, err
	}
	if err := checkVector("AttributionStd", ex.AttributionStd, len(names)); err != nil {
		return nil, err
	}
	for i, p := range ex.Paths {
		if p.Failure != "" {
			continue
		}
		if err := checkVector(fmt.Sprintf("Paths[%d].Attribution", i), p.Attribution, len(names)); err != nil {
			return nil, err
		}
	}
	rows := rankByMagnitude(ex.Attribution, o.topK(len(names), len(names)))
	names, detours := markDetours(ex, names, rows)
	// Only the paths that did not fail have an attribution; the others are counted in the note.
	done := ex.Completed()
	k, m := len(rows), len(done)

	mean := &bars{values: byRow(ex.Attribution, rows), thickness: 0.6, horizontal: true, color: blue}
	// A feature whose Φ is the same on every path (a frozen one) gets no error bar.
	spread := &plotter.XErrorBars{LineStyle: draw.LineStyle{Color: black, Width: vg.Points(1.2)}, CapWidth: vg.Points(5)}
	var dots plotter.XYs
	for c, f := range rowFeatures(rows) {
		if sd := ex.AttributionStd[f]; sd > 0 {
			spread.XYs = append(spread.XYs, plotter.XY{X: ex.Attribution[f], Y: float64(c)})
			spread.XErrors = append(spread.XErrors, struct{ Low, High float64 }{sd, sd})
		}
		for i, p := range done {
			y := float64(c)
			if m > 1 {
				y += 0.5 * (float64(i)/float64(m-1) - 0.5)
			}
			dots = append(dots, plotter.XY{X: p.Attribution[f], Y: y})
		}
	}
	single := marker(dots, draw.CircleGlyph{}, fade(black, 0.4), vg.Points(1.6))

	p := featurePanel(names, rows, true)
	p.Add(mean, zeroLine(k), single)
	if len(spread.XYs) > 0 {
		p.Add(spread)
	}
	p.X.Label.Text = "attribution Φ (probability)"
	setRows(p, k)
	pad(&p.X, 0.04)

	valid := 0
	for _, p := range ex.Paths {
		if p.Valid {
			valid++
		}
	}
	count := fmt.Sprintf("%d paths, %d valid (%.0f%%)", len(ex.Paths), valid, 100*ex.ValidRate())
	if failed := len(ex.Paths) - m; failed > 0 {
		count += fmt.Sprintf(", %d failed and left out", failed)
	}
	f := &figure{
		title: o.title(fmt.Sprintf("exQUCE: expected attribution of %s over many paths", prob(o, ex, "·"))),
		note:  o.note(explanationNote(o, ex, k, len(names), count) + detours),
		legend: []legendItem{
			{fmt.Sprintf("mean Φ over the %d paths", m), []plot.Thumbnailer{mean}},
			{"± 1 standard deviation", []plot.Thumbnailer{line(nil, black, vg.Points(1.2))}},
			{"Φ of one path", []plot.Thumbnailer{marker(nil, draw.CircleGlyph{}, fade(black, 0.6), vg.Points(2))}},
		},
		cols:   1,
		panels: []*plot.Plot{p},
	}
	return render(f, o, rowsHeight(k))
}

// checkExplanation checks what every explanation plot needs: paths, an attribution with
// finite values, a finite start probability and options that make sense. It returns the
// feature names.
func checkExplanation(ex *quce.Explanation, features []string, o Options) ([]string, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if ex == nil || len(ex.Paths) == 0 || len(ex.Attribution) == 0 {
		return nil, fmt.Errorf("%w: the explanation has no paths or no attribution", errEmpty)
	}
	for i, p := range ex.Paths {
		if p == nil {
			return nil, fmt.Errorf("plots: the explanation's path %d is nil", i)
		}
		if p.Failure != "" {
			continue // a failed path has no figures, and is left out (see quce.Path.Failure)
		}
		if err := checkFinite(fmt.Sprintf("Paths[%d].ProbEnd", i), p.ProbEnd); err != nil {
			return nil, err
		}
	}
	if len(ex.Completed()) == 0 {
		return nil, fmt.Errorf("%w: every path of the explanation failed (%s)", ErrFailed, ex.Path0().Failure)
	}
	if err := checkFinite("ProbStart", ex.ProbStart); err != nil {
		return nil, err
	}
	if err := checkFinite("Attribution", ex.Attribution...); err != nil {
		return nil, err
	}
	if ex.Unchanged != nil && len(ex.Unchanged) != len(ex.Attribution) {
		return nil, fmt.Errorf("plots: Unchanged has %d values for %d features; fix: pass an explanation and its ByColumn form whole", len(ex.Unchanged), len(ex.Attribution))
	}
	return featureNames(features, len(ex.Attribution))
}

// detourMark follows the name of a feature that ends unchanged yet has an attribution.
const detourMark = " *"

// markDetours marks the names of the shown rows that are detours (quce.Explanation.Detours:
// unchanged at the counterfactual, with an attribution) and returns the sentence that the
// note then needs, with its leading line break, or "".
func markDetours(ex *quce.Explanation, names []string, rows []int) ([]string, string) {
	detours := ex.Detours()
	if detours == nil {
		return names, ""
	}
	out := append([]string(nil), names...)
	marked := false
	for _, f := range rows {
		if detours[f] {
			out[f] += detourMark
			marked = true
		}
	}
	if !marked {
		return names, ""
	}
	return out, "\n" + strings.TrimSpace(detourMark) + " Unchanged at the counterfactual: the path moved it and back, so its Φ is what that detour contributed, not a change to make."
}

// checkVector checks that v has n finite values.
func checkVector(what string, v []float64, n int) error {
	if err := checkLen(what, v, n); err != nil {
		return err
	}
	return checkFinite(what, v...)
}

// meanProbEnd is the mean target probability at the counterfactuals of the paths that did
// not fail.
func meanProbEnd(ex *quce.Explanation) float64 {
	done := ex.Completed()
	s := 0.0
	for _, p := range done {
		s += p.ProbEnd
	}
	return s / float64(len(done))
}

// prob is the target probability of an explanation at the point at, F(benign | x), its
// class named by o.
func prob(o Options, ex *quce.Explanation, at string) string {
	return fmt.Sprintf("F(%s | %s)", o.class(ex.Target), at)
}

// explanationNote says what an attribution figure's title leaves out, after first: x's
// predicted class, the target probability at x and at the counterfactual (the paths' mean)
// and, when only k of the n features are shown, so.
func explanationNote(o Options, ex *quce.Explanation, k, n int, first ...string) string {
	parts := first
	if len(ex.Probabilities) > 0 { // a real explanation; hand-made ones may leave it out
		parts = append(parts, "the instance x is predicted "+o.class(ex.PredictedClass))
	}
	end := "at the counterfactual"
	if len(ex.Paths) > 1 {
		end = "at the counterfactuals (mean)"
	}
	parts = append(parts, fmt.Sprintf("%s = %.3f → %.3f %s", prob(o, ex, "x"), ex.ProbStart, meanProbEnd(ex), end))
	if k < n {
		parts = append(parts, fmt.Sprintf("top %d of %d features by |Φ|", k, n))
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// rowFeatures maps the rows of a feature panel, bottom first, to features: rows are ranked
// largest first and the largest goes at the top.
func rowFeatures(rows []int) []int {
	out := make([]int, len(rows))
	for c := range out {
		out[c] = rows[len(rows)-1-c]
	}
	return out
}

// byRow is v's values on the rows of a feature panel, bottom first.
func byRow(v []float64, rows []int) []float64 {
	out := make([]float64, len(rows))
	for c, f := range rowFeatures(rows) {
		out[c] = v[f]
	}
	return out
}

// featurePanel is a panel with one row per ranked feature on a zebra background, named
// on the y axis when named is true.
func featurePanel(names []string, rows []int, named bool) *plot.Plot {
	p := newPanel()
	p.Add(zebra(len(rows)))
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	p.Add(grid)
	labels := make([]string, len(rows))
	if named {
		for c, f := range rowFeatures(rows) {
			labels[c] = names[f]
		}
	}
	p.NominalY(labels...)
	return p
}

// setRows fixes the y axis to n rows, after everything is added.
func setRows(p *plot.Plot, n int) {
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
}

// rowsHeight is the height for the panels of n feature rows with their x axis.
func rowsHeight(n int) vg.Length {
	return vg.Length(n)*rowHeight + 0.7*vg.Inch
}

// zebra shades every other one of n rows, to guide the eye along a row.
type zebra int

// Plot implements plot.Plotter.
func (n zebra) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	for r := 1; r < int(n); r += 2 {
		y0, y1 := trY(float64(r)-0.5), trY(float64(r)+0.5)
		c.FillPolygon(zebraColor, c.ClipPolygonY([]vg.Point{
			{X: c.Min.X, Y: y0}, {X: c.Max.X, Y: y0}, {X: c.Max.X, Y: y1}, {X: c.Min.X, Y: y1},
		}))
	}
}

// zebraColor is a grey light enough to sit behind any mark.
var zebraColor = color.RGBA{0xf0, 0xf0, 0xf0, 0xff}

// zeroLine marks zero on the value axis of n feature rows.
func zeroLine(n int) *plotter.Line {
	return line(plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(n) - 0.5}}, black, vg.Points(0.7))
}
