// Package plots draws the pictures of QUCE's results with gonum.org/v1/plot.
//
// Every plot is a function from plain result values to the bytes of one picture: SVG by
// default, PNG when Options.Format is PNG. The pictures are self-contained (no scripts, no
// fetched resources), so they render in saved notebooks, in nbconvert's HTML and on GitHub.
//
//   - Attribution: the paper's Figure 1, one bar per feature with the ± uncertainty
//     attributions beside it.
//   - Path: the top features' values along the QUCE path, with the target probability and
//     the VAE uncertainty below.
//   - Map: the training data on its first two principal components with the paths of one
//     instance (QUCE, the straight line of IG, AGI, ...) drawn over it.
//   - Paths: the expected attribution over many paths (exQUCE) and its spread.
//   - Evaluation: the methods side by side for each metric of an evaluation.
//   - Sweep: validity, proximity and counterfactual uncertainty as a λ varies.
//
// Colours come from the Okabe-Ito palette, which stays distinguishable for colour-blind
// readers, and a method has the same colour in every plot (see MethodColor). Pictures that
// list features grow in height with the number of features shown, so names never overlap.
// Bad input (nothing to draw, NaN or infinite values, mismatched lengths) is an error,
// never a broken picture.
package plots

import (
	"errors"
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"sort"
	"strings"

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
)

// Options are the settings every plot takes. The zero value gives a picture sized for a
// notebook with an automatic title.
type Options struct {
	// Width and Height are the picture's size; 0 picks a size for a notebook (7 in wide,
	// and tall enough for the features or panels shown).
	Width, Height vg.Length
	// Title replaces the automatic title.
	Title string
	// TopK is how many features Attribution, Paths and Path show, those with the largest
	// |attribution| first; 0 picks the plot's default (all features, or 4 for Path).
	TopK int
	// Format is SVG (the default) or PNG.
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
	case o.Format != SVG && o.Format != PNG:
		return fmt.Errorf("plots: unknown format %d; fix: use plots.SVG or plots.PNG", o.Format)
	case o.DPI < 0:
		return fmt.Errorf("plots: DPI = %d is not allowed; fix: use 0 for 96 or a positive resolution", o.DPI)
	}
	return nil
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
	black         = color.RGBA{0x00, 0x00, 0x00, 0xff}
	orange        = color.RGBA{0xe6, 0x9f, 0x00, 0xff}
	skyBlue       = color.RGBA{0x56, 0xb4, 0xe9, 0xff}
	bluishGreen   = color.RGBA{0x00, 0x9e, 0x73, 0xff}
	yellow        = color.RGBA{0xf0, 0xe4, 0x42, 0xff}
	blue          = color.RGBA{0x00, 0x72, 0xb2, 0xff}
	vermillion    = color.RGBA{0xd5, 0x5e, 0x00, 0xff}
	reddishPurple = color.RGBA{0xcc, 0x79, 0xa7, 0xff}
	grey          = color.RGBA{0x99, 0x99, 0x99, 0xff}
	darkGrey      = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

// methods are the known methods in their fixed order, with their colours and labels.
var methods = []struct {
	name, label string
	color       color.Color
}{
	{"quce", "QUCE", blue},
	{"ig", "IG", orange},
	{"agi", "AGI", bluishGreen},
	{"wachter", "Wachter", reddishPurple},
	{"dice-random", "DiCE (random)", vermillion},
}

// MethodColor is the colour of a method in every plot: quce blue, ig orange, agi bluish
// green, wachter reddish purple and dice-random vermillion, from the Okabe-Ito palette.
// Other names get sky blue, black or grey, chosen by a hash of the name so that a name
// always gets the same colour. Names are matched without regard to case or surrounding
// spaces.
func MethodColor(method string) color.Color {
	key := methodKey(method)
	for _, m := range methods {
		if m.name == key {
			return m.color
		}
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	others := []color.Color{skyBlue, black, grey}
	return others[h.Sum32()%uint32(len(others))]
}

func methodKey(method string) string { return strings.ToLower(strings.TrimSpace(method)) }

// methodLabel is a method's name as a legend shows it.
func methodLabel(method string) string {
	key := methodKey(method)
	for _, m := range methods {
		if m.name == key {
			return m.label
		}
	}
	return method
}

// ordered returns keys with those in first leading, in first's order, and the rest sorted.
func ordered(keys []string, first []string) []string {
	rank := func(k string) int {
		for i, f := range first {
			if f == methodKey(k) {
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

// methodNames is the fixed order of the known methods.
func methodNames() []string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.name
	}
	return names
}

// sans is Liberation Sans, metrically compatible with Arial and Helvetica.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

func textStyle(f font.Font) text.Style {
	return text.Style{Color: black, Font: f, Handler: plot.DefaultTextHandler}
}

// newPanel is a plot with the package's fonts and a light grid behind the data.
func newPanel() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = sans(10)
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10)
		a.Tick.Label.Font = sans(9)
		a.Tick.Length = vg.Points(4)
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
