package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"slices"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// legendItem is one entry of a figure's legend.
type legendItem struct {
	label  string
	thumbs []plot.Thumbnailer
}

// figure is a titled picture: a legend in rows under the title, then panels in a grid of
// cols columns whose data areas are aligned (see layout).
type figure struct {
	title  string
	legend []legendItem
	cols   int
	panels []*plot.Plot // row by row
}

// Layout of the figure's header.
var (
	margin      = vg.Points(6)
	thumbWidth  = vg.Points(18)
	legendGap   = vg.Points(14) // between legend entries
	titleStyle  = textStyle(font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold, Size: 12})
	legendStyle = textStyle(sans(9))
)

// legendRows lays the legend out in rows no wider than width.
func legendRows(items []legendItem, width vg.Length) [][]legendItem {
	var rows [][]legendItem
	var x vg.Length
	for _, it := range items {
		w := itemWidth(it)
		if len(rows) == 0 || x+w > width {
			rows = append(rows, nil)
			x = 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], it)
		x += w + legendGap
	}
	return rows
}

func itemWidth(it legendItem) vg.Length {
	return thumbWidth + legendStyle.Width(" ") + legendStyle.Width(it.label)
}

func legendRowHeight() vg.Length { return legendStyle.Height("Xg") + vg.Points(4) }

// wrap breaks s into lines no wider than width where it can: at its newlines, then between
// its "; "-separated parts, then between words.
func wrap(s string, sty text.Style, width vg.Length) string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		for _, part := range greedy(strings.Split(para, "; "), "; ", sty, width) {
			lines = append(lines, greedy(strings.Fields(part), " ", sty, width)...)
		}
	}
	return strings.Join(lines, "\n")
}

// greedy joins tokens with sep into as few lines no wider than width as it can.
func greedy(tokens []string, sep string, sty text.Style, width vg.Length) []string {
	var lines []string
	for _, t := range tokens {
		if n := len(lines); n > 0 && sty.Width(lines[n-1]+sep+t) <= width {
			lines[n-1] += sep + t
		} else {
			lines = append(lines, t)
		}
	}
	return lines
}

// headerHeight is the height of the title and legend above the panels of a figure
// width wide.
func (f *figure) headerHeight(width vg.Length) vg.Length {
	var h vg.Length
	if f.title != "" {
		h += titleStyle.Height(wrap(f.title, titleStyle, width-2*margin)) + margin
	}
	if len(f.legend) > 0 {
		h += vg.Length(len(legendRows(f.legend, width-2*margin)))*legendRowHeight() + margin
	}
	return h
}

// draw draws the figure on c.
func (f *figure) draw(c draw.Canvas) error {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, margin, -margin, margin, -margin)
	top := c.Max.Y
	if f.title != "" {
		sty := titleStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		title := wrap(f.title, sty, c.Max.X-c.Min.X)
		c.FillText(sty, vg.Point{X: c.Center().X, Y: top}, title)
		top -= sty.Height(title) + margin
	}
	rh := legendRowHeight()
	sty := legendStyle
	sty.YAlign = draw.YCenter
	for _, row := range legendRows(f.legend, c.Max.X-c.Min.X) {
		w := -legendGap
		for _, it := range row {
			w += itemWidth(it) + legendGap
		}
		x := c.Center().X - w/2
		for _, it := range row {
			thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: top - rh + vg.Points(2)},
				Max: vg.Point{X: x + thumbWidth, Y: top - vg.Points(2)},
			}}
			for _, t := range it.thumbs {
				t.Thumbnail(&thumb)
			}
			c.FillText(sty, vg.Point{X: x + thumbWidth + sty.Width(" "), Y: top - rh/2}, it.label)
			x += itemWidth(it) + legendGap
		}
		top -= rh
	}
	if len(f.legend) > 0 {
		top -= margin
	}
	c.Max.Y = top

	canvases, err := layout(f.panels, f.cols, c)
	if err != nil {
		return err
	}
	// Fit the x axes' labels to the panels' widths, which changes the room the axes need.
	for k, p := range f.panels {
		fitX(p, p.DataCanvas(canvases[k]).Size().X)
	}
	if canvases, err = layout(f.panels, f.cols, c); err != nil {
		return err
	}
	for k, p := range f.panels {
		p.Draw(canvases[k])
	}
	return nil
}

// fitX fits p's x axis to a data area width wide: it wraps the axis label to that width
// (and the gap to the next panel) and labels only every other tick, as often as needed,
// until the tick labels fit with room between them.
func fitX(p *plot.Plot, width vg.Length) {
	a := &p.X
	a.Label.Text = wrap(a.Label.Text, a.Label.TextStyle, width+panelGapX)
	t, sty := a.Tick.Marker, a.Tick.Label
	a.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
		ticks := slices.Clone(t.Ticks(min, max))
		for {
			var labelled []int
			need := vg.Length(0)
			for i, tk := range ticks {
				if !tk.IsMinor() {
					labelled = append(labelled, i)
					need += sty.Width(tk.Label) + sty.Width("  ")
				}
			}
			if need <= width || len(labelled) <= 2 {
				return ticks
			}
			for n, i := range labelled {
				if n%2 == 1 {
					ticks[i].Label = ""
				}
			}
		}
	})
}

// Gaps between the panels of a figure.
var (
	panelGapX = vg.Points(14)
	panelGapY = vg.Points(8)
)

// layout places panels in a grid of cols columns on c with their data areas aligned and
// of one size, as plot.Align does; but it measures each panel's axes on the whole canvas
// rather than on an equal share of it, so that a panel with wide tick labels (long
// feature names) gets the room they need.
func layout(panels []*plot.Plot, cols int, c draw.Canvas) ([]draw.Canvas, error) {
	rows := (len(panels) + cols - 1) / cols
	insets := make([]vg.Rectangle, len(panels)) // each side's room for axes and titles
	left, right := make([]vg.Length, cols), make([]vg.Length, cols)
	bottom, top := make([]vg.Length, rows), make([]vg.Length, rows)
	for k, p := range panels {
		d := p.DataCanvas(c)
		in := vg.Rectangle{Min: d.Min.Sub(c.Min), Max: c.Max.Sub(d.Max)}
		insets[k] = in
		i, j := k%cols, k/cols
		left[i], right[i] = max(left[i], in.Min.X), max(right[i], in.Max.X)
		bottom[j], top[j] = max(bottom[j], in.Min.Y), max(top[j], in.Max.Y)
	}
	w := c.Max.X - c.Min.X - vg.Length(cols-1)*panelGapX
	for i := range cols {
		w -= left[i] + right[i]
	}
	h := c.Max.Y - c.Min.Y - vg.Length(rows-1)*panelGapY
	for j := range rows {
		h -= bottom[j] + top[j]
	}
	w, h = w/vg.Length(cols), h/vg.Length(rows)
	if w < vg.Inch/2 || h < vg.Inch/4 {
		return nil, fmt.Errorf("plots: the picture leaves %.2f × %.2f in for each panel's data once the labels are placed; fix: make it larger, or show fewer features with TopK", w/vg.Inch, h/vg.Inch)
	}
	xs, ys := make([]vg.Length, cols), make([]vg.Length, rows) // data areas' left and top
	x, y := c.Min.X, c.Max.Y
	for i := range cols {
		xs[i] = x + left[i]
		x = xs[i] + w + right[i] + panelGapX
	}
	for j := range rows {
		ys[j] = y - top[j]
		y = ys[j] - h - bottom[j] - panelGapY
	}
	out := make([]draw.Canvas, len(panels))
	for k, in := range insets {
		x, y := xs[k%cols], ys[k/cols]
		out[k] = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x - in.Min.X, Y: y - h - in.Min.Y},
			Max: vg.Point{X: x + w + in.Max.X, Y: y + in.Max.Y},
		}}
	}
	return out, nil
}

// render draws f in o's format at the size in o. Where o leaves it 0, the width is the
// notebook default and the height that of f's title and legend plus panels, the height
// the panels need.
func render(f *figure, o Options, panels vg.Length) ([]byte, error) {
	w, h := o.Width, o.Height
	if w == 0 {
		w = defaultWidth
	}
	if h == 0 {
		h = f.headerHeight(w) + panels
	}
	var buf bytes.Buffer
	switch o.Format {
	case PNG:
		dpi := o.DPI
		if dpi == 0 {
			dpi = 96
		}
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
		if err := f.draw(draw.New(c)); err != nil {
			return nil, err
		}
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	default:
		c := vgsvg.New(w, h)
		if err := f.draw(draw.New(c)); err != nil {
			return nil, err
		}
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, err
		}
		// vgsvg names only Liberation Sans; where it is not installed the text should fall
		// back to its metric twins rather than to the browser's default serif face.
		return bytes.ReplaceAll(buf.Bytes(),
			[]byte("font-family:Liberation Sans;"),
			[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")), nil
	}
}
