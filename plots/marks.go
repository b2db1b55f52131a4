package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bars draws one bar per category, from zero to its value. Category i sits at i on the
// category axis; offset and thickness are in category units, so bars keep their
// proportions at any picture size. A NaN value leaves its category without a bar.
type bars struct {
	values     []float64
	offset     float64
	thickness  float64
	horizontal bool // categories on the y axis, values on the x axis
	color      color.Color
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, v := range b.values {
		if math.IsNaN(v) || v == 0 { // no mark at all for zero (a frozen feature's Φ±)
			continue
		}
		lo := float64(i) + b.offset - b.thickness/2
		hi := lo + b.thickness
		x0, x1, y0, y1 := lo, hi, 0.0, v
		if b.horizontal {
			x0, x1, y0, y1 = 0, v, lo, hi
		}
		pts := []vg.Point{
			{X: trX(x0), Y: trY(y0)}, {X: trX(x1), Y: trY(y0)},
			{X: trX(x1), Y: trY(y1)}, {X: trX(x0), Y: trY(y1)},
		}
		c.FillPolygon(b.color, c.ClipPolygonXY(pts))
	}
}

// DataRange implements plot.DataRanger: the categories' extent and the values with zero.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	cmin := b.offset - b.thickness/2
	cmax := float64(len(b.values)-1) + b.offset + b.thickness/2
	var vmin, vmax float64
	for _, v := range b.values {
		if !math.IsNaN(v) {
			vmin, vmax = math.Min(vmin, v), math.Max(vmax, v)
		}
	}
	if b.horizontal {
		return vmin, vmax, cmin, cmax
	}
	return cmin, cmax, vmin, vmax
}

// Thumbnail implements plot.Thumbnailer.
func (b *bars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(b.color, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// starGlyph is a five-pointed star with a thin black outline: a counterfactual.
type starGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (starGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	var p vg.Path
	for i := range 10 {
		r := sty.Radius
		if i%2 == 1 {
			r *= 0.45
		}
		a := math.Pi/2 + float64(i)*math.Pi/5
		q := vg.Point{X: pt.X + r*vg.Length(math.Cos(a)), Y: pt.Y + r*vg.Length(math.Sin(a))}
		if i == 0 {
			p.Move(q)
		} else {
			p.Line(q)
		}
	}
	p.Close()
	c.SetColor(sty.Color)
	c.Fill(p)
	c.SetLineStyle(draw.LineStyle{Color: black, Width: vg.Points(0.6)})
	c.Stroke(p)
}

// startGlyph is a white disc in a black ring: the instance a path starts from.
type startGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (startGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.SetColor(color.White)
	c.Fill(p)
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)})
	c.Stroke(p)
}

// marker is a scatter of glyphs of one style, usable as a legend thumbnail.
func marker(xys plotter.XYs, shape draw.GlyphDrawer, c color.Color, radius vg.Length) *plotter.Scatter {
	return &plotter.Scatter{XYs: xys, GlyphStyle: draw.GlyphStyle{Color: c, Radius: radius, Shape: shape}}
}

// line is a polyline in one colour and width; dashes, if any, dash it.
func line(xys plotter.XYs, c color.Color, width vg.Length, dashes ...vg.Length) *plotter.Line {
	return &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: c, Width: width, Dashes: dashes}}
}

// fade is c with opacity a in [0, 1].
func fade(c color.Color, a float64) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(math.Round(a * 255))}
}

// pathLine is a method's path on the map: a line over a white casing, so that a thinner
// path drawn over a thicker one stays visible where the two run together.
type pathLine struct {
	xys   plotter.XYs
	style draw.LineStyle
}

// casing is how much wider than the line its white casing is.
var casing = vg.Points(2)

// Plot implements plot.Plotter.
func (l *pathLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(l.xys))
	for i, xy := range l.xys {
		pts[i] = vg.Point{X: trX(xy.X), Y: trY(xy.Y)}
	}
	under := draw.LineStyle{Color: color.White, Width: l.style.Width + casing}
	c.StrokeLines(under, c.ClipLinesXY(pts)...)
	c.StrokeLines(l.style, c.ClipLinesXY(pts)...)
}

// DataRange implements plot.DataRanger.
func (l *pathLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.xys)
}

// pathThumb is a map legend's symbol for a method: its line as drawn, ending in its star.
type pathThumb struct {
	style  draw.LineStyle
	radius vg.Length // the star's
}

// Thumbnail implements plot.Thumbnailer.
func (t pathThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	end := vg.Point{X: c.Max.X - t.radius, Y: y}
	c.StrokeLine2(t.style, c.Min.X, y, end.X, y)
	starGlyph{}.DrawGlyph(c, draw.GlyphStyle{Color: t.style.Color, Radius: t.radius}, end)
}
