package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
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
// cols columns whose data areas are aligned (see layout), then a note.
type figure struct {
	title  string
	legend []legendItem
	cols   int
	panels []*plot.Plot // row by row
	note   string       // under the panels, wrapped to the figure's width
	// fit, if set, adapts panel k to the size of its data area before the figure is drawn
	// (it may change the panel's axis ranges) and returns a remark for the note, or "";
	// it is called more than once.
	fit func(k int, p *plot.Plot, data vg.Point) string
}

// Layout of the figure's header.
var (
	margin      = vg.Points(6)
	thumbWidth  = vg.Points(18)
	legendGap   = vg.Points(14) // between legend entries
	titleStyle  = textStyle(font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold, Size: 12})
	legendStyle = textStyle(sans(9))
	noteStyle   = text.Style{Color: darkGrey, Font: sans(8.5), Handler: textHandler}
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

// wrap breaks s into lines no wider than width where it can: at its newlines, then after
// the ";" of its "; "-separated parts, then between words (at plain spaces: a no-break
// space, U+00A0, keeps its neighbours on one line), then after the underscores of a word
// such as a metric's name.
func wrap(s string, sty text.Style, width vg.Length) string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		parts := strings.Split(para, "; ")
		for i := range parts[:len(parts)-1] {
			parts[i] += ";"
		}
		for _, part := range greedy(parts, " ", sty, width) {
			for _, line := range greedy(words(part), " ", sty, width) {
				lines = append(lines, greedy(strings.SplitAfter(line, "_"), "", sty, width)...)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// words splits s at its plain spaces.
func words(s string) []string {
	var out []string
	for _, w := range strings.Split(s, " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
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

// chromeHeight is the height of the title and legend above the panels of a figure width
// wide and of the note below them.
func (f *figure) chromeHeight(width vg.Length) vg.Length {
	var h vg.Length
	if f.title != "" {
		h += titleStyle.Height(wrap(f.title, titleStyle, width-2*margin)) + margin
	}
	if len(f.legend) > 0 {
		h += vg.Length(len(legendRows(f.legend, width-2*margin)))*legendRowHeight() + margin
	}
	if f.note != "" {
		h += noteStyle.Height(wrap(f.note, noteStyle, width-2*margin)) + margin
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

	// Lay the panels out above the note and let them adapt to their data areas (twice, as
	// that may change the room their axes need). What they remark on joins the note, and
	// then the panels are laid out again above the longer note.
	note := f.note
	var canvases []draw.Canvas
	var area draw.Canvas
	for range 3 {
		area = c
		if note != "" {
			area.Min.Y += noteStyle.Height(wrap(note, noteStyle, c.Max.X-c.Min.X)) + margin
		}
		var err error
		if canvases, err = layout(f.panels, f.cols, area); err != nil {
			return err
		}
		var remarks []string
		for range 2 {
			if f.fit == nil {
				break
			}
			remarks = remarks[:0]
			for k, p := range f.panels {
				if r := f.fit(k, p, p.DataCanvas(canvases[k]).Size()); r != "" && !slices.Contains(remarks, r) {
					remarks = append(remarks, r)
				}
			}
			if canvases, err = layout(f.panels, f.cols, area); err != nil {
				return err
			}
		}
		next := strings.Join(append([]string{f.note}, remarks...), "\n")
		if next == note {
			break
		}
		note = next
	}
	if note != "" {
		sty := noteStyle
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
		c.FillText(sty, c.Min, wrap(note, sty, c.Max.X-c.Min.X))
	}
	// Fit the panels' titles and axes' labels to the panels, and check that every data
	// area is still worth drawing.
	var err error
	for k, p := range f.panels {
		fitX(p, canvases[k])
	}
	if canvases, err = layout(f.panels, f.cols, area); err != nil {
		return err
	}
	for k, p := range f.panels {
		if d := p.DataCanvas(canvases[k]).Size(); !(d.X >= minData.X) || !(d.Y >= minData.Y) {
			return noRoom(fmt.Sprintf("%.2f × %.2f in", max(d.X, 0)/vg.Inch, max(d.Y, 0)/vg.Inch))
		}
	}
	for k, p := range f.panels {
		p.Draw(canvases[k])
	}
	return nil
}

// fitX fits p to the canvas c: it wraps the title and the x axis' label to the width of
// p's data area there (and the gap to the next panel) and the y axis' label to the height
// below the title, and thins the labels of the x axis' ticks, and of the y axis' round
// ticks, until they fit the data area with room between them.
func fitX(p *plot.Plot, c draw.Canvas) {
	data := p.DataCanvas(c).Size()
	p.Title.Text = wrap(p.Title.Text, p.Title.TextStyle, data.X+panelGapX)
	p.X.Label.Text = wrap(p.X.Label.Text, p.X.Label.TextStyle, data.X+panelGapX)
	below := c.Size().Y
	if p.Title.Text != "" {
		below -= p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding
	}
	p.Y.Label.Text = wrap(p.Y.Label.Text, p.Y.Label.TextStyle, below)
	x, y := p.X.Tick.Label, p.Y.Tick.Label
	p.X.Tick.Marker = thin(p.X.Tick.Marker, func(l string) vg.Length { return x.Width(l) + x.Width("  ") }, data.X)
	if _, ok := p.Y.Tick.Marker.(roundTicks); ok { // not the rows of a feature panel
		p.Y.Tick.Marker = thin(p.Y.Tick.Marker, func(l string) vg.Length { return y.Height(l) + vg.Points(6) }, data.Y)
	}
}

// thin makes t's tick labels fit an axis: until the labels' extents along the axis add
// up to no more than room, it asks a roundTicks for fewer ticks (so that the steps stay
// round) and labels only every other tick of any other ticker, as often as needed. It
// keeps at least two labels.
func thin(t plot.Ticker, extent func(label string) vg.Length, room vg.Length) plot.Ticker {
	labels := func(ticks []plot.Tick) (n int, need vg.Length) {
		for _, tk := range ticks {
			if !tk.IsMinor() {
				need += extent(tk.Label)
				n++
			}
		}
		return n, need
	}
	fits := func(ticks []plot.Tick) bool {
		n, need := labels(ticks)
		return need <= room || n <= 2
	}
	if r, ok := t.(roundTicks); ok {
		return plot.TickerFunc(func(min, max float64) []plot.Tick {
			ticks := r.Ticks(min, max)
			for most := r.most() - 1; !fits(ticks) && most >= 2; most-- {
				fewer := roundTicks{Most: most}.Ticks(min, max)
				if n, _ := labels(fewer); n < 2 {
					break
				}
				ticks = fewer
			}
			return ticks
		})
	}
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		ticks := slices.Clone(t.Ticks(min, max))
		for {
			var labelled []int
			need := vg.Length(0)
			for i, tk := range ticks {
				if !tk.IsMinor() {
					labelled = append(labelled, i)
					need += extent(tk.Label)
				}
			}
			if need <= room || len(labelled) <= 2 {
				return ticks
			}
			// Keep the label of 0 where there is one.
			keep := 0
			for n, i := range labelled {
				if ticks[i].Value == 0 {
					keep = n % 2
				}
			}
			for n, i := range labelled {
				if n%2 != keep {
					ticks[i].Label = ""
				}
			}
		}
	})
}

// minData is the smallest data area of a panel worth drawing.
var minData = vg.Point{X: vg.Inch / 2, Y: vg.Inch / 4}

// Gaps between the panels of a figure.
var (
	panelGapX = vg.Points(14)
	panelGapY = vg.Points(8)
)

// layout places panels in a grid of cols columns on c with their data areas aligned and
// of one size, as plot.Align does; but it measures each panel's axes on the whole canvas
// rather than on an equal share of it, so that a panel with wide tick labels (long
// feature names) gets the room they need. gonum then shrinks a data area so that the
// labels of the ticks at its ends stay inside the panel, by an amount that depends on the
// panel's size; each panel's canvas is adjusted, within c, until its data area is the
// one planned (see fitData).
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
	// NaN, too, is too small: gonum's axes give NaN data areas on canvases narrower than
	// their labels.
	if !(w >= minData.X) || !(h >= minData.Y) {
		room := "no room"
		if !math.IsNaN(float64(w + h)) {
			room = fmt.Sprintf("%.2f × %.2f in", max(w, 0)/vg.Inch, max(h, 0)/vg.Inch)
		}
		return nil, noRoom(room)
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
		data := vg.Rectangle{Min: vg.Point{X: x, Y: y - h}, Max: vg.Point{X: x + w, Y: y}}
		out[k] = draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: data.Min.Sub(in.Min), Max: data.Max.Add(in.Max)}}
		out[k] = fitData(panels[k], out[k], data, c.Rectangle)
	}
	return out, nil
}

// fitData adjusts the canvas on which p's data area should be data until it is, within
// the bounds of the whole figure; where it cannot (the canvas would leave those bounds,
// or the search does not settle) it returns the canvas as planned. Each step moves the
// canvas' edges by half the data area's error, which settles whether gonum moves the
// data area's edge with the canvas' (ticks' labels) or twice as fast (an axis' label
// centred on the data).
func fitData(p *plot.Plot, planned draw.Canvas, data, bounds vg.Rectangle) draw.Canvas {
	c := planned
	for range 40 {
		d := p.DataCanvas(c).Rectangle
		lo, hi := data.Min.Sub(d.Min), data.Max.Sub(d.Max)
		if max(abs(lo.X), abs(lo.Y), abs(hi.X), abs(hi.Y)) < 0.01 {
			return c
		}
		c.Min, c.Max = c.Min.Add(lo.Scale(0.5)), c.Max.Add(hi.Scale(0.5))
		if c.Min.X < bounds.Min.X-0.01 || c.Min.Y < bounds.Min.Y-0.01 || c.Max.X > bounds.Max.X+0.01 || c.Max.Y > bounds.Max.Y+0.01 {
			break
		}
	}
	return planned
}

func abs(v vg.Length) vg.Length { return vg.Length(math.Abs(float64(v))) }

// noRoom is layout's error for a picture too small for its panels: it says how much room
// each panel's data has.
type noRoom string

func (r noRoom) Error() string {
	return fmt.Sprintf("plots: the picture leaves %s for each panel's data once the labels are placed; fix: make it larger, or show fewer features with TopK", string(r))
}

// render draws f in o's format at the size in o. Where o leaves it 0, the width is the
// notebook default and the height that of f's title, legend and note plus panels, the
// height the panels need.
func render(f *figure, o Options, panels vg.Length) ([]byte, error) {
	w, h := o.Width, o.Height
	if w == 0 {
		w = defaultWidth
	}
	if h == 0 {
		h = f.chromeHeight(w) + panels
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
	case PDF:
		c := newPDFCanvas(w, h)
		if err := f.draw(draw.New(c)); err != nil {
			return nil, err
		}
		if _, err := c.WriteTo(&buf); err != nil {
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
