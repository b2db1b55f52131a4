package plots

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MetricTable holds an evaluation's results, method → split → metric → value: the
// "metrics" object of the JSON that `quce eval` writes.
type MetricTable map[string]map[string]map[string]float64

// Evaluation draws the methods side by side for each of metrics (nil: every metric in the
// table, sorted): one panel per metric, one group of bars per split (train first, then
// test, then the others) and one bar per method in its colour (see MethodColor), the known
// methods in a fixed order. A method lacking a metric for a split has no bar there.
func Evaluation(table MetricTable, metrics []string, o Options) ([]byte, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	have := map[string]bool{}
	var methods, splits []string
	for m, bySplit := range table {
		methods = append(methods, m)
		for s, byMetric := range bySplit {
			if !slices.Contains(splits, s) {
				splits = append(splits, s)
			}
			for name, v := range byMetric {
				if err := checkFinite(fmt.Sprintf("%s/%s/%s", m, s, name), v); err != nil {
					return nil, err
				}
				have[name] = true
			}
		}
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("%w: the metric table is empty", errEmpty)
	}
	if metrics == nil {
		for name := range have {
			metrics = append(metrics, name)
		}
		sort.Strings(metrics)
	}
	if len(metrics) == 0 {
		return nil, fmt.Errorf("%w: no metrics asked for", errEmpty)
	}
	for _, name := range metrics {
		if !have[name] {
			known := make([]string, 0, len(have))
			for k := range have {
				known = append(known, k)
			}
			sort.Strings(known)
			return nil, fmt.Errorf("plots: no method has the metric %q; fix: use one of %s", name, strings.Join(known, ", "))
		}
	}
	methods = ordered(methods, methodNames())
	splits = ordered(splits, []string{"train", "validation", "test"})

	var panels []*plot.Plot
	drawn := map[string]*bars{}
	for _, name := range metrics {
		var present []*bars
		for _, m := range methods {
			v := make([]float64, len(splits))
			found := false
			for i, s := range splits {
				x, ok := table[m][s][name]
				if !ok {
					x = math.NaN()
				}
				v[i], found = x, found || ok
			}
			if found {
				b := &bars{values: v, color: MethodColor(m)}
				present = append(present, b)
				if drawn[m] == nil {
					drawn[m] = b
				}
			}
		}
		p := newPanel()
		grid := plotter.NewGrid()
		grid.Vertical.Color = nil
		p.Add(grid)
		w := 0.8 / float64(len(present))
		for j, b := range present {
			b.thickness, b.offset = w, (float64(j)-float64(len(present)-1)/2)*w
			p.Add(b, valueLabels(b))
		}
		p.NominalX(splits...)
		p.X.Min, p.X.Max = -0.5, float64(len(splits))-0.5
		lo := p.Y.Min
		pad(&p.Y, 0.05)
		if lo == 0 {
			p.Y.Min = 0
		}
		p.Y.Label.Text = name
		panels = append(panels, p)
	}
	var legend []legendItem
	for _, m := range methods {
		if b := drawn[m]; b != nil {
			legend = append(legend, legendItem{methodLabel(m), []plot.Thumbnailer{b}})
		}
	}
	cols := min(2, len(panels))
	auto := "Evaluation: " + metrics[0]
	if len(metrics) > 1 {
		auto = fmt.Sprintf("Evaluation: %d methods on %d metrics", len(legend), len(metrics))
	}
	f := &figure{
		title:  o.title(auto),
		legend: legend,
		cols:   cols,
		panels: panels,
	}
	rows := (len(panels) + cols - 1) / cols
	return render(f, o, vg.Length(rows)*2.3*vg.Inch)
}

// valueLabels writes each of b's values at the end of its bar (so a bar of height 0 still
// shows), to three significant digits.
func valueLabels(b *bars) *plotter.Labels {
	l := &plotter.Labels{}
	for i, v := range b.values {
		if math.IsNaN(v) {
			continue
		}
		sty := textStyle(sans(7))
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		if v < 0 {
			sty.YAlign = draw.YTop
		}
		l.XYs = append(l.XYs, plotter.XY{X: float64(i) + b.offset, Y: v})
		l.Labels = append(l.Labels, strconv.FormatFloat(v, 'g', 3, 64))
		l.TextStyle = append(l.TextStyle, sty)
	}
	return l
}

// SweepPoint is the evaluation of a set of instances at one value of a swept λ.
type SweepPoint struct {
	Lambda        float64 // the value of λ
	Validity      float64 // share of valid counterfactuals, in [0, 1]
	ProximityL1   float64 // mean ‖x_c − x‖₁ in standardised units
	CFUncertainty float64 // mean L_ε(x_c), the VAE uncertainty of the counterfactuals
}

// Sweep draws validity, proximity and counterfactual uncertainty against a λ in three
// aligned panels, the picture of the paper's Proposition 2 when the λ is λ3. lambda names
// the λ for the axis ("λ3"; "" gives "λ"). The λ axis is logarithmic when every λ is
// positive and they span more than a factor of 10.
func Sweep(points []SweepPoint, lambda string, o Options) ([]byte, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if len(points) == 0 {
		return nil, fmt.Errorf("%w: no sweep points", errEmpty)
	}
	pts := slices.Clone(points)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Lambda < pts[j].Lambda })
	for i, p := range pts {
		if err := checkFinite(fmt.Sprintf("point %d (λ, validity, proximity, uncertainty)", i),
			p.Lambda, p.Validity, p.ProximityL1, p.CFUncertainty); err != nil {
			return nil, err
		}
		if p.Lambda < 0 || p.Validity < 0 || p.Validity > 1 {
			return nil, fmt.Errorf("plots: sweep point λ = %g, validity = %g; fix: use λ ≥ 0 and a validity in [0, 1]", p.Lambda, p.Validity)
		}
	}
	if lambda == "" {
		lambda = "λ"
	}
	x, axis, note := lambdaAxis(pts)

	series := func(value func(SweepPoint) float64, title, unit string) *plot.Plot {
		xys := make(plotter.XYs, len(pts))
		for i, p := range pts {
			xys[i] = plotter.XY{X: x(p.Lambda), Y: value(p)}
		}
		p := newPanel()
		p.Add(plotter.NewGrid(), line(xys, blue, vg.Points(1.5)), marker(xys, draw.CircleGlyph{}, blue, vg.Points(3)))
		p.Title.Text, p.Y.Label.Text = title, unit
		axis(&p.X)
		return p
	}
	valid := series(func(p SweepPoint) float64 { return p.Validity }, "validity", "share valid")
	valid.Y.Min, valid.Y.Max = 0, 1
	prox := series(func(p SweepPoint) float64 { return p.ProximityL1 }, "proximity: mean ‖x_c − x‖₁", "standardised units")
	unc := series(func(p SweepPoint) float64 { return p.CFUncertainty }, "counterfactual uncertainty: mean L_ε(x_c)", "L_ε")
	panels := []*plot.Plot{valid, prox, unc}
	for _, p := range panels {
		pad(&p.Y, 0.06)
	}
	for _, p := range panels[:2] {
		p.X.Tick.Marker = unlabelled(p.X.Tick.Marker)
	}
	unc.X.Label.Text = lambda + note
	f := &figure{
		title:  o.title(fmt.Sprintf("Effect of %s on validity, proximity and counterfactual uncertainty (%d values)", lambda, len(pts))),
		cols:   1,
		panels: panels,
	}
	return render(f, o, 3*1.7*vg.Inch+0.3*vg.Inch)
}

// lambdaAxis picks how to lay the sorted points' λ values out: on a log axis when all are
// positive and span more than a factor of 10; evenly spaced, one tick each, when 0 is among
// them and the positive ones span more than a factor of 10 (a linear axis would crowd the
// small ones into a corner); else on a linear axis. x maps a λ to its position, axis sets
// up an axis for the layout and note says so in the axis label.
func lambdaAxis(pts []SweepPoint) (x func(float64) float64, axis func(*plot.Axis), note string) {
	var vals []float64
	for _, p := range pts {
		if len(vals) == 0 || p.Lambda != vals[len(vals)-1] {
			vals = append(vals, p.Lambda)
		}
	}
	first, last := vals[0], vals[len(vals)-1]
	switch {
	case first > 0 && last > 10*first:
		return func(l float64) float64 { return l }, func(a *plot.Axis) {
			a.Scale, a.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		}, " (log scale)"
	case first == 0 && len(vals) > 2 && last > 10*vals[1]:
		ticks := make(plot.ConstantTicks, len(vals))
		for i, v := range vals {
			ticks[i] = plot.Tick{Value: float64(i), Label: strconv.FormatFloat(v, 'g', -1, 64)}
		}
		return func(l float64) float64 { i, _ := slices.BinarySearch(vals, l); return float64(i) },
			func(a *plot.Axis) { a.Tick.Marker = ticks }, " (values evenly spaced)"
	}
	return func(l float64) float64 { return l }, func(*plot.Axis) {}, ""
}
