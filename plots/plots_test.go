package plots

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/quce"
)

// mapFixture is two classes of points in 5 features with three paths between them.
func mapFixture() ([][]float64, []int, []MapPath) {
	r := rand.New(rand.NewPCG(1, 2))
	var train [][]float64
	var labels []int
	for i := range 200 {
		c := i % 2
		row := make([]float64, 5)
		for j := range row {
			row[j] = r.NormFloat64() + 2*float64(c) - 1
		}
		train, labels = append(train, row), append(labels, c)
	}
	x, xc := []float64{-1, -1, -1, -1, -1}, []float64{1, 1, 1, 1, 1}
	var curve [][]float64
	for s := 0; s <= 20; s++ {
		t := float64(s) / 20
		pt := make([]float64, 5)
		for j := range pt {
			pt[j] = -1 + 2*t + math.Sin(math.Pi*t)*float64(j-2)*0.5
		}
		curve = append(curve, pt)
	}
	return train, labels, []MapPath{
		{MethodStyle: methodStyle("quce"), Lead: true, Points: curve},
		{MethodStyle: methodStyle("ig"), Straight: true, Points: [][]float64{x, xc}},
		{MethodStyle: methodStyle("agi"), Points: [][]float64{x, {0, 0.5, 0, -0.5, 0}, xc}},
	}
}

// mapOptionsFixture is mapFixture with two further counterfactuals of QUCE's (options 2
// and 3), each from x to an end of its own.
func mapOptionsFixture() ([][]float64, []int, []MapPath) {
	train, labels, paths := mapFixture()
	x := paths[0].Points[0]
	for k, end := range [][]float64{{1, -1, 1, 1, 1}, {1, 1, 0.5, -1, -1}} {
		var curve [][]float64
		for s := 0; s <= 20; s++ {
			t := float64(s) / 20
			pt := make([]float64, len(x))
			for j := range pt {
				pt[j] = x[j] + t*(end[j]-x[j]) + math.Sin(math.Pi*t)*0.3*float64(k+1)
			}
			curve = append(curve, pt)
		}
		held := []string{"f1", "f1, f3"}[k]
		paths = append(paths, MapPath{MethodStyle: MethodStyle{Label: "option " + strconv.Itoa(k+2) + ": holds " + held, Color: methodStyle("quce").Color},
			Option: k + 2, Points: curve})
	}
	return train, labels, paths
}

// metricFixture is a metric table of six methods, quce first, in an order that is neither
// eval's nor alphabetical, with two lacking a metric.
func metricFixture() MetricTable {
	methods := []string{"quce", "dice-random", "other", "ig", "wachter", "agi"}
	values := map[string]map[string]map[string]float64{}
	for i, m := range methods {
		values[m] = map[string]map[string]float64{}
		for _, s := range []string{"test", "train"} {
			values[m][s] = map[string]float64{"validity": 1 - 0.1*float64(i), "proximity_l1": 10 + float64(i)}
			if m != "wachter" && m != "dice-random" {
				values[m][s]["completeness_gap"] = 0.001 * float64(i+1)
			}
		}
	}
	return metricTable(methods, values)
}

func sweepFixture() []eval.SweepPoint {
	var pts []eval.SweepPoint
	for i, l := range []float64{1, 0.01, 0.1, 0.03, 0.3} { // unsorted on purpose
		pts = append(pts, eval.SweepPoint{Lambda: l, Validity: 1 - 0.05*float64(i), ProximityL1: 10 + 10*l, CFUncertainty: 5 / (1 + 10*l)})
	}
	return pts
}

// allPlots draws each plot from the fixtures.
func allPlots() map[string]func(Options) ([]byte, error) {
	ex, names := fixture(30, 1, 50)
	exm, _ := fixture(30, 12, 50)
	scaler := &data.Scaler{Mean: make([]float64, 30), Std: slices.Repeat([]float64{2}, 30)}
	train, labels, paths := mapFixture()
	return map[string]func(Options) ([]byte, error){
		"Attribution":     func(o Options) ([]byte, error) { return Attribution(ex, names, o) },
		"Path":            func(o Options) ([]byte, error) { return Path(ex, names, scaler, o) },
		"Map":             func(o Options) ([]byte, error) { return Map(train, labels, paths, o) },
		"Paths":           func(o Options) ([]byte, error) { return Paths(exm, names, o) },
		"Evaluation":      func(o Options) ([]byte, error) { return Evaluation(metricFixture(), nil, o) },
		"Sweep":           func(o Options) ([]byte, error) { return Sweep(sweepFixture(), "λ3", o) },
		"RecourseColumns": func(o Options) ([]byte, error) { return RecourseColumns(summaryFixture(), o) },
		"RecourseCost":    func(o Options) ([]byte, error) { return RecourseCost(summaryFixture(), "housing", o) },
		"RecourseGroups":  func(o Options) ([]byte, error) { return RecourseGroups(summaryFixture(), "housing", o) },
	}
}

func TestEveryPlotIsWellFormedSVG(t *testing.T) {
	for name, draw := range allPlots() {
		t.Run(name, func(t *testing.T) {
			b, err := draw(Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			if got, want := doc.Width, defaultWidth.Points(); got != want {
				t.Errorf("width %gpt, want the notebook default %gpt", got, want)
			}
			if len(doc.Texts) == 0 {
				t.Error("no text")
			}
			if !strings.Contains(string(b), "sans-serif") {
				t.Error("the text names no generic sans-serif fallback")
			}
		})
	}
}

func TestEveryPlotRendersToPNG(t *testing.T) {
	for name, draw := range allPlots() {
		t.Run(name, func(t *testing.T) {
			b, err := draw(Options{Format: PNG})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := checkPNG(t, b).Bounds().Dx(), int(7*96); got != want {
				t.Errorf("the PNG is %d px wide, want 7 in at 96 dpi: %d", got, want)
			}
		})
	}
}

func TestPNGResolution(t *testing.T) {
	b, err := Sweep(sweepFixture(), "λ3", Options{Format: PNG, DPI: 150, Width: 4 * vg.Inch, Height: 5 * vg.Inch})
	if err != nil {
		t.Fatal(err)
	}
	if got := checkPNG(t, b).Bounds().Size(); got != (image.Point{600, 750}) {
		t.Errorf("a 4 × 5 in PNG at 150 dpi is %v px, want 600 × 750", got)
	}
}

func TestEverySVGRendersWithRSVG(t *testing.T) {
	for name, draw := range allPlots() {
		t.Run(name, func(t *testing.T) {
			b, err := draw(Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkRSVG(t, b)
		})
	}
}

func TestOptionsSizeAndTitle(t *testing.T) {
	for _, tc := range []struct {
		size string  // as ParseSize reads it
		w, h float64 // in points; a height of 0 is the one the content needs
	}{
		{"500x400pt", 500, 400},
		{"18x12cm", 18 * vg.Centimeter.Points(), 12 * vg.Centimeter.Points()},
		{"9", 648, 0},
	} {
		w, h, err := ParseSize(tc.size)
		if err != nil {
			t.Fatal(err)
		}
		for name, draw := range allPlots() {
			t.Run(tc.size+" "+name, func(t *testing.T) {
				b, err := draw(Options{Width: w, Height: h, Title: "My own title"})
				if err != nil {
					t.Fatal(err)
				}
				doc := parseSVG(t, b)
				if math.Abs(doc.Width-tc.w) > 0.01 || tc.h != 0 && math.Abs(doc.Height-tc.h) > 0.01 {
					t.Errorf("size %g × %g pt, want %.2f × %.2f", doc.Width, doc.Height, tc.w, tc.h)
				}
				if tc.h == 0 {
					auto, err := draw(Options{Width: w})
					if err != nil {
						t.Fatal(err)
					}
					if d := parseSVG(t, auto); d.Height != doc.Height {
						t.Errorf("height %g pt with a title of its own, %g pt with the automatic one", doc.Height, d.Height)
					}
				}
				if len(doc.find("My own title")) != 1 {
					t.Error("the title from Options is not drawn once")
				}
			})
		}
	}
}

// ranked returns the features by |v|, largest first, independently of the package.
func ranked(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(v[idx[a]]) > math.Abs(v[idx[b]]) })
	return idx
}

// checkRows checks a feature panel: the first k ranked names appear once each, top to
// bottom in rank order and at least a line apart, and no other feature name appears.
func checkRows(t *testing.T, doc svgDoc, names []string, rank []int, k int) {
	t.Helper()
	prevY := math.Inf(-1)
	for r, f := range rank {
		got := doc.find(names[f])
		if r >= k {
			if len(got) != 0 {
				t.Errorf("feature %q of rank %d is drawn, but only %d are shown", names[f], r, k)
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("feature %q of rank %d appears %d times, want once", names[f], r, len(got))
		}
		// SVG's y grows downwards: each row is lower than the one before, by at least
		// the 9 pt of the name's font, so names never overlap.
		if gap := got[0].Y - prevY; gap < 9 {
			t.Errorf("feature %q is %.1fpt below the row above; names overlap", names[f], gap)
		}
		prevY = got[0].Y
	}
}

func TestAttribution(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, topK   int
		unnamed   bool
		wantShown int
	}{
		{name: "30 features", n: 30, wantShown: 30},
		{name: "60 features", n: 60, wantShown: 60},
		{name: "top 10 of 60", n: 60, topK: 10, wantShown: 10},
		{name: "TopK above n", n: 12, topK: 40, wantShown: 12},
		{name: "unnamed", n: 12, unnamed: true, wantShown: 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, names := fixture(tc.n, 1, 20)
			arg := names
			if tc.unnamed {
				arg = nil
				for i := range names {
					names[i] = fmt.Sprintf("feature %d", i+1)
				}
			}
			b, err := Attribution(ex, arg, Options{TopK: tc.topK})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			checkRows(t, doc, names, ranked(ex.Attribution), tc.wantShown)
			// One bar of each kind per shown feature, plus one in the legend.
			for what, c := range map[string]color.Color{"Φ": blue, "Φ+": skyBlue, "Φ−": darkGrey} {
				if got := doc.fills(c); got != tc.wantShown+1 {
					t.Errorf("%d %s bars (with the legend's), want %d", got, what, tc.wantShown+1)
				}
			}
			for _, s := range []string{
				"Φ: along the path x → x_c", "Φ+: x_c → x_c + ε", "Φ−: x_c → x_c − ε",
				"attribution Φ (probability)", "uncertainty attribution Φ± (probability)",
			} {
				if len(doc.find(s)) != 1 {
					t.Errorf("no text %q", s)
				}
			}
			if !doc.hasText("0.120 → 0.900") {
				t.Error("the title does not give the probability before → after")
			}
			if tc.topK > 0 && tc.topK < tc.n && !doc.hasText("top 10 of 60 features") {
				t.Error("the title does not say that only the top features are shown")
			}
			if min := float64(tc.wantShown) * rowHeight.Points(); doc.Height < min {
				t.Errorf("height %gpt for %d rows; want at least %gpt", doc.Height, tc.wantShown, min)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, m, k int
	}{
		{"one path", 30, 1, 30},
		{"20 paths, 60 features", 60, 20, 60},
		{"20 paths, top 8", 30, 20, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, names := fixture(tc.n, tc.m, 10)
			topK := 0
			if tc.k < tc.n {
				topK = tc.k
			}
			b, err := Paths(ex, names, Options{TopK: topK})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			checkRows(t, doc, names, ranked(ex.Attribution), tc.k)
			if got := doc.fills(blue); got != tc.k+1 {
				t.Errorf("%d mean bars (with the legend's), want %d", got, tc.k+1)
			}
			if got := doc.fills(black); got != tc.k*tc.m+1 {
				t.Errorf("%d dots for single paths (with the legend's), want %d", got, tc.k*tc.m+1)
			}
			for _, s := range []string{"± 1 standard deviation", "Φ of one path", "attribution Φ (probability)"} {
				if len(doc.find(s)) != 1 {
					t.Errorf("no text %q", s)
				}
			}
			if !doc.hasText(fmt.Sprintf("over the %d paths", tc.m)) {
				t.Error("the legend does not give the number of paths")
			}
		})
	}
}

func TestPath(t *testing.T) {
	ex, names := fixture(30, 1, 40)
	scaler := &data.Scaler{Mean: slices.Repeat([]float64{100}, 30), Std: slices.Repeat([]float64{10}, 30)}
	for _, tc := range []struct {
		name   string
		topK   int
		height vg.Length
		scaler *data.Scaler
		k      int
		unit   string
		held   []int // the columns its search held (a further counterfactual's path)
		title  string
	}{
		{"default", 0, 0, scaler, 4, "original units", nil, "QUCE path from x to its counterfactual"},
		{"top 7, standardised", 7, 0, nil, 7, "standardised", nil, "QUCE path from x to its counterfactual"},
		{"a height with room for 2 features", 0, 12 * vg.Centimeter, scaler, 2, "original units", nil, "QUCE path from x to its counterfactual"},
		{"a further counterfactual", 0, 0, scaler, 4, "original units", []int{3, 0}, "QUCE path to a further counterfactual, holding 2 columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, p := *ex, *ex.Path0()
			p.Held = tc.held
			e.Paths = []*quce.Path{&p}
			b, err := Path(&e, names, tc.scaler, Options{TopK: tc.topK, Height: tc.height})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			if len(doc.find(tc.title)) != 1 {
				t.Errorf("the title is not %q", tc.title)
			}
			rank := ranked(ex.Path0().Attribution)
			for r, f := range rank {
				shown := len(doc.find(names[f])) == 1 // a panel's title
				if shown != (r < tc.k) {
					t.Errorf("feature %q of rank %d: panel drawn = %v, want %v", names[f], r, shown, r < tc.k)
				}
			}
			// A label longer than a short panel is wrapped: "original" over "units".
			got := len(doc.find(tc.unit))
			if first := strings.Fields(tc.unit)[0]; first != tc.unit {
				got += len(doc.find(first))
			}
			if got != tc.k {
				t.Errorf("%d feature panels labelled %q, want %d", got, tc.unit, tc.k)
			}
			if want := fmt.Sprintf("top %d of 30 features", tc.k); !doc.hasText(want) {
				t.Errorf("the note does not say %q", want)
			}
			for _, s := range []string{"optimisation step", "probability", "L_ε", "target probability F(class 1 | ·)", "VAE uncertainty L_ε (negative ELBO)"} {
				if len(doc.find(s)) != 1 {
					t.Errorf("no text %q", s)
				}
			}
			// In original units the top feature moves from 100 + 10·0 to 100 + 10·Δ; a feature
			// whose Δ is 0 is "unchanged at 100", said once.
			top := rank[0]
			end := strconv.FormatFloat(100+10*float64(top%5-2)*0.3, 'g', 4, 64)
			move := names[top] + ": 100 → " + end + ", Φ = "
			if end == "100" {
				move = names[top] + ": unchanged at 100, Φ = "
			}
			if tc.scaler != nil && !doc.hasText(move) {
				t.Errorf("the note does not give the top feature going from 100 to %s (original units): want %q", end, move)
			}
		})
	}
}

func TestMap(t *testing.T) {
	train, labels, paths := mapFixture()
	b, err := Map(train, labels, paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	for _, s := range []string{"class 0 (training)", "class 1 (training)", "QUCE", "IG", "AGI", "start x"} {
		if len(doc.find(s)) != 1 {
			t.Errorf("legend entry %q is not drawn once", s)
		}
	}
	if !doc.hasText("PC1 (") || !doc.hasText("PC2 (") || !doc.hasText("of variance") {
		t.Error("the axes are not labelled with the principal components")
	}
	// One star per path in the method's colour and one in its legend symbol; one dot per
	// training row and one in the legend per class.
	for _, m := range []string{"quce", "ig", "agi"} {
		if got := doc.fills(methodStyle(m).Color); got != 2 {
			t.Errorf("%d counterfactual stars in %s's colour (with the legend's), want 2", got, m)
		}
	}
	for class, c := range classColors[:2] {
		if got := doc.fills(c); got != 100+1 {
			t.Errorf("%d class %d dots (with the legend's), want 101", got, class)
		}
	}

	b, err = Map(train, labels, nil, Options{})
	if err != nil {
		t.Fatalf("a map without paths: %v", err)
	}
	if parseSVG(t, b).hasText("counterfactual") {
		t.Error("a map without paths has a counterfactual legend entry")
	}
}

// Each option is a path of its own on the map: a legend entry, a line in QUCE's colour
// dotted in its own pattern (the same in the legend), a star and its number in bold; with
// no options the map has only QUCE's.
func TestMapOptions(t *testing.T) {
	train, labels, one := mapFixture()
	_, _, three := mapOptionsFixture()
	quceLine := "fill:none;" + strings.Replace(fillOf(methodStyle("quce").Color), "fill:", "stroke:", 1) + ";"
	for _, tc := range []struct {
		name    string
		paths   []MapPath
		options []string // the legend's entries of the options
	}{
		{"one counterfactual", one, nil},
		{"three counterfactuals", three, []string{"option 2: holds f1", "option 3: holds f1, f3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Map(train, labels, tc.paths, Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			paths := 1 + len(tc.options) // QUCE's first and each option
			for _, s := range tc.options {
				if len(doc.find(s)) != 1 {
					t.Errorf("legend entry %q is not drawn once", s)
				}
			}
			if got := doc.fills(methodStyle("quce").Color); got != 2*paths {
				t.Errorf("%d stars in QUCE's colour (with the legend's), want %d", got, 2*paths)
			}
			lines := map[string]int{} // the styles of the lines in QUCE's colour
			for _, st := range doc.PathStyles {
				if strings.HasPrefix(st, quceLine) {
					lines[st]++
				}
			}
			if len(lines) != paths {
				t.Errorf("lines in QUCE's colour %v; want %d styles, one per path", lines, paths)
			}
			for st, n := range lines {
				if n != 2 {
					t.Errorf("%d lines of style %q, want 2 (the legend's and the map's)", n, st)
				}
			}
			for k := range tc.options {
				number := strconv.Itoa(k + 2)
				if !slices.ContainsFunc(doc.find(number), func(tx svgText) bool { return strings.Contains(tx.Style, "font-weight:bold") }) {
					t.Errorf("option %s's star has no number", number)
				}
			}
			var texts []string
			for _, tx := range doc.Texts {
				texts = append(texts, tx.Text)
			}
			if got := strings.Contains(strings.Join(texts, " "), "An option is a further counterfactual"); got != (len(tc.options) > 0) {
				t.Errorf("the note explains options: %v, want %v", got, len(tc.options) > 0)
			}
		})
	}
}

func TestPCA(t *testing.T) {
	// Points on the axes: the covariance is diag(3, 4/3, 1/3).
	rows := [][]float64{{3, 0, 0}, {-3, 0, 0}, {0, 2, 0}, {0, -2, 0}, {0, 0, 1}, {0, 0, -1}}
	mean, axes, share, err := pca(rows)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b []float64) bool {
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9 {
				return false
			}
		}
		return true
	}
	if !near(mean, []float64{0, 0, 0}) || !near(axes[0], []float64{1, 0, 0}) || !near(axes[1], []float64{0, 1, 0}) {
		t.Errorf("mean %v, axes %v; want 0 and the first two unit vectors", mean, axes)
	}
	if !near(share[:], []float64{9.0 / 14, 4.0 / 14}) {
		t.Errorf("variance shares %v, want 9/14 and 4/14", share)
	}

	// Rank-1 data: the second axis carries no variance but is still a unit vector
	// orthogonal to the first.
	_, axes, share, err = pca([][]float64{{1, 2}, {2, 4}, {3, 6}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(share[0]-1) > 1e-9 || math.Abs(share[1]) > 1e-9 || math.Abs(dot(axes[0], axes[1])) > 1e-9 || math.Abs(dot(axes[1], axes[1])-1) > 1e-9 {
		t.Errorf("rank-1 data: axes %v, shares %v", axes, share)
	}

	if _, _, _, err := pca([][]float64{{1, 1}, {1, 1}}); err == nil {
		t.Error("equal rows gave no error")
	}
}

func TestEvaluation(t *testing.T) {
	table := metricFixture()
	for _, tc := range []struct {
		name    string
		metrics []string
		want    []string // legend, in order
		bars    map[color.Color]int
	}{
		{"all metrics", nil,
			[]string{"QUCE", "DiCE (random)", "other", "IG", "Wachter", "AGI"},
			map[color.Color]int{methodStyle("quce").Color: 3*2 + 1, methodStyle("wachter").Color: 2*2 + 1}},
		{"a metric Wachter lacks", []string{"completeness_gap"},
			[]string{"QUCE", "other", "IG", "AGI"},
			map[color.Color]int{methodStyle("quce").Color: 2 + 1, methodStyle("wachter").Color: 0, methodStyle("dice-random").Color: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Evaluation(table, tc.metrics, Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			prevX := math.Inf(-1)
			for _, m := range tc.want {
				got := doc.find(m)
				if len(got) != 1 {
					t.Fatalf("legend entry %q appears %d times", m, len(got))
				}
				if got[0].X <= prevX {
					t.Errorf("legend entry %q is out of the table's order", m)
				}
				prevX = got[0].X
			}
			for _, absent := range []string{"Wachter", "DiCE (random)"} {
				if !slices.Contains(tc.want, absent) && len(doc.find(absent)) != 0 {
					t.Errorf("method %q lacks the metric but is in the legend", absent)
				}
			}
			for c, n := range tc.bars {
				if got := doc.fills(c); got != n {
					t.Errorf("%d bars in %v, want %d", got, c, n)
				}
			}
			metrics := tc.metrics
			if metrics == nil {
				metrics = []string{"completeness_gap", "proximity_l1", "validity"}
			}
			for _, m := range metrics {
				if len(doc.find(m)) != 1 {
					t.Errorf("no axis label %q", m)
				}
			}
			train, test := doc.find("train"), doc.find("test")
			if len(train) != len(metrics) || len(test) != len(metrics) || train[0].X >= test[0].X {
				t.Error("the splits are not labelled train, then test, under every panel")
			}
		})
	}
}

func TestSweep(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lambda []float64
		label  string
		ticks  []string
	}{
		{"log axis", []float64{0.01, 0.1, 1, 10}, "λ3 (log scale)", []string{"0.01", "0.1", "1", "10"}},
		{"zero and a wide span", []float64{0, 0.01, 0.03, 0.1, 1}, "λ3 (values evenly spaced)", []string{"0", "0.01", "0.03", "0.1", "1"}},
		{"narrow span", []float64{0.1, 0.2, 0.3}, "λ3", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pts []eval.SweepPoint
			for _, l := range tc.lambda {
				pts = append(pts, eval.SweepPoint{Lambda: l, Validity: 0.9, ProximityL1: 1 + l, CFUncertainty: 2 - l/10})
			}
			b, err := Sweep(pts, "λ3", Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			for _, s := range []string{tc.label, "validity", "share valid", "standardised units", "L_ε"} {
				if len(doc.find(s)) != 1 {
					t.Errorf("text %q is not drawn once", s)
				}
			}
			for _, s := range tc.ticks {
				if len(doc.find(s)) == 0 {
					t.Errorf("no tick label %q", s)
				}
			}
			// Three panels, one marker per point in each.
			if got := doc.fills(blue); got != 3*len(pts) {
				t.Errorf("%d markers, want %d", got, 3*len(pts))
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	ex, names := fixture(6, 2, 5)
	mod := func(f func(*quce.Explanation)) *quce.Explanation {
		c, _ := fixture(6, 2, 5)
		f(c)
		return c
	}
	train, labels, paths := mapFixture()
	for _, tc := range []struct {
		name  string
		draw  func() ([]byte, error)
		empty bool // the error wraps errEmpty
	}{
		{"nil explanation", func() ([]byte, error) { return Attribution(nil, names, Options{}) }, true},
		{"no paths", func() ([]byte, error) {
			return Attribution(&quce.Explanation{Attribution: []float64{1}}, nil, Options{})
		}, true},
		{"NaN attribution", func() ([]byte, error) {
			return Attribution(mod(func(e *quce.Explanation) { e.Attribution[2] = math.NaN() }), names, Options{})
		}, false},
		{"infinite Φ+", func() ([]byte, error) {
			return Attribution(mod(func(e *quce.Explanation) { e.AttributionPlus[0] = math.Inf(1) }), names, Options{})
		}, false},
		{"short Φ−", func() ([]byte, error) {
			return Attribution(mod(func(e *quce.Explanation) { e.AttributionMinus = e.AttributionMinus[:3] }), names, Options{})
		}, false},
		{"NaN start probability", func() ([]byte, error) {
			return Attribution(mod(func(e *quce.Explanation) { e.ProbStart = math.NaN() }), names, Options{})
		}, false},
		{"wrong number of names", func() ([]byte, error) { return Attribution(ex, names[:5], Options{}) }, false},
		{"negative TopK", func() ([]byte, error) { return Attribution(ex, names, Options{TopK: -1}) }, false},
		{"unknown format", func() ([]byte, error) { return Attribution(ex, names, Options{Format: 7}) }, false},
		{"negative DPI", func() ([]byte, error) { return Attribution(ex, names, Options{Format: PNG, DPI: -1}) }, false},
		{"infinite width", func() ([]byte, error) { return Attribution(ex, names, Options{Width: vg.Length(math.Inf(1))}) }, false},
		{"NaN height", func() ([]byte, error) { return Attribution(ex, names, Options{Height: vg.Length(math.NaN())}) }, false},
		{"too short", func() ([]byte, error) { return Attribution(ex, names, Options{Height: 20}) }, false},
		{"NaN path std", func() ([]byte, error) {
			return Paths(mod(func(e *quce.Explanation) { e.AttributionStd[1] = math.NaN() }), names, Options{})
		}, false},
		{"NaN on one path", func() ([]byte, error) {
			return Paths(mod(func(e *quce.Explanation) { e.Paths[1].Attribution[0] = math.NaN() }), names, Options{})
		}, false},
		{"NaN path point", func() ([]byte, error) {
			return Path(mod(func(e *quce.Explanation) { e.Paths[0].Points[3][1] = math.NaN() }), names, nil, Options{})
		}, false},
		{"NaN probability", func() ([]byte, error) {
			return Path(mod(func(e *quce.Explanation) { e.Paths[0].Probability[2] = math.NaN() }), names, nil, Options{})
		}, false},
		{"path of one point", func() ([]byte, error) {
			return Path(mod(func(e *quce.Explanation) { e.Paths[0].Points = e.Paths[0].Points[:1] }), names, nil, Options{})
		}, true},
		{"scaler of the wrong size", func() ([]byte, error) {
			return Path(ex, names, &data.Scaler{Mean: []float64{0}, Std: []float64{1}}, Options{})
		}, false},
		{"no training rows", func() ([]byte, error) { return Map(nil, nil, paths, Options{}) }, true},
		{"NaN training value", func() ([]byte, error) {
			bad := slices.Clone(train)
			bad[5] = []float64{0, math.NaN(), 0, 0, 0}
			return Map(bad, labels, paths, Options{})
		}, false},
		{"ragged training rows", func() ([]byte, error) {
			bad := slices.Clone(train)
			bad[5] = []float64{0, 0}
			return Map(bad, labels, paths, Options{})
		}, false},
		{"labels of the wrong length", func() ([]byte, error) { return Map(train, labels[1:], paths, Options{}) }, false},
		{"label 2", func() ([]byte, error) {
			bad := slices.Clone(labels)
			bad[0] = MaxMapClasses
			return Map(train, bad, paths, Options{})
		}, false},
		{"empty map path", func() ([]byte, error) {
			return Map(train, labels, []MapPath{{MethodStyle: methodStyle("quce")}}, Options{})
		}, true},
		{"map path in the wrong dimension", func() ([]byte, error) {
			return Map(train, labels, []MapPath{{MethodStyle: methodStyle("quce"), Points: [][]float64{{1, 2}}}}, Options{})
		}, false},
		{"map path without a colour", func() ([]byte, error) {
			return Map(train, labels, []MapPath{{MethodStyle: MethodStyle{Label: "QUCE"}, Points: paths[0].Points}}, Options{})
		}, false},
		{"map path without a label", func() ([]byte, error) {
			return Map(train, labels, []MapPath{{MethodStyle: MethodStyle{Color: blue}, Points: paths[0].Points}}, Options{})
		}, false},
		{"map option numbered 1", func() ([]byte, error) {
			return Map(train, labels, []MapPath{{MethodStyle: methodStyle("quce"), Option: 1, Points: paths[0].Points}}, Options{})
		}, false},
		{"method without a colour", func() ([]byte, error) {
			m := metricFixture()
			m[1].Color = nil
			return Evaluation(m, nil, Options{})
		}, false},
		{"method twice", func() ([]byte, error) {
			m := metricFixture()
			m[2].Label = m[0].Label
			return Evaluation(m, nil, Options{})
		}, false},
		{"empty metric table", func() ([]byte, error) { return Evaluation(MetricTable{}, nil, Options{}) }, true},
		{"no metrics asked for", func() ([]byte, error) { return Evaluation(metricFixture(), []string{}, Options{}) }, true},
		{"unknown metric", func() ([]byte, error) { return Evaluation(metricFixture(), []string{"speed"}, Options{}) }, false},
		{"NaN metric", func() ([]byte, error) {
			m := metricFixture()
			m[0].Metrics["test"]["validity"] = math.NaN()
			return Evaluation(m, nil, Options{})
		}, false},
		{"no sweep points", func() ([]byte, error) { return Sweep(nil, "λ3", Options{}) }, true},
		{"NaN sweep value", func() ([]byte, error) {
			return Sweep([]eval.SweepPoint{{Lambda: 1, CFUncertainty: math.NaN()}}, "λ3", Options{})
		}, false},
		{"negative λ", func() ([]byte, error) { return Sweep([]eval.SweepPoint{{Lambda: -1}}, "λ3", Options{}) }, false},
		{"validity above 1", func() ([]byte, error) { return Sweep([]eval.SweepPoint{{Lambda: 1, Validity: 2}}, "λ3", Options{}) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.draw()
			if err == nil {
				t.Fatalf("no error, and a %d-byte picture", len(b))
			}
			if b != nil {
				t.Errorf("an error and a %d-byte picture", len(b))
			}
			if got := errors.Is(err, errEmpty); got != tc.empty {
				t.Errorf("error %q: wraps errEmpty = %v, want %v", err, got, tc.empty)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	width := 200 * vg.Length(1)
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"short", []string{"short"}},
		{"first part; second part", []string{"first part; second part"}},
		{"a rather long first part of a title; a second part", []string{"a rather long first part of a title;", "a second part"}},
		{"two\nlines", []string{"two", "lines"}},
	} {
		got := strings.Split(wrap(tc.in, titleStyle, width), "\n")
		if !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, l := range got {
			if w := titleStyle.Width(l); w > width && strings.Contains(l, " ") {
				t.Errorf("line %q is %v wide, more than %v", l, w, width)
			}
		}
	}
}

func TestLayoutAlignsDataAreas(t *testing.T) {
	ex, names := fixture(60, 1, 5)
	for i := range names {
		names[i] = "a_much_longer_feature_name_than_usual_" + names[i]
	}
	rows := rankByMagnitude(ex.Attribution, 60)
	left, right := featurePanel(names, rows, true), featurePanel(names, rows, false)
	left.Add(&bars{values: byRow(ex.Attribution, rows), thickness: 0.6, horizontal: true, color: blue})
	right.Add(&bars{values: byRow(ex.AttributionPlus, rows), thickness: 0.6, horizontal: true, color: blue})
	setRows(left, 60)
	setRows(right, 60)
	under := newPanel()
	under.Add(zeroLine(3))
	// Tall enough for 60 readable feature rows in each of the two rows of panels.
	c := draw.New(vgsvg.New(7*vg.Inch, 3*rowsHeight(60)/2))
	panels := []*plot.Plot{left, right, under}
	out, err := layout(panels, 2, c)
	if err != nil {
		t.Fatal(err)
	}
	var data []draw.Canvas
	for k, p := range panels {
		d := p.DataCanvas(out[k])
		data = append(data, d)
		if d.Min.X < c.Min.X || d.Max.X > c.Max.X || d.Min.Y < c.Min.Y || d.Max.Y > c.Max.Y {
			t.Errorf("panel %d's data area %v is outside the canvas", k, d.Rectangle)
		}
	}
	// The rows of the two feature panels line up, and so do the panels of a column.
	near := func(a, b vg.Length) bool { return math.Abs(float64(a-b)) < 0.5 }
	if !near(data[0].Min.Y, data[1].Min.Y) || !near(data[0].Max.Y, data[1].Max.Y) {
		t.Errorf("the feature panels' rows do not line up: y %v–%v and %v–%v", data[0].Min.Y, data[0].Max.Y, data[1].Min.Y, data[1].Max.Y)
	}
	if !near(data[0].Min.X, data[2].Min.X) || !near(data[0].Max.X, data[2].Max.X) {
		t.Errorf("the panels of the first column do not line up: x %v–%v and %v–%v", data[0].Min.X, data[0].Max.X, data[2].Min.X, data[2].Max.X)
	}
	for k, d := range data {
		if d.Size().X < vg.Inch {
			t.Errorf("panel %d's data area is %v wide; the long names took the room", k, d.Size().X)
		}
	}
	if data[0].Max.X >= data[1].Min.X || data[2].Max.Y >= data[0].Min.Y {
		t.Errorf("the data areas are not in a 2-column grid: %v", data)
	}

	if _, err := layout(panels, 2, draw.New(vgsvg.New(3*vg.Inch, 9*vg.Inch))); err == nil {
		t.Error("a canvas too narrow for the names gave no error")
	}

	// Short stacked panels, as in Path at a small height, whose end ticks' labels and
	// y labels stick out of their data areas: the data areas still line up once fitted.
	p0 := ex.Path0()
	steps := make([]float64, len(p0.Points))
	for i := range steps {
		steps[i] = float64(i)
	}
	f, _ := pathFigure(ex, names, p0.Points, steps, "original units", func(f int) string { return names[f] }, 2, Options{})
	c = draw.New(vgsvg.New(7*vg.Inch, 4*vg.Inch))
	out, err = layout(f.panels, 1, c)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range f.panels {
		fitX(p, out[k])
	}
	if out, err = layout(f.panels, 1, c); err != nil {
		t.Fatal(err)
	}
	first := f.panels[0].DataCanvas(out[0])
	for k, p := range f.panels {
		d := p.DataCanvas(out[k])
		if !near(d.Min.X, first.Min.X) || !near(d.Max.X, first.Max.X) || !near(d.Size().Y, first.Size().Y) || d.Size().Y < minData.Y {
			t.Errorf("stacked panel %d's data area is %v, the first's %v", k, d.Rectangle, first.Rectangle)
		}
	}
}
