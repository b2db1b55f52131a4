package plots

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/quce-go/quce/eval"
)

// MetricTable holds an evaluation's results: each method's, in the order they are drawn.
type MetricTable []MethodMetrics

// MethodMetrics is one method's results in an evaluation, split → metric → value (a
// method's part of the "metrics" object of the JSON that `quce eval` writes), and how the
// method is drawn.
type MethodMetrics struct {
	MethodStyle
	Metrics map[string]map[string]float64
}

// Evaluation draws the methods side by side for each of metrics (nil: every metric in the
// table, sorted): one panel per metric, titled with its name, one group of bars per split
// (train first, then test, then the others) and one bar per method in its colour, the
// methods in the table's order, named by their labels. A method lacking a metric for a
// split has no bar there, and the note says which methods lack metrics.
//
// Each bar carries its value, to three significant digits, level where the label fits
// within its bar's column and else turned a quarter turn; the axis leaves room above the
// bars for the labels, so no two labels overlap and none crosses a bar or the frame. Where
// even turned labels do not fit (very many methods in a narrow picture), the bars go
// without them; the tables have the values. A metric
// whose values are all below 0.01 or from 10⁵ up is drawn in units of a power of ten, named
// on its axis ("×1e−4"), so that its labels stay short.
func Evaluation(table MetricTable, metrics []string, o Options) ([]byte, error) {
	f, _, height, err := evaluationFigure(table, metrics, o)
	if err != nil {
		return nil, err
	}
	return render(f, o, height)
}

// evaluationFigure is the figure Evaluation draws, its panels' value labels and the height
// of its panels.
func evaluationFigure(table MetricTable, metrics []string, o Options) (*figure, []*barLabels, vg.Length, error) {
	if err := o.check(); err != nil {
		return nil, nil, 0, err
	}
	splits, metrics, err := tableShape(table, metrics)
	if err != nil {
		return nil, nil, 0, err
	}
	var panels []*plot.Plot
	var labels []*barLabels
	drawn := make([]*bars, len(table)) // per method: its first bars, for the legend
	lacking := make([]int, len(table)) // per method: the metrics it has no value of on some split
	for _, name := range metrics {
		p, l := metricPanel(table, name, splits, drawn, lacking)
		panels, labels = append(panels, p), append(labels, l)
	}
	var legend []legendItem
	for i, m := range table {
		if b := drawn[i]; b != nil {
			legend = append(legend, legendItem{m.Label, []plot.Thumbnailer{b}})
		}
	}
	cols := min(2, len(panels))
	auto := "Evaluation: " + metrics[0]
	if len(metrics) > 1 {
		auto = "Evaluation: the methods on each metric"
	}
	note := "Bars are labelled with their values (3 significant digits)"
	if lack := lackingNote(table, lacking, len(metrics)); lack != "" {
		note += "; no bar where a method has no value: " + lack
	}
	f := &figure{
		title:  o.title(auto),
		legend: legend,
		cols:   cols,
		panels: panels,
		note:   o.note(note + "."),
		fit: func(k int, p *plot.Plot, data vg.Point) string {
			if labels[k].fit(p, data) == hidden {
				return "Bars too narrow for their values go without them; the tables give them."
			}
			return ""
		},
	}
	rows := (len(panels) + cols - 1) / cols
	return f, labels, vg.Length(rows) * 2.3 * vg.Inch, nil
}

// tableShape checks table (every method styled and named once, every value finite, metrics
// among its metrics; nil metrics: all of them, sorted) and returns its splits (train
// first, then test, then the others) and the metrics to draw.
func tableShape(table MetricTable, metrics []string) (splits, names []string, err error) {
	have := map[string]bool{}
	for i, m := range table {
		if err := m.check(fmt.Sprintf("method %d of the metric table", i)); err != nil {
			return nil, nil, err
		}
		if slices.ContainsFunc(table[:i], func(o MethodMetrics) bool { return o.Label == m.Label }) {
			return nil, nil, fmt.Errorf("plots: the metric table has the method %q twice; fix: give each method one entry", m.Label)
		}
		for s, byMetric := range m.Metrics {
			if !slices.Contains(splits, s) {
				splits = append(splits, s)
			}
			for name, v := range byMetric {
				if err := checkFinite(fmt.Sprintf("%s/%s/%s", m.Label, s, name), v); err != nil {
					return nil, nil, err
				}
				have[name] = true
			}
		}
	}
	if len(have) == 0 {
		return nil, nil, fmt.Errorf("%w: the metric table is empty", errEmpty)
	}
	known := slices.Sorted(maps.Keys(have))
	if metrics == nil {
		metrics = known
	}
	if len(metrics) == 0 {
		return nil, nil, fmt.Errorf("%w: no metrics asked for", errEmpty)
	}
	for _, name := range metrics {
		if !have[name] {
			return nil, nil, fmt.Errorf("plots: no method has the metric %q; fix: use one of %s", name, strings.Join(known, ", "))
		}
	}
	return ordered(splits, []string{"train", "validation", "test"}), metrics, nil
}

// metricPanel is the panel of one metric: a group of bars per split, a bar per method that
// has the metric, labelled with its value. It records in drawn each method's first bars
// (for the legend) and counts in lacking the methods without a value on some split.
func metricPanel(table MetricTable, name string, splits []string, drawn []*bars, lacking []int) (*plot.Plot, *barLabels) {
	var present []*bars
	scale := metricScale(table, name)
	for k, m := range table {
		v := make([]float64, len(splits))
		found, missing := false, false
		for i, s := range splits {
			x, ok := m.Metrics[s][name]
			if !ok {
				x = math.NaN()
			}
			v[i], found, missing = x/scale.factor, found || ok, missing || !ok
		}
		if missing {
			lacking[k]++
		}
		if found {
			b := &bars{values: v, color: m.Color}
			present = append(present, b)
			if drawn[k] == nil {
				drawn[k] = b
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
		p.Add(b)
	}
	l := newBarLabels(present)
	p.Add(l)
	p.NominalX(splits...)
	p.X.Min, p.X.Max = -0.5, float64(len(splits))-0.5
	lo := p.Y.Min
	pad(&p.Y, 0.05)
	if lo == 0 {
		p.Y.Min = 0
	}
	l.lo, l.hi = p.Y.Min, p.Y.Max
	p.Title.Text = name
	p.Y.Label.Text = scale.label
	return p, l
}

// lackingNote names the methods that lack a value of some metric, with how many of the
// metrics (just the names when there is one metric); "" when none does.
func lackingNote(table MetricTable, lacking []int, metrics int) string {
	var lack []string
	for i, m := range table {
		switch n := lacking[i]; {
		case n > 0 && metrics == 1:
			lack = append(lack, m.Label)
		case n > 0:
			lack = append(lack, fmt.Sprintf("%s for %d of the %d metrics", m.Label, n, metrics))
		}
	}
	return strings.Join(lack, ", ")
}

// unitScale is the power of ten a metric is drawn in and its axis label.
type unitScale struct {
	factor float64
	label  string
}

// metricScale is 1 for a metric with a value from 0.01 up to 10⁵ (or only zeros), else
// the power of ten of its largest |value|.
func metricScale(table MetricTable, name string) unitScale {
	big := 0.0
	for _, m := range table {
		for _, byMetric := range m.Metrics {
			if v, ok := byMetric[name]; ok {
				big = math.Max(big, math.Abs(v))
			}
		}
	}
	if big == 0 || (big >= 0.01 && big < 1e5) {
		return unitScale{1, ""}
	}
	e := int(math.Floor(math.Log10(big)))
	return unitScale{math.Pow(10, float64(e)), "×1e" + strings.ReplaceAll(strconv.Itoa(e), "-", "−")}
}

// barLabels writes each bar's value at its end (so that a bar of height 0 still shows
// one). Its layout is chosen by fit, once the size of the panel's data area is known.
type barLabels struct {
	bars   []*bars
	texts  [][]string // per bar, per category; "" where the bar has no value
	sty    text.Style
	mode   labelMode
	lo, hi float64 // the value axis' range before room is made for the labels
}

// labelMode is how a panel's value labels are set.
type labelMode int

const (
	level  labelMode = iota // horizontal, centred over the bar
	turned                  // a quarter turn anticlockwise, reading upwards from the bar
	hidden                  // no room even for turned labels
)

// labelGap is the room between a bar's end and its label, and the least room between
// labels side by side.
var labelGap = vg.Points(2)

func newBarLabels(bs []*bars) *barLabels {
	l := &barLabels{bars: bs, sty: textStyle(sans(7))}
	for _, b := range bs {
		t := make([]string, len(b.values))
		for i, v := range b.values {
			if !math.IsNaN(v) {
				t[i] = strconv.FormatFloat(v, 'g', 3, 64)
			}
		}
		l.texts = append(l.texts, t)
	}
	return l
}

// fit picks the labels' mode for a data area of size data and sets p's value axis to
// leave room for them: level if the widest label fits within a bar's width with labelGap
// to spare, else turned if the labels' height does, else hidden; and turned or hidden if
// the room the labels need above the bars would take more than a third of the panel. It
// returns the mode.
func (l *barLabels) fit(p *plot.Plot, data vg.Point) labelMode {
	p.Y.Min, p.Y.Max = l.lo, l.hi
	if len(l.bars) == 0 || !(data.X > 0 && data.Y > 0) {
		l.mode = hidden
		return l.mode
	}
	pitch := vg.Length(l.bars[0].thickness) * data.X / vg.Length(p.X.Max-p.X.Min)
	var widest vg.Length
	vmin, vmax := 0.0, 0.0
	for j, b := range l.bars {
		for i, t := range l.texts[j] {
			if t != "" {
				widest = max(widest, l.sty.Width(t))
				vmin, vmax = math.Min(vmin, b.values[i]), math.Max(vmax, b.values[i])
			}
		}
	}
	ext := l.sty.FontExtents()
	height := ext.Ascent + ext.Descent // of the glyphs, without the gap between lines
	l.mode = hidden
	var need vg.Length
	for _, m := range []struct {
		mode        labelMode
		across, out vg.Length // the label's extent across the bar and out from its end
	}{{level, widest, height}, {turned, height, widest}} {
		if m.across+labelGap <= pitch && m.out+labelGap <= data.Y/3 {
			l.mode, need = m.mode, m.out+labelGap
			break
		}
	}
	if l.mode == hidden {
		return l.mode
	}
	// Room of need points beyond the longest bar each way: solve
	// top = vmax + r·(top − bottom) and bottom = vmin − r·(top − bottom), r = need/H.
	r := float64(need / data.Y)
	top, bottom := l.hi, l.lo
	for range 50 {
		span := top - bottom
		if vmax > 0 {
			top = math.Max(l.hi, vmax+r*span)
		}
		if vmin < 0 {
			bottom = math.Min(l.lo, vmin-r*span)
		}
	}
	if vmax == 0 && vmin == 0 && !(top > bottom) { // only zeros: labels over the axis
		bottom, top = 0, 1
	}
	p.Y.Min, p.Y.Max = bottom, top
	return l.mode
}

// Plot implements plot.Plotter.
func (l *barLabels) Plot(c draw.Canvas, p *plot.Plot) {
	if l.mode == hidden {
		return
	}
	trX, trY := p.Transforms(&c)
	for j, b := range l.bars {
		for i, t := range l.texts[j] {
			if t == "" {
				continue
			}
			v := b.values[i]
			sty := l.sty
			pt := vg.Point{X: trX(float64(i) + b.offset), Y: trY(v) + labelGap}
			if v < 0 {
				pt.Y = trY(v) - labelGap
			}
			switch {
			case l.mode == level && v >= 0:
				sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
			case l.mode == level:
				sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
			case v >= 0:
				sty.XAlign, sty.YAlign, sty.Rotation = draw.XLeft, draw.YCenter, math.Pi/2
			default:
				sty.XAlign, sty.YAlign, sty.Rotation = draw.XRight, draw.YCenter, math.Pi/2
			}
			c.FillText(sty, pt, t)
		}
	}
}

// Sweep draws validity, proximity and counterfactual uncertainty against a λ in three
// aligned panels, the picture of the paper's Proposition 2 when the λ is λ3. lambda names
// the λ for the axis ("λ3"; "" gives "λ"). The λ axis is logarithmic when every λ is
// positive and they span more than a factor of 10.
func Sweep(points []eval.SweepPoint, lambda string, o Options) ([]byte, error) {
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

	series := func(value func(eval.SweepPoint) float64, title, unit string) *plot.Plot {
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
	valid := series(func(p eval.SweepPoint) float64 { return p.Validity }, "validity", "share valid")
	valid.Y.Min, valid.Y.Max = 0, 1
	prox := series(func(p eval.SweepPoint) float64 { return p.ProximityL1 }, "proximity: mean ‖x_c − x‖₁", "standardised units")
	unc := series(func(p eval.SweepPoint) float64 { return p.CFUncertainty }, "counterfactual uncertainty: mean L_ε(x_c)", "L_ε")
	panels := []*plot.Plot{valid, prox, unc}
	for _, p := range panels {
		pad(&p.Y, 0.06)
	}
	for _, p := range panels[:2] {
		p.X.Tick.Marker = unlabelled(p.X.Tick.Marker)
	}
	unc.X.Label.Text = lambda + note
	f := &figure{
		title:  o.title(fmt.Sprintf("Effect of %s on validity, proximity and counterfactual uncertainty", lambda)),
		note:   o.note(""),
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
func lambdaAxis(pts []eval.SweepPoint) (x func(float64) float64, axis func(*plot.Axis), note string) {
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
