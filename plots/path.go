package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// panelHeight is the height of one panel in a stack of panels.
const panelHeight = 1.25 * vg.Inch

// Path draws the QUCE path of an explanation (its first path, which starts exactly at x;
// the title says when its search held columns, as a further counterfactual's did)
// against the optimisation step: one panel per top feature (ranked by |Φ| on that path,
// default 4), titled with its name, with its value in original units, then the target
// probability F(class | ·) (the class named by o.Classes) and the VAE uncertainty L_ε along
// the path. The note gives the steps, the probability at both ends, whether the
// counterfactual is valid and each feature's values at both ends with its Φ. With a scaler
// the values are in original units (the path's PointsOriginal, or the scaler's inverse of
// its points when it has none); with a nil scaler they stay standardised. The default height grows with the panels; a height given in o that has
// no room for the default 4 feature panels gets as many as fit.
func Path(ex *quce.Explanation, features []string, scaler *data.Scaler, o Options) ([]byte, error) {
	names, err := checkExplanation(ex, features, o)
	if err != nil {
		return nil, err
	}
	p0 := ex.Path0()
	n := len(names)
	if p0.Failure != "" {
		return nil, fmt.Errorf("%w: the path from x failed (%s)", ErrFailed, p0.Failure)
	}
	if len(p0.Points) < 2 {
		return nil, fmt.Errorf("%w: the path has %d points", errEmpty, len(p0.Points))
	}
	for _, v := range []struct {
		what string
		v    []float64
	}{{"Probability", p0.Probability}, {"Uncertainty", p0.Uncertainty}} {
		if len(v.v) != len(p0.Points) {
			return nil, fmt.Errorf("plots: the path has %d points and %d values of %s", len(p0.Points), len(v.v), v.what)
		}
		if err := checkFinite("Path0()."+v.what, v.v...); err != nil {
			return nil, err
		}
	}
	if err := checkVector("Path0().Attribution", p0.Attribution, n); err != nil {
		return nil, err
	}
	if scaler != nil && (len(scaler.Mean) != n || len(scaler.Std) != n) {
		return nil, fmt.Errorf("plots: the scaler has %d features and the explanation %d; fix: pass the scaler fitted with the models", len(scaler.Mean), n)
	}
	points := make([][]float64, len(p0.Points))
	for s, pt := range p0.Points {
		if err := checkVector(fmt.Sprintf("Path0().Points[%d]", s), pt, n); err != nil {
			return nil, err
		}
		points[s] = pt
		switch {
		case scaler != nil && len(p0.PointsOriginal) == len(p0.Points):
			points[s] = p0.PointsOriginal[s] // exact: an unchanged value is the instance's own
		case scaler != nil:
			points[s] = scaler.InverseRow(pt)
		}
	}
	unit := "original units"
	if scaler == nil {
		unit = "standardised"
	}
	// The note's values: x's own (its original values when known, exact where the path's
	// float32 points are not) and the counterfactual's, or "unchanged" once.
	start, scale := points[0], make([]float64, n)
	for f := range scale {
		scale[f] = 1
		if scaler != nil {
			scale[f] = scaler.Std[f]
		}
	}
	switch {
	case scaler != nil && len(ex.XOriginal) == n:
		start = ex.XOriginal
	case scaler == nil && len(ex.X) == n:
		start = ex.X
	}
	detours := ex.Detours()
	move := func(f int) string {
		last := len(p0.Points) - 1
		if p0.Points[0][f] != p0.Points[last][f] {
			return fmt.Sprintf("%s: %s → %s", names[f], value(start[f], scale[f]), value(points[last][f], scale[f]))
		}
		text := fmt.Sprintf("%s: unchanged at %s", names[f], value(start[f], scale[f]))
		if detours != nil && detours[f] {
			text += " (moved and back)"
		}
		return text
	}

	// The kept points may be a subsample: Step gives each one's place on the path.
	steps := make([]float64, len(points))
	for s := range steps {
		steps[s] = float64(s)
		if len(p0.Step) == len(points) {
			steps[s] = float64(p0.Step[s])
		}
	}
	// A height given in o may leave no room for the default number of feature panels: then
	// show as many as fit.
	for k := o.topK(n, 4); ; k-- {
		f, height := pathFigure(ex, names, points, steps, unit, move, k, o)
		b, err := render(f, o, height)
		if err == nil || !errors.As(err, new(noRoom)) || o.TopK != 0 || o.Height == 0 || k <= 1 {
			return b, err
		}
	}
}

// pathFigure is Path's figure with its k top features, and the height of its panels; move
// says how a feature moved from x to x_c.
func pathFigure(ex *quce.Explanation, names []string, points [][]float64, steps []float64, unit string, move func(f int) string, k int, o Options) (*figure, vg.Length) {
	p0, n := ex.Path0(), len(names)
	var panels []*plot.Plot
	var moves []string // what the note says of each feature shown
	for _, f := range rankByMagnitude(p0.Attribution, k) {
		v := make([]float64, len(points))
		for s, pt := range points {
			v[s] = pt[f]
		}
		p := stepPanel(steps, v, blue)
		p.Title.Text = names[f]
		p.Y.Label.Text = unit
		panels = append(panels, p)
		moves = append(moves, fmt.Sprintf("%s, Φ = %.3g", move(f), p0.Attribution[f]))
	}
	pp := stepPanel(steps, p0.Probability, black)
	pp.Title.Text = "target probability " + prob(o, ex, "·")
	pp.Y.Label.Text = "probability"
	pp.Y.Min, pp.Y.Max = 0, 1
	unc := stepPanel(steps, p0.Uncertainty, darkGrey)
	unc.Title.Text = "VAE uncertainty L_ε (negative ELBO)"
	unc.Y.Label.Text = "L_ε"
	unc.X.Label.Text = "optimisation step"
	panels = append(panels, pp, unc)
	for _, p := range panels[:len(panels)-1] {
		p.X.Tick.Marker = unlabelled(roundTicks{})
	}

	valid := "a valid counterfactual"
	if !p0.Valid {
		valid = "not a valid counterfactual"
	}
	note := fmt.Sprintf("%d optimisation steps; %s = %.3f → %.3f, %s.", p0.Steps, prob(o, ex, "x"), ex.ProbStart, p0.ProbEnd, valid)
	shown := "The features by |Φ| on this path"
	if k < n {
		shown = fmt.Sprintf("The top %d of %d features by |Φ| on this path", k, n)
	}
	note += "\n" + shown + ", from x to x_c: " + strings.Join(moves, "; ") + "."
	// A further counterfactual's path is drawn as a picture of its own, not over the first's:
	// its top features, steps and note are its own, and panels shared by several options
	// would show the union of their features with every note at once.
	title := "QUCE path from x to its counterfactual"
	switch n := len(p0.Held); {
	case n == 1:
		title = "QUCE path to a further counterfactual, holding 1 column"
	case n > 1:
		title = fmt.Sprintf("QUCE path to a further counterfactual, holding %d columns", n)
	}
	f := &figure{
		title:  o.title(title),
		note:   o.note(note),
		cols:   1,
		panels: panels,
	}
	return f, vg.Length(len(panels))*panelHeight + 0.3*vg.Inch
}

// stepPanel is a panel with v drawn against the steps.
func stepPanel(steps, v []float64, c color.Color) *plot.Plot {
	xys := make(plotter.XYs, len(v))
	for s, y := range v {
		xys[s] = plotter.XY{X: steps[s], Y: y}
	}
	p := newPanel()
	p.Add(plotter.NewGrid(), line(xys, c, vg.Points(1.5)))
	return p
}

// value formats a feature's value compactly (4 significant digits), without the noise of a
// standardised float32 round trip: a value within 1e-6 of the feature's scale (its standard
// deviation in original units) of zero is zero, not "-2.033e-08". A float32's rounding of a
// standardised value below 16 in size stays under that.
func value(v, scale float64) string {
	if math.Abs(v) <= 1e-6*scale {
		v = 0
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
