package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/quce-go/quce/data"
)

// MapPath is one method's path for one instance, in standardised units: Points[0] is the
// instance and the last point its counterfactual. A straight line (IG's path) needs only
// its two ends.
type MapPath struct {
	MethodStyle // the method's name in the legend and its colour
	// Straight: the path is a straight line to another path's counterfactual (IG's), drawn
	// dashed so that the path it runs along stays visible.
	Straight bool
	// Lead: the path the figure is about (QUCE's): its star is drawn above the others', and
	// the note says when a straight path ends at it.
	Lead bool
	// Option numbers a further counterfactual of the lead's method (2, 3, …; 0 for any other
	// path): the options share the lead's colour, so each is dotted in a pattern of its own
	// and its star carries its number. Its label names it ("option 2: holds age").
	Option int
	Points [][]float64
}

// Map draws the training data on its first two principal components (PCA fitted on the
// standardised training rows), one colour and shape per class, named by o.Classes, with
// each path of paths drawn over it in its method's colour: a ring marks the start and a
// star in the method's colour its counterfactual. train holds standardised rows and labels
// their classes (0 … C−1); paths may be empty.
//
// The first path is drawn widest and at the bottom, each later one narrower, over a white
// casing, so that paths which run together stay visible; a straight line is dashed, and an
// option (MapPath.Option) dotted and numbered at its star. Stars are drawn in the opposite
// order, with the lead path's on top: IG's line ends at QUCE's counterfactual, and the star
// there is QUCE's.
func Map(train [][]float64, labels []int, paths []MapPath, o Options) ([]byte, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := checkMap(train, labels, paths); err != nil {
		return nil, err
	}
	mean, axes, share, err := pca(train)
	if err != nil {
		return nil, err
	}
	project := func(rows [][]float64) plotter.XYs {
		xys := make(plotter.XYs, len(rows))
		for i, r := range rows {
			for j, v := range r {
				xys[i].X += (v - mean[j]) * axes[0][j]
				xys[i].Y += (v - mean[j]) * axes[1][j]
			}
		}
		return xys
	}

	p := newPanel()
	p.Add(plotter.NewGrid())
	legend := addTrainingRows(p, project(train), labels, o)
	legend = append(legend, addMapPaths(p, paths, project)...)
	var note []string
	if len(paths) > 0 {
		legend = append(legend, legendItem{"start x", []plot.Thumbnailer{marker(nil, startGlyph{}, black, vg.Points(4.5))}})
		note = append(note, "A ring marks the instance x, and a star in a method's colour the end of its path, its counterfactual.")
		if straight, lead, ok := sharedEnd(paths); ok {
			note = append(note, fmt.Sprintf("%s's straight line ends at %s's counterfactual.", straight, lead))
		}
		if slices.ContainsFunc(paths, func(mp MapPath) bool { return mp.Option > 0 }) {
			note = append(note, "An option is a further counterfactual, searched again with the columns its entry names held at x's values; its number marks its star.")
		}
	}
	note = append(note, "Principal components of the standardised training rows.")
	pad(&p.X, 0.03)
	pad(&p.Y, 0.03)
	p.X.Label.Text = fmt.Sprintf("PC1 (%.0f%% of variance)", 100*share[0])
	p.Y.Label.Text = fmt.Sprintf("PC2 (%.0f%% of variance)", 100*share[1])

	auto := "Training data on its first two principal components"
	if len(paths) > 0 {
		auto = "Paths of one instance over the training data"
	}
	f := &figure{title: o.title(auto), legend: legend, cols: 1, panels: []*plot.Plot{p},
		note: o.note(strings.Join(note, " "))}
	return render(f, o, 5*vg.Inch)
}

// addTrainingRows draws the training rows, projected to all, one marker per class of labels,
// and returns the classes' legend items.
func addTrainingRows(p *plot.Plot, all plotter.XYs, labels []int, o Options) []legendItem {
	var legend []legendItem
	classes := slices.Max(labels) + 1
	for class := range classes {
		var xys plotter.XYs
		for i, xy := range all {
			if labels[i] == class {
				xys = append(xys, xy)
			}
		}
		if len(xys) == 0 {
			continue
		}
		shape, c := classStyle(class)
		s := marker(xys, shape, c, vg.Points(2.2))
		p.Add(s)
		legend = append(legend, legendItem{o.class(class) + " (training)", []plot.Thumbnailer{marker(nil, shape, c, vg.Points(3))}})
	}
	return legend
}

// addMapPaths draws the paths, projected by project, each with a ring at its start and a
// star at its end (an option's numbered), and returns a legend item per label.
func addMapPaths(p *plot.Plot, paths []MapPath, project func([][]float64) plotter.XYs) []legendItem {
	var legend []legendItem
	seen := map[string]bool{}
	type end struct {
		xy     plotter.XYs
		c      color.Color
		lead   bool
		option int
	}
	var starts []plot.Plotter
	var ends []end
	for i, mp := range paths {
		xys := project(mp.Points)
		sty := draw.LineStyle{Color: mp.Color, Width: vg.Points(math.Max(1.5, 3.5-float64(i))), Dashes: mp.dashes()}
		p.Add(&pathLine{xys: xys, style: sty})
		starts = append(starts, marker(xys[:1], startGlyph{}, black, vg.Points(4.5)))
		ends = append(ends, end{xys[len(xys)-1:], sty.Color, mp.Lead, mp.Option})
		if !seen[mp.Label] {
			seen[mp.Label] = true
			legend = append(legend, legendItem{mp.Label, []plot.Thumbnailer{pathThumb{style: sty, radius: vg.Points(5)}}})
		}
	}
	p.Add(starts...)
	// The first path's star on top, and the lead path's above all.
	slices.Reverse(ends)
	slices.SortStableFunc(ends, func(a, b end) int {
		switch {
		case a.lead == b.lead:
			return 0
		case b.lead:
			return -1
		}
		return 1
	})
	var numbers plotter.XYLabels
	for _, e := range ends {
		p.Add(marker(e.xy, starGlyph{}, e.c, vg.Points(7)))
		if e.option > 0 {
			numbers.XYs = append(numbers.XYs, e.xy...)
			numbers.Labels = append(numbers.Labels, strconv.Itoa(e.option))
		}
	}
	if len(numbers.XYs) > 0 { // above every star, so that none hides a number
		p.Add(optionNumbers(numbers))
	}
	return legend
}

// dashes is the dash pattern of mp's line: none for a method's own path, IG's dashes for a
// straight line, and for an option one of optionDashes, in turn (its number at its star
// tells options of one pattern apart).
func (mp MapPath) dashes() []vg.Length {
	switch {
	case mp.Straight:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case mp.Option > 0:
		return optionDashes[(mp.Option-2)%len(optionDashes)]
	}
	return nil
}

// optionDashes are the options' dash patterns: dots, dash-dot and dash-dot-dot, each
// unlike IG's even dashes.
var optionDashes = [][]vg.Length{
	{vg.Points(1.5), vg.Points(2)},
	{vg.Points(7), vg.Points(2), vg.Points(1.5), vg.Points(2)},
	{vg.Points(7), vg.Points(2), vg.Points(1.5), vg.Points(2), vg.Points(1.5), vg.Points(2)},
}

// optionNumbers writes each option's number above and to the right of its star.
func optionNumbers(numbers plotter.XYLabels) *plotter.Labels {
	sty := textStyle(font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold, Size: 9})
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	l := &plotter.Labels{XYs: numbers.XYs, Labels: numbers.Labels, Offset: vg.Point{X: vg.Points(4), Y: vg.Points(4)}}
	for range l.Labels {
		l.TextStyle = append(l.TextStyle, sty)
	}
	return l
}

// sharedEnd reports whether the first straight path ends where the first lead path does,
// up to rounding, and returns their labels.
func sharedEnd(paths []MapPath) (straight, lead string, ok bool) {
	i := slices.IndexFunc(paths, func(mp MapPath) bool { return mp.Straight })
	j := slices.IndexFunc(paths, func(mp MapPath) bool { return mp.Lead })
	if i < 0 || j < 0 {
		return "", "", false
	}
	a, b := paths[i].Points[len(paths[i].Points)-1], paths[j].Points[len(paths[j].Points)-1]
	return paths[i].Label, paths[j].Label, slices.EqualFunc(a, b, func(u, v float64) bool {
		return math.Abs(u-v) <= 1e-9*(1+math.Abs(u)+math.Abs(v))
	})
}

// classStyle is the glyph and colour of a class's training points: sky blue, yellow and
// grey, faded so the paths stand out; past three
// classes the shapes change (disc, square, triangle) and the colours repeat.
func classStyle(class int) (draw.GlyphDrawer, color.Color) {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	return shapes[(class/len(classColors))%len(shapes)], classColors[class%len(classColors)]
}

// classColors colour the training points by class.
var classColors = [3]color.Color{fade(skyBlue, 0.6), fade(yellow, 0.8), fade(grey, 0.6)}

// checkMap checks Map's input: a non-empty, rectangular, finite training set with class
// labels 0 … MaxMapClasses−1 and paths in its dimension.
func checkMap(train [][]float64, labels []int, paths []MapPath) error {
	if len(train) == 0 {
		return fmt.Errorf("%w: no training rows", errEmpty)
	}
	d := len(train[0])
	if d < 2 {
		return fmt.Errorf("plots: the training rows have %d features; a map needs at least 2", d)
	}
	for i, r := range train {
		if err := checkVector(fmt.Sprintf("train[%d]", i), r, d); err != nil {
			return err
		}
	}
	if len(labels) != len(train) {
		return fmt.Errorf("plots: %d labels for %d training rows", len(labels), len(train))
	}
	for i, l := range labels {
		if l < 0 || l >= MaxMapClasses {
			return fmt.Errorf("plots: labels[%d] = %d; fix: use the class indices 0 … C−1 (at most %d classes)", i, l, MaxMapClasses)
		}
	}
	for i, mp := range paths {
		if err := mp.check(fmt.Sprintf("path %d", i)); err != nil {
			return err
		}
		if mp.Option < 0 || mp.Option == 1 {
			return fmt.Errorf("plots: path %d (%s) is option %d; fix: number the further options 2, 3, … (the lead path is the first; 0 for a path of its own method)", i, mp.Label, mp.Option)
		}
		if len(mp.Points) == 0 {
			return fmt.Errorf("%w: path %d (%s) has no points", errEmpty, i, mp.Label)
		}
		for s, pt := range mp.Points {
			if err := checkVector(fmt.Sprintf("paths[%d].Points[%d]", i, s), pt, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// MaxMapClasses is the most classes Map draws, as many as a data set may have
// (data.MaxClasses).
const MaxMapClasses = data.MaxClasses

// pca returns the mean of rows, their two leading principal axes (unit vectors, each with
// its largest component positive) and the share of the total variance along each. It uses
// subspace iteration on the covariance matrix, which converges quickly for the few
// dozen features of tabular data.
func pca(rows [][]float64) (mean []float64, axes [2][]float64, share [2]float64, err error) {
	d, n := len(rows[0]), float64(len(rows))
	mean = make([]float64, d)
	for _, r := range rows {
		for j, v := range r {
			mean[j] += v / n
		}
	}
	cov := make([][]float64, d)
	for i := range cov {
		cov[i] = make([]float64, d)
	}
	total := 0.0
	for _, r := range rows {
		for i := range d {
			for j := range d {
				cov[i][j] += (r[i] - mean[i]) * (r[j] - mean[j]) / n
			}
		}
	}
	for i := range d {
		total += cov[i][i]
	}
	if !(total > 0) {
		return nil, axes, share, errors.New("plots: the training rows are all equal; a map needs spread")
	}
	for i := range d { // a fixed start, generic enough not to be orthogonal to the leading axes
		axes[0] = append(axes[0], 1+float64(i)/float64(d))
		axes[1] = append(axes[1], math.Pow(-1, float64(i))*(1+float64(i)/float64(2*d)))
	}
	orthonormalise(&axes, axes)
	for range 2000 {
		var next [2][]float64
		for k := range axes {
			next[k] = mulVec(cov, axes[k])
		}
		prev := axes
		orthonormalise(&axes, next)
		if moved(prev[0], axes[0]) < 1e-13 && moved(prev[1], axes[1]) < 1e-13 {
			break
		}
	}
	for k, a := range axes {
		big := 0
		for j := range a {
			if math.Abs(a[j]) > math.Abs(a[big]) {
				big = j
			}
		}
		if a[big] < 0 {
			for j := range a {
				a[j] = -a[j]
			}
		}
		share[k] = dot(a, mulVec(cov, a)) / total
	}
	return mean, axes, share, nil
}

// orthonormalise sets dst to the Gram-Schmidt orthonormalisation of v. When v[1] has no
// part orthogonal to v[0] (data of rank 1), it keeps dst[1] made orthogonal to the new
// dst[0], which then spans no variance.
func orthonormalise(dst *[2][]float64, v [2][]float64) {
	a := scale(v[0], 1/math.Sqrt(dot(v[0], v[0])))
	b := sub(v[1], scale(a, dot(a, v[1])))
	if nb := math.Sqrt(dot(b, b)); nb > 1e-12*math.Sqrt(dot(v[1], v[1])) {
		b = scale(b, 1/nb)
	} else {
		b = sub(dst[1], scale(a, dot(a, dst[1])))
		b = scale(b, 1/math.Sqrt(dot(b, b)))
	}
	dst[0], dst[1] = a, b
}

// moved is how far the unit vector b is from a, up to sign.
func moved(a, b []float64) float64 {
	d := sub(a, scale(b, math.Copysign(1, dot(a, b))))
	return math.Sqrt(dot(d, d))
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func scale(a []float64, c float64) []float64 {
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = c * v
	}
	return out
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func mulVec(m [][]float64, v []float64) []float64 {
	out := make([]float64, len(m))
	for i, row := range m {
		out[i] = dot(row, v)
	}
	return out
}
