// Package plots draws the pictures of QUCE's results with gonum.org/v1/plot.
//
// Every plot is a function from plain result values to the bytes of one picture: SVG by
// default, PNG or PDF when Options.Format says so (ParseFormat reads a format's name). The
// pictures are self-contained (no scripts, no fetched resources), so they render in saved
// notebooks, in nbconvert's HTML and on GitHub.
//
//   - Attribution: the paper's Figure 1, one bar per feature with the ± uncertainty
//     attributions beside it.
//   - Path: the top features' values along the QUCE path, one panel per feature titled
//     with its name, with the target probability and the VAE uncertainty below.
//   - Map: the training data on its first two principal components, by class, with the
//     paths of one instance (QUCE, the dashed straight line of IG, AGI, ...) drawn over it,
//     each later path narrower so that none hides another, and a star in each method's
//     colour at its counterfactual, QUCE's on top; further counterfactuals (options) in the
//     lead's colour, each dotted in its own pattern and numbered at its star; the legend
//     shows each path's line and star as drawn.
//   - Paths: the expected attribution over many paths (exQUCE) and its spread.
//   - Evaluation: the methods side by side for each metric of an evaluation, each bar
//     labelled with its value where there is room, no two labels overlapping.
//   - Sweep: validity, proximity and counterfactual uncertainty as a λ varies.
//
// A figure's title says what it shows; its numbers (probabilities, steps, validity, how many
// features are shown) go in a note under the panels, wrapped to the figure's width, to which
// Options.Note adds the caller's own. Classes are named by Options.Classes (the data's
// labels), so a target probability reads F(benign | x) rather than F(class 1 | x). Axes
// have round ticks (1, 2 or 5 × 10^k), 0 among them whenever an axis spans it, labelled
// with no more decimals than they need ("1", not "1.0"). Lines of wrapped text are spaced
// by the font's line height, so they never touch.
//
// Colours come from the Okabe-Ito palette, which stays distinguishable for colour-blind
// readers; a method is drawn in the colour, and named by the label, its caller gives it
// (MethodStyle), so that it has the same in every plot. Pictures that
// list features grow in height with the number of features shown, so names never overlap.
// Bad input (nothing to draw, NaN or infinite values, mismatched lengths) is an error,
// never a broken picture.
package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/quce-go/quce/quce"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Format is the picture format a plot function returns.
type Format int

// The picture formats.
const (
	SVG Format = iota // scalable; text stays text
	PNG               // raster, at Options.DPI
	PDF               // scalable, for papers; text in Liberation Sans (see Options.Format)
)

// String is the format's name: "svg", "png" or "pdf".
func (f Format) String() string {
	switch f {
	case SVG:
		return "svg"
	case PNG:
		return "png"
	case PDF:
		return "pdf"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Ext is the file extension of the format, with its dot: ".svg", ".png" or ".pdf".
func (f Format) Ext() string { return "." + f.String() }

// ParseFormat reads a format's name, "svg", "png" or "pdf", in any case and with or
// without a leading dot, so that a file's extension will do.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), ".")) {
	case "svg":
		return SVG, nil
	case "png":
		return PNG, nil
	case "pdf":
		return PDF, nil
	}
	return 0, fmt.Errorf("plots: unknown picture format %q; fix: use svg, png or pdf", s)
}

// ParseSize reads a picture's size as WIDTHxHEIGHT with an optional unit, in (the default),
// cm, mm or pt, after each number or once at the end: "7x5", "7inx5in", "18x12cm",
// "504x360pt". A single number is the width, and the height is then the one the plot picks
// for its content ("6.5"); so is a height of 0 ("16cmx0"). The lengths are for
// Options.Width and Options.Height.
func ParseSize(s string) (width, height vg.Length, err error) {
	bad := func(why string) error {
		return fmt.Errorf("plots: size %q %s; fix: give WIDTHxHEIGHT in in, cm, mm or pt, such as 7x5, 18x12cm or 6.5 (the width only)", s, why)
	}
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	parts := strings.FieldsFunc(t, func(r rune) bool { return r == 'x' || r == '×' })
	if len(parts) == 0 || len(parts) > 2 || strings.Count(t, "x")+strings.Count(t, "×") != len(parts)-1 {
		return 0, 0, bad("is not WIDTHxHEIGHT")
	}
	// A unit given once, at the end, applies to both numbers.
	unitOf := func(p string) string {
		return strings.TrimLeftFunc(p, func(r rune) bool { return unicode.IsDigit(r) || r == '.' })
	}
	shared := unitOf(parts[len(parts)-1])
	var out [2]vg.Length
	for i, p := range parts {
		u := unitOf(p)
		num := strings.TrimSuffix(p, u)
		if u == "" {
			u = shared
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || num == "" {
			return 0, 0, bad(fmt.Sprintf("has %q where a number should be", p))
		}
		var unit vg.Length
		switch u {
		case "", "in", "inch":
			unit = vg.Inch
		case "cm":
			unit = vg.Centimeter
		case "mm":
			unit = vg.Millimeter
		case "pt":
			unit = vg.Points(1)
		default:
			return 0, 0, bad(fmt.Sprintf("has the unknown unit %q", u))
		}
		out[i] = vg.Length(v) * unit
	}
	if out[0] <= 0 || out[1] < 0 || out[0] > 200*vg.Inch || out[1] > 200*vg.Inch {
		return 0, 0, bad("is not a positive width with a height of 0 (automatic) or more, up to 200 in")
	}
	return out[0], out[1], nil
}

// Options are the settings every plot takes. The zero value gives a notebook-sized SVG
// picture with an automatic title and classes named "class 0", "class 1", ...
type Options struct {
	// Width and Height are the picture's size; 0 picks a size for a notebook (7 in wide,
	// and tall enough for the features or panels shown). ParseSize reads them from text.
	Width, Height vg.Length
	// Title replaces the automatic title.
	Title string
	// Note is added to the figure's note, under the panels, on a line of its own and
	// wrapped to the figure's width (at its newlines, then at "; ", then between words).
	Note string
	// Classes names the classes by their index, as the data's labels do
	// (data.Dataset.Labels): with {"malignant", "benign"} a target probability reads
	// F(benign | x). A class with no name here is "class 0", "class 1", ...
	Classes []string
	// TopK is how many features Attribution, Paths and Path show, those with the largest
	// |attribution| first; 0 picks the plot's default (all features, or for Path 4, or as
	// many as a given Height has room for).
	TopK int
	// Format is SVG (the default), PNG or PDF. A PDF keeps text that Windows-1252 can
	// encode as text (selectable, in embedded Liberation Sans) and draws other text, such as
	// Greek letters, as the same font's glyph outlines.
	Format Format
	// DPI is the resolution of PNG output; 0 means 96.
	DPI int
}

// defaultWidth suits a notebook's output cell.
const defaultWidth = 7 * vg.Inch

func (o Options) check() error {
	switch {
	case !(o.Width >= 0 && o.Height >= 0) || math.IsInf(float64(o.Width+o.Height), 0):
		return fmt.Errorf("plots: size %v × %v is not allowed; fix: use 0 for the default or a positive length", o.Width, o.Height)
	case o.TopK < 0:
		return fmt.Errorf("plots: TopK = %d is not allowed; fix: use 0 for the default or a positive count", o.TopK)
	case o.Format != SVG && o.Format != PNG && o.Format != PDF:
		return fmt.Errorf("plots: unknown format %d; fix: use plots.SVG, plots.PNG or plots.PDF", o.Format)
	case o.DPI < 0:
		return fmt.Errorf("plots: DPI = %d is not allowed; fix: use 0 for 96 or a positive resolution", o.DPI)
	}
	return nil
}

// class is the name of class c: Classes[c], or "class c" when it has none there.
func (o Options) class(c int) string {
	if c >= 0 && c < len(o.Classes) && strings.TrimSpace(o.Classes[c]) != "" {
		return strings.TrimSpace(o.Classes[c])
	}
	return fmt.Sprintf("class %d", c)
}

// note joins the automatic note and o.Note, each on lines of its own.
func (o Options) note(auto string) string {
	switch {
	case auto == "":
		return o.Note
	case o.Note == "":
		return auto
	}
	return auto + "\n" + o.Note
}

// topK is how many of n features to show.
func (o Options) topK(n, def int) int {
	k := o.TopK
	if k == 0 {
		k = def
	}
	return min(k, n)
}

// title is o.Title, or auto when that is empty.
func (o Options) title(auto string) string {
	if o.Title != "" {
		return o.Title
	}
	return auto
}

// The Okabe-Ito palette (Okabe & Ito, "Color Universal Design", 2008).
var (
	black       = color.RGBA{0x00, 0x00, 0x00, 0xff}
	skyBlue     = color.RGBA{0x56, 0xb4, 0xe9, 0xff}
	bluishGreen = color.RGBA{0x00, 0x9e, 0x73, 0xff}
	yellow      = color.RGBA{0xf0, 0xe4, 0x42, 0xff}
	blue        = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	vermillion  = color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	grey        = color.RGBA{0x99, 0x99, 0x99, 0xff}
	darkGrey    = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

// MethodStyle is how a method is drawn: its name in legends and notes, and its colour. The
// caller gives each method's (the evaluation's methods describe their own), so that a
// method has the same colour in every plot.
type MethodStyle struct {
	Label string
	Color color.Color
}

// check is an error naming what when s lacks a label or a colour.
func (s MethodStyle) check(what string) error {
	switch {
	case strings.TrimSpace(s.Label) == "":
		return fmt.Errorf("plots: %s has no label; fix: set its MethodStyle.Label to the method's name", what)
	case s.Color == nil:
		return fmt.Errorf("plots: %s (%s) has no colour; fix: set its MethodStyle.Color", what, s.Label)
	}
	return nil
}

// ordered returns keys with those in first leading, in first's order, and the rest sorted.
// Keys are matched without regard to case or surrounding spaces.
func ordered(keys []string, first []string) []string {
	rank := func(k string) int {
		for i, f := range first {
			if f == strings.ToLower(strings.TrimSpace(k)) {
				return i
			}
		}
		return len(first)
	}
	out := append([]string(nil), keys...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// sans is Liberation Sans, metrically compatible with Arial and Helvetica.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

func textStyle(f font.Font) text.Style {
	return text.Style{Color: black, Font: f, Handler: textHandler}
}

// textHandler sets every text of the package's pictures.
var textHandler text.Handler = spacedLines{text.Plain{Fonts: font.DefaultCache}}

// spacedLines is gonum's plain text handler with the lines of a text spaced by the font's
// line height, as text.Style.Height measures them. text.Plain spaces them by the font's
// size, less than the height of its glyphs, so that the lines of a wrapped note or title
// would touch or overlap.
type spacedLines struct{ text.Plain }

// Draw implements text.Handler. The last line goes where text.Plain puts it and each line
// above it one line height higher.
func (h spacedLines) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	lines := h.Lines(txt)
	if len(lines) < 2 {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	fnt := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	e := fnt.Extents()
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin, cos := math.Sincos(sty.Rotation)
	pt.X, pt.Y = pt.Y*vg.Length(sin)+pt.X*vg.Length(cos), pt.Y*vg.Length(cos)-pt.X*vg.Length(sin)
	last := pt.Y + sty.Height(txt)*vg.Length(sty.YAlign) - e.Ascent + sty.Font.Size
	for i, line := range lines {
		x := pt.X + vg.Length(sty.XAlign)*fnt.Width(line)
		c.FillString(fnt, vg.Point{X: x, Y: last + vg.Length(len(lines)-1-i)*e.Height}, line)
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

// newPanel is a plot with the package's fonts and a light grid behind the data.
func newPanel() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Handler = textHandler
	p.Title.TextStyle.Font = sans(10)
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Handler, a.Tick.Label.Handler = textHandler, textHandler
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(9)
		a.Tick.Length = vg.Points(4)
		a.Tick.Marker = roundTicks{}
		a.Padding = vg.Points(3)
	}
	return p
}

// unlabelled keeps an axis' ticks but drops their labels, for panels that share the axis
// of the panel below them.
func unlabelled(t plot.Ticker) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		ticks := slices.Clone(t.Ticks(min, max)) // a ConstantTicks may be shared
		for i := range ticks {
			ticks[i].Label = ""
		}
		return ticks
	})
}

// pad widens the range of a by frac of its span on each side, so marks at the ends of
// the data keep clear of the frame.
func pad(a *plot.Axis, frac float64) {
	d := frac * (a.Max - a.Min)
	a.Min, a.Max = a.Min-d, a.Max+d
}

// errEmpty is returned for results with nothing to draw.
var errEmpty = errors.New("plots: nothing to draw")

// ErrFailed is returned for an explanation whose paths failed (see quce.Path.Failure): a
// search that diverged has no counterfactual and no attribution to draw.
var ErrFailed = errors.New("plots: the explanation failed, so there is nothing to draw")

// checkFinite reports the first NaN or infinite value of v, named what.
func checkFinite(what string, v ...float64) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("plots: %s[%d] = %v; fix: plot only finite results", what, i, x)
		}
	}
	return nil
}

// checkLen reports a vector whose length is not n.
func checkLen(what string, v []float64, n int) error {
	if len(v) != n {
		return fmt.Errorf("plots: %s has %d values for %d features", what, len(v), n)
	}
	return nil
}

// featureNames returns names, or "feature 1", ... when names is nil.
func featureNames(names []string, n int) ([]string, error) {
	if names == nil {
		names = make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("feature %d", i+1)
		}
	}
	if len(names) != n {
		return nil, fmt.Errorf("plots: %d feature names for %d features; fix: pass one name per feature, or nil", len(names), n)
	}
	return names, nil
}

// rankByMagnitude returns the indices of the k largest |v|, largest first; ties keep the
// feature order.
func rankByMagnitude(v []float64, k int) []int {
	return quce.RankFeatures(v)[:k]
}
