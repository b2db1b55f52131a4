package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/quce-go/quce/population"
)

// The pictures of a population summary (population.Summary): which columns recourse
// changes (RecourseColumns), what it costs per group (RecourseCost) and how often each
// group's recourse changes each column (RecourseGroups). Groups are named as the summary
// names them, the data's own values; the caller's Options.Note says what the rows are and
// which class they are moved to.

// RecourseColumns draws, per column, how often the valid counterfactuals change it (left,
// as a share, labelled) and its mean |Φ| with the mean |Φ−| and |Φ+| of its uncertainty
// (right, on its own scale), the most often changed column at the top (ties by mean |Φ|).
// o.TopK limits the rows (default all).
func RecourseColumns(s *population.Summary, o Options) ([]byte, error) {
	if err := checkSummary(s, o); err != nil {
		return nil, err
	}
	cs := s.Overall.Columns
	if s.Overall.Valid == 0 {
		return nil, fmt.Errorf("%w: none of the %d searched rows has a valid counterfactual", errEmpty, s.Overall.Searched)
	}
	names := make([]string, len(cs))
	rate, attr, minus, plus := make([]float64, len(cs)), make([]float64, len(cs)), make([]float64, len(cs)), make([]float64, len(cs))
	for i, c := range cs {
		names[i] = c.Column
		rate[i], attr[i], minus[i], plus[i] = float64(c.ChangeRate), float64(c.MeanAbsAttribution), float64(c.MeanAbsMinus), float64(c.MeanAbsPlus)
		if err := checkFinite(c.Column+" (change rate, mean |Φ|, |Φ−|, |Φ+|)", rate[i], attr[i], minus[i], plus[i]); err != nil {
			return nil, err
		}
	}
	order := population.ByChangeRate(cs)
	rows := order[:o.topK(len(order), len(order))]
	pct := make([]float64, len(rate))
	for i, r := range rate {
		pct[i] = 100 * r
	}
	changed := &bars{values: byRow(pct, rows), thickness: 0.6, horizontal: true, color: bluishGreen}
	left := featurePanel(names, rows, true)
	left.Add(changed, &barEnds{bars: changed, format: func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + "%" }, sty: textStyle(sans(7))})
	left.X.Label.Text = "changed by the counterfactuals (%)"
	setRows(left, len(rows))
	left.X.Min, left.X.Max = 0, 118 // room for the labels of a column every counterfactual changes

	phi := &bars{values: byRow(attr, rows), thickness: 0.6, horizontal: true, color: blue}
	up := &bars{values: byRow(plus, rows), offset: 0.17, thickness: 0.32, horizontal: true, color: skyBlue}
	down := &bars{values: byRow(minus, rows), offset: -0.17, thickness: 0.32, horizontal: true, color: darkGrey}
	right := featurePanel(names, rows, false)
	right.Add(phi, up, down)
	right.X.Label.Text = "mean |attribution| (probability)"
	setRows(right, len(rows))
	right.X.Min = 0
	pad(&right.X, 0.04)
	right.X.Min = 0

	note := fmt.Sprintf("Over the %d valid counterfactuals of %d searched rows", s.Overall.Valid, s.Overall.Searched)
	if s.Overall.AlreadyTarget > 0 {
		note += fmt.Sprintf(" (%d more rows already had the target class: nothing to change)", s.Overall.AlreadyTarget)
	}
	note += "; |Φ|: the column's attribution (a categorical column's inputs summed), |Φ−| and |Φ+|: its uncertainty, each averaged in size over the counterfactuals, changed or not"
	if len(rows) < len(cs) {
		note += fmt.Sprintf("; the %d most often changed of %d columns", len(rows), len(cs))
	}
	f := &figure{
		title: o.title("Recourse across the rows: how often each column changes, and its attribution"),
		note:  o.note(note + "."),
		legend: []legendItem{
			{"share changed (left)", []plot.Thumbnailer{changed}},
			{"mean |Φ| (right)", []plot.Thumbnailer{phi}},
			{"mean |Φ+|", []plot.Thumbnailer{up}},
			{"mean |Φ−|", []plot.Thumbnailer{down}},
		},
		cols:   2,
		panels: []*plot.Plot{left, right},
	}
	return render(f, o, rowsHeight(len(rows)))
}

// RecourseCost draws the cost of recourse per group (one row per group, or all rows
// without groups): the distribution over the valid counterfactuals of the standardised L1
// cost (left) and of the number of columns changed (right) as box plots (the box the
// quartiles, the whiskers to the furthest value within 1.5 boxes, beyond them each value),
// with the mean and its bootstrap interval over each box. Each group's label gives its
// valid counterfactuals of its searched rows. groupBy names the grouping column ("" without
// groups).
func RecourseCost(s *population.Summary, groupBy string, o Options) ([]byte, error) {
	if err := checkSummary(s, o); err != nil {
		return nil, err
	}
	scopes := s.Groups
	if scopes == nil {
		scopes = []population.Scope{s.Overall}
	}
	labels := make([]string, len(scopes))
	for i, sc := range scopes {
		labels[len(scopes)-1-i] = fmt.Sprintf("%s (%d of %d valid)", sc.Name, sc.Valid, sc.Searched)
	}
	panel := func(measure, axis string, value func(population.Row) float64) (*plot.Plot, *plotter.Scatter, error) {
		p := newPanel()
		grid := plotter.NewGrid()
		grid.Horizontal.Color = nil
		p.Add(zebra(len(scopes)), grid)
		var means plotter.XYs
		spread := &plotter.XErrorBars{LineStyle: draw.LineStyle{Color: vermillion, Width: vg.Points(1.5)}, CapWidth: vg.Points(6)}
		for i, sc := range scopes {
			y := float64(len(scopes) - 1 - i)
			var v plotter.Values
			for _, r := range s.Rows {
				if r.Valid && !r.AlreadyTarget && (s.Groups == nil || r.Group == sc.Name) {
					v = append(v, value(r))
				}
			}
			if err := checkFinite(fmt.Sprintf("%s of group %s", measure, sc.Name), v...); err != nil {
				return nil, nil, err
			}
			if len(v) == 0 {
				continue
			}
			box, err := plotter.NewBoxPlot(vg.Points(14), y, v)
			if err != nil {
				return nil, nil, err
			}
			box.Horizontal = true
			box.FillColor = fade(skyBlue, 0.45)
			box.GlyphStyle = draw.GlyphStyle{Color: fade(black, 0.6), Radius: vg.Points(1.6), Shape: draw.CircleGlyph{}}
			p.Add(box)
			e := sc.Measure(measure)
			means = append(means, plotter.XY{X: float64(e.Mean), Y: y})
			if lo, hi := float64(e.Lo), float64(e.Hi); !math.IsNaN(lo) && !math.IsNaN(hi) {
				spread.XYs = append(spread.XYs, plotter.XY{X: float64(e.Mean), Y: y})
				spread.XErrors = append(spread.XErrors, struct{ Low, High float64 }{float64(e.Mean) - lo, hi - float64(e.Mean)})
			}
		}
		mean := marker(means, draw.PyramidGlyph{}, vermillion, vg.Points(3.5))
		if len(spread.XYs) > 0 {
			p.Add(spread)
		}
		p.Add(mean)
		p.NominalY(labels...)
		p.Y.Min, p.Y.Max = -0.5, float64(len(scopes))-0.5
		p.X.Label.Text = axis
		if p.X.Min > 0 {
			p.X.Min = 0
		}
		pad(&p.X, 0.04)
		return p, mean, nil
	}
	l1, mean, err := panel(population.CostL1, "cost L1: ‖x_c − x‖₁ (standardised inputs)", func(r population.Row) float64 { return float64(r.CostL1) })
	if err != nil {
		return nil, err
	}
	l0, _, err := panel(population.CostL0, "cost L0: columns changed", func(r population.Row) float64 { return float64(r.CostL0) })
	if err != nil {
		return nil, err
	}
	l0.Y.Tick.Marker = unlabelled(l0.Y.Tick.Marker)
	title := "The cost of recourse"
	if groupBy != "" {
		title = "The cost of recourse by " + groupBy
	}
	level := 100 * s.Options.Level
	note := fmt.Sprintf("Over each group's valid counterfactuals (the box: quartiles and median; whiskers: to the furthest value within 1.5 box lengths; dots: values beyond); mean with its %g%% percentile bootstrap interval (%d resamples, seed %d)",
		level, s.Options.Bootstrap, s.Options.Seed)
	if differences := costDifferences(s); differences != "" {
		note += "; " + differences
	}
	f := &figure{
		title: o.title(title),
		note:  o.note(note + "."),
		legend: []legendItem{
			{"quartiles and median", []plot.Thumbnailer{boxThumb{}}},
			{fmt.Sprintf("mean and its %g%% interval", level), []plot.Thumbnailer{line(nil, vermillion, vg.Points(1.5)), mean}},
		},
		cols:   2,
		panels: []*plot.Plot{l1, l0},
	}
	return render(f, o, vg.Length(len(scopes))*0.42*vg.Inch+0.8*vg.Inch)
}

// costDifferences states the tests of the L1 cost's differences between groups, for a note.
func costDifferences(s *population.Summary) string {
	var parts []string
	for _, c := range s.Comparisons {
		if c.Measure != population.CostL1 {
			continue
		}
		parts = append(parts, fmt.Sprintf("L1 %s − %s = %s [%s, %s], permutation p = %s", c.Group, c.Versus,
			c.Difference, c.Lo, c.Hi, c.P))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("difference in mean (%d relabellings): ", s.Options.Permutations) + strings.Join(parts, "; ")
}

// RecourseGroups draws a column × group heat map of how often each group's valid
// counterfactuals change each column, the share written in each cell; columns in the order
// of how often all rows' counterfactuals change them, most often at the top. o.TopK limits
// the columns (default all). groupBy names the grouping column.
func RecourseGroups(s *population.Summary, groupBy string, o Options) ([]byte, error) {
	if err := checkSummary(s, o); err != nil {
		return nil, err
	}
	if len(s.Groups) == 0 {
		return nil, fmt.Errorf("%w: the summary has no groups; fix: summarise with a group per row", errEmpty)
	}
	cs := s.Overall.Columns
	order := population.ByChangeRate(cs)
	rows := order[:o.topK(len(order), len(order))]
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Column
	}
	cells := &heatCells{rows: len(rows)}
	groups := make([]string, len(s.Groups))
	for g, sc := range s.Groups {
		groups[g] = fmt.Sprintf("%s\n%d valid", sc.Name, sc.Valid)
		for k, ci := range rowFeatures(rows) {
			cells.values = append(cells.values, heatCell{x: g, y: k, v: float64(sc.Columns[ci].ChangeRate)})
		}
	}
	p := featurePanel(names, rows, true)
	p.Add(cells)
	p.NominalX(groups...)
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	setRows(p, len(rows))
	p.X.Label.Text = groupBy
	note := "Each cell: the share of the group's valid counterfactuals that change the column (blank: a group without valid counterfactuals)"
	if len(rows) < len(cs) {
		note += fmt.Sprintf("; the %d most often changed of %d columns", len(rows), len(cs))
	}
	title := "How often recourse changes each column, by group"
	if groupBy != "" {
		title = "How often recourse changes each column, by " + groupBy
	}
	f := &figure{
		title:  o.title(title),
		note:   o.note(note + "."),
		cols:   1,
		panels: []*plot.Plot{p},
	}
	return render(f, o, rowsHeight(len(rows))+0.2*vg.Inch)
}

// checkSummary checks what every population picture needs.
func checkSummary(s *population.Summary, o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	if s == nil || len(s.Overall.Columns) == 0 {
		return fmt.Errorf("%w: the summary has no columns", errEmpty)
	}
	return nil
}

// barEnds writes each bar's value just beyond its end.
type barEnds struct {
	bars   *bars
	format func(float64) string
	sty    text.Style
}

// Plot implements plot.Plotter.
func (l *barEnds) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := l.sty
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	for i, v := range l.bars.values {
		if math.IsNaN(v) {
			continue
		}
		c.FillText(sty, vg.Point{X: trX(v) + labelGap, Y: trY(float64(i) + l.bars.offset)}, l.format(v))
	}
}

// heatCell is one cell of a heat map: at category x across and row y, a share v in [0, 1]
// (NaN: no value).
type heatCell struct {
	x, y int
	v    float64
}

// heatCells fills each cell with a shade of blue as deep as its share, and writes the
// share in it.
type heatCells struct {
	values []heatCell
	rows   int
}

// Plot implements plot.Plotter.
func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(sans(7.5))
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	for _, cell := range h.values {
		if math.IsNaN(cell.v) {
			continue
		}
		x0, x1 := trX(float64(cell.x)-0.48), trX(float64(cell.x)+0.48)
		y0, y1 := trY(float64(cell.y)-0.45), trY(float64(cell.y)+0.45)
		c.FillPolygon(shade(cell.v), []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		if cell.v > 0.55 {
			sty.Color = color.White
		} else {
			sty.Color = black
		}
		c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, strconv.FormatFloat(100*cell.v, 'f', 0, 64)+"%")
	}
}

// DataRange implements plot.DataRanger.
func (h *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmax = -0.5
	for _, cell := range h.values {
		xmax = math.Max(xmax, float64(cell.x)+0.5)
	}
	return -0.5, xmax, -0.5, float64(h.rows) - 0.5
}

// shade is the colour of a share v in [0, 1]: from white to the palette's blue.
func shade(v float64) color.Color {
	v = math.Min(math.Max(v, 0), 1)
	mix := func(a uint8) uint8 { return uint8(math.Round(255 - v*(255-float64(a)))) }
	return color.RGBA{mix(blue.R), mix(blue.G), mix(blue.B), 0xff}
}

// boxThumb is a box plot's legend symbol: a box with its median.
type boxThumb struct{}

// Thumbnail implements plot.Thumbnailer.
func (boxThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pts := []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
	c.FillPolygon(fade(skyBlue, 0.45), pts)
	c.StrokeLines(draw.LineStyle{Color: black, Width: vg.Points(0.5)}, append(pts, r.Min))
	mid := (r.Min.X + r.Max.X) / 2
	c.StrokeLine2(draw.LineStyle{Color: black, Width: vg.Points(1)}, mid, r.Min.Y, mid, r.Max.Y)
}
