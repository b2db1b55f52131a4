package plots

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/quce-go/quce/quce"
)

// The tests of this file hold the figures to what a paper needs: classes by name, titles
// without figures, notes that wrap, PDF output, sizes, round ticks, a legible map and
// evaluation labels that do not overlap.

// wbc are the labels of the W-BC data: class 1, the fixtures' target, is benign.
var wbc = []string{"malignant", "benign"}

// boldTitle is the figure's title: its bold lines, joined.
func boldTitle(doc svgDoc) string {
	var lines []string
	for _, tx := range doc.Texts {
		if strings.Contains(tx.Style, "font-weight:bold") {
			lines = append(lines, tx.Text)
		}
	}
	return strings.Join(lines, " ")
}

// note is the figure's note: its 8.5 pt lines, top first.
func note(doc svgDoc) []svgText {
	var lines []svgText
	for _, tx := range doc.Texts {
		if strings.Contains(tx.Style, "font-size:8.5px") {
			lines = append(lines, tx)
		}
	}
	return lines
}

// noteText is the figure's note as one line.
func noteText(doc svgDoc) string {
	var s []string
	for _, l := range note(doc) {
		s = append(s, l.Text)
	}
	return strings.Join(s, " ")
}

func TestClassNames(t *testing.T) {
	ex, names := fixture(12, 1, 20)
	ex.PredictedClass, ex.Probabilities = 0, []float64{0.88, 0.12}
	three, _ := fixture(12, 1, 20)
	three.Target, three.PredictedClass, three.Probabilities = 2, 0, []float64{0.7, 0.2, 0.1}
	exm, _ := fixture(12, 4, 20)
	train, labels, paths := mapFixture()
	five := make([]int, len(train))
	for i := range five {
		five[i] = i % 5
	}
	attribution := func(ex *quce.Explanation) func(Options) ([]byte, error) {
		return func(o Options) ([]byte, error) { return Attribution(ex, names, o) }
	}
	for _, tc := range []struct {
		name    string
		draw    func(Options) ([]byte, error)
		classes []string
		want    []string // texts some <text> contains
		absent  []string // texts none contains
	}{
		{"Attribution", attribution(ex), wbc,
			[]string{"F(benign | ·)", "F(benign | x) = 0.120 → 0.900", "predicted malignant"}, []string{"class 0", "class 1"}},
		{"Attribution without names", attribution(ex), nil,
			[]string{"F(class 1 | ·)", "F(class 1 | x) = 0.120", "predicted class 0"}, nil},
		{"Attribution with too few names", attribution(ex), []string{"only"},
			[]string{"F(class 1 | ·)", "predicted only"}, nil},
		{"Attribution of three classes", attribution(three), []string{"setosa", "versicolor", "virginica"},
			[]string{"F(virginica | ·)", "predicted setosa"}, []string{"class 2"}},
		{"Paths", func(o Options) ([]byte, error) { return Paths(exm, names, o) }, wbc,
			[]string{"F(benign | ·)", "F(benign | x) = 0.120", "4 paths, 3 valid (75%)"}, []string{"class 0", "class 1"}},
		{"Path", func(o Options) ([]byte, error) { return Path(ex, names, nil, o) }, wbc,
			[]string{"target probability F(benign | ·)", "F(benign | x) = 0.120 → 0.900", "20 optimisation steps"}, []string{"class 0", "class 1"}},
		{"Map", func(o Options) ([]byte, error) { return Map(train, labels, paths, o) }, wbc,
			[]string{"malignant (training)", "benign (training)"}, []string{"class 0", "class 1"}},
		{"Map, a class without a name", func(o Options) ([]byte, error) { return Map(train, labels, paths, o) }, []string{"malignant", " "},
			[]string{"malignant (training)", "class 1 (training)"}, nil},
		{"Map of five classes", func(o Options) ([]byte, error) { return Map(train, five, paths, o) }, []string{"a", "b", "c", "d", "e"},
			[]string{"a (training)", "b (training)", "c (training)", "d (training)", "e (training)"}, []string{"class "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.draw(Options{Classes: tc.classes})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			for _, s := range tc.want {
				if !doc.hasText(s) {
					t.Errorf("no text contains %q", s)
				}
			}
			for _, s := range tc.absent {
				if doc.hasText(s) {
					t.Errorf("a text contains %q", s)
				}
			}
			if bytes.Contains(b, []byte("τ=")) {
				t.Error("the picture still names the target class as τ=")
			}
		})
	}
	// The map draws each of several classes in its own style.
	styles := map[string]bool{}
	for c := range 5 {
		shape, col := classStyle(c)
		styles[fmt.Sprintf("%T %v", shape, col)] = true
	}
	if len(styles) != 5 {
		t.Errorf("5 classes drawn in %d distinct styles", len(styles))
	}
}

func TestTitlesHaveNoFigures(t *testing.T) {
	for name, draw := range allPlots() {
		t.Run(name, func(t *testing.T) {
			b, err := draw(Options{Classes: wbc})
			if err != nil {
				t.Fatal(err)
			}
			title := boldTitle(parseSVG(t, b))
			if title == "" {
				t.Fatal("no title")
			}
			// Digits may only be part of a name, such as the sweep's "λ3".
			for _, w := range strings.Fields(title) {
				if strings.ContainsFunc(w, unicode.IsDigit) && !strings.ContainsFunc(w, unicode.IsLetter) {
					t.Errorf("the title %q holds the number %q", title, w)
				}
			}
			if strings.ContainsAny(title, "→%=") {
				t.Errorf("the title %q holds figures", title)
			}
		})
	}
}

func TestNoteWrapsToTheFigure(t *testing.T) {
	long := strings.Repeat("A caller's note, with words enough to need several lines in a narrow figure; ", 6)
	ext := noteStyle.FontExtents()
	for _, w := range []vg.Length{7 * vg.Inch, 4 * vg.Inch} {
		for name, draw := range allPlots() {
			t.Run(fmt.Sprintf("%s %gin", name, w/vg.Inch), func(t *testing.T) {
				b, err := draw(Options{Width: w, Note: long})
				if err != nil {
					t.Fatal(err)
				}
				doc := parseSVG(t, b)
				lines := note(doc)
				if !strings.Contains(noteText(doc), "A caller's note, with words enough") || len(lines) < 3 {
					t.Fatalf("the note is not drawn in several lines: %q", noteText(doc))
				}
				for i, l := range lines {
					if got := noteStyle.Width(l.Text); got > w-2*margin {
						t.Errorf("note line %q is %v wide in a figure %v wide", l.Text, got, w)
					}
					// SVG's y grows downwards.
					if gap := vg.Length(l.Y); i > 0 && gap-vg.Length(lines[i-1].Y) < ext.Ascent+ext.Descent {
						t.Errorf("note line %q is %v below the line above it, less than the font's %v", l.Text, gap-vg.Length(lines[i-1].Y), ext.Ascent+ext.Descent)
					}
				}
				// Below every other text (turned texts' coordinates are turned too).
				lowest := math.Inf(-1)
				for _, tx := range doc.Texts {
					if !tx.Rotated && !strings.Contains(tx.Style, "font-size:8.5px") {
						lowest = math.Max(lowest, tx.Y)
					}
				}
				if lines[0].Y <= lowest {
					t.Errorf("the note starts at y = %g, above the lowest text of the panels at %g", lines[0].Y, lowest)
				}
			})
		}
	}
}

func TestPDFOutput(t *testing.T) {
	for name, draw := range allPlots() {
		t.Run(name, func(t *testing.T) {
			b, err := draw(Options{Format: PDF, Classes: []string{"malignant", "benign"}})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[max(0, len(b)-32):], []byte("%%EOF")) {
				t.Fatalf("not a PDF: %q…", b[:min(len(b), 16)])
			}
			if !bytes.Contains(b, []byte("/MediaBox [0 0 504.00")) {
				t.Error("the page is not 7 in (504 pt) wide")
			}
			checkPDFText(t, b)
		})
	}
	b, err := Sweep(sweepFixture(), "λ3", Options{Format: PDF, Width: 4 * vg.Inch, Height: 3 * vg.Inch})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("/MediaBox [0 0 288.00 216.00]")) {
		t.Error("a 4 × 3 in PDF does not have a 288 × 216 pt page")
	}
}

// checkPDFText extracts the text of a PDF with pdftotext, an independent reader, and checks
// that text in Windows-1252 reads back as written. It does nothing when pdftotext is not
// installed (package poppler-utils).
func checkPDFText(t *testing.T, pdf []byte) {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return
	}
	cmd := exec.Command(bin, "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	if len(bytes.TrimSpace(out)) == 0 {
		t.Error("the PDF has no text")
	}
	if bytes.Contains(out, []byte("Ã")) || bytes.Contains(out, []byte("Î")) {
		t.Errorf("the PDF's text is mis-encoded: %q", out)
	}
}

func TestPDFText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"plain ASCII", "plain ASCII", true},
		{"café – 5 €", "caf\xe9 \x96 5 \x80", true},
		{"F(benign | ·)", "F(benign | \xb7)", true},
		{"Φ: along the path x → x_c", "", false},
		{"two\nlines", "", false},
	} {
		got, ok := cp1252(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("cp1252(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}

	// Text outside Windows-1252 is drawn as glyph outlines, where the font sets it.
	face := plot.DefaultTextHandler.Cache().Lookup(sans(10), 10)
	pt := vg.Point{X: 100, Y: 50}
	s := "Φ → ε"
	p := outline(face, pt, s)
	if len(p) == 0 {
		t.Fatal("no outline")
	}
	lo, hi := vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}
	for _, c := range p {
		if c.Type == vg.CloseComp {
			continue
		}
		lo.X, lo.Y = min(lo.X, c.Pos.X), min(lo.Y, c.Pos.Y)
		hi.X, hi.Y = max(hi.X, c.Pos.X), max(hi.Y, c.Pos.Y)
	}
	ext := face.Extents()
	if lo.X < pt.X-1 || hi.X > pt.X+face.Width(s)+1 || lo.Y < pt.Y-ext.Descent-1 || hi.Y > pt.Y+ext.Ascent+1 || hi.Y <= pt.Y {
		t.Errorf("the outline spans %v–%v; want it within the text's box from %v, %v wide", lo, hi, pt, face.Width(s))
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Format
		ok   bool
	}{
		{"svg", SVG, true}, {"PNG", PNG, true}, {" pdf ", PDF, true}, {".pdf", PDF, true},
		{"eps", 0, false}, {"", 0, false},
	} {
		got, err := ParseFormat(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok && got.Ext() != "."+strings.ToLower(strings.Trim(tc.in, " .")) {
			t.Errorf("%v.Ext() = %q", got, got.Ext())
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w, h vg.Length // in points
		ok   bool
	}{
		{"7x5", 504, 360, true},
		{"7inx5in", 504, 360, true},
		{"7 × 5", 504, 360, true},
		{"18x12cm", 18 * vg.Centimeter, 12 * vg.Centimeter, true},
		{"180mmx3in", 180 * vg.Millimeter, 216, true},
		{"504x360pt", 504, 360, true},
		{"6.5", 468, 0, true},
		{"16cmx0", 16 * vg.Centimeter, 0, true},
		{"", 0, 0, false},
		{"x5", 0, 0, false},
		{"7x5x3", 0, 0, false},
		{"7x", 0, 0, false},
		{"0x5", 0, 0, false},
		{"-7x5", 0, 0, false},
		{"7x5ft", 0, 0, false},
		{"sevenx5", 0, 0, false},
		{"7by5", 0, 0, false},
		{"1000x5", 0, 0, false},
	} {
		w, h, err := ParseSize(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseSize(%q): error %v, want ok %v", tc.in, err, tc.ok)
			continue
		}
		if math.Abs(float64(w-tc.w)) > 1e-9 || math.Abs(float64(h-tc.h)) > 1e-9 {
			t.Errorf("ParseSize(%q) = %v × %v, want %v × %v", tc.in, w, h, tc.w, tc.h)
		}
	}
}

func TestRoundTicksLabels(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string // the major ticks' labels
	}{
		{0, 1, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{-0.38, 0.33, []string{"-0.3", "-0.2", "-0.1", "0", "0.1", "0.2", "0.3"}},
		{5, 56, []string{"10", "20", "30", "40", "50"}},
		{-3.2, 12.7, []string{"-2", "0", "2", "4", "6", "8", "10", "12"}},
		{-7.5, 12.5, []string{"-5", "0", "5", "10"}},
		{0, 0.00025, []string{"0", "0.00005", "0.0001", "0.00015", "0.0002", "0.00025"}},
		{0.95, 1.05, []string{"0.96", "0.98", "1", "1.02", "1.04"}},
		{-1200, 300, []string{"-1200", "-1000", "-800", "-600", "-400", "-200", "0", "200"}},
		{0, 3e-9, []string{"0", "5e-10", "1e-09", "1.5e-09", "2e-09", "2.5e-09", "3e-09"}},
	} {
		var got []string
		for _, tk := range (roundTicks{}).Ticks(tc.lo, tc.hi) {
			if !tk.IsMinor() {
				got = append(got, tk.Label)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ticks of [%g, %g] = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}

	// Any range: at most 8 labelled ticks and at least 2, evenly spaced by 1, 2 or 5 × 10^k,
	// 0 among them when the range spans it, labels that read back as their values, and
	// minor ticks between them.
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		scale := math.Pow(10, float64(r.IntN(16)-8))
		lo := (r.Float64()*2 - 1) * scale
		hi := lo + r.Float64()*scale*3 + scale*1e-3
		ticks := roundTicks{}.Ticks(lo, hi)
		var major []plot.Tick
		for _, tk := range ticks {
			if tk.Value < lo-1e-9*scale || tk.Value > hi+1e-9*scale {
				t.Fatalf("[%g, %g]: tick %g outside the range", lo, hi, tk.Value)
			}
			if !tk.IsMinor() {
				major = append(major, tk)
			}
		}
		if len(major) < 2 || len(major) > 8 || len(ticks) <= len(major) {
			t.Fatalf("[%g, %g]: %d major ticks of %d", lo, hi, len(major), len(ticks))
		}
		step := major[1].Value - major[0].Value
		m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9))
		if !slices.ContainsFunc([]float64{1, 2, 5, 10}, func(x float64) bool { return math.Abs(m-x) < 1e-6 }) {
			t.Fatalf("[%g, %g]: step %g is not 1, 2 or 5 × 10^k", lo, hi, step)
		}
		zero := false
		for i, tk := range major {
			if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || math.Abs(v-tk.Value) > 1e-6*step {
				t.Fatalf("[%g, %g]: label %q for %g", lo, hi, tk.Label, tk.Value)
			}
			if i > 0 && math.Abs(tk.Value-major[i-1].Value-step) > 1e-6*step {
				t.Fatalf("[%g, %g]: uneven ticks %v", lo, hi, major)
			}
			if tk.Value == 0 {
				zero = tk.Label == "0"
			}
		}
		if lo <= 0 && hi >= 0 && !zero {
			t.Fatalf("[%g, %g]: no tick labelled 0 in %v", lo, hi, major)
		}
	}
}

func TestMapStarsAndLegend(t *testing.T) {
	train, labels, paths := mapFixture() // every path ends at the same point
	quce, ig, agi := paths[0], paths[1], paths[2]
	width := regexp.MustCompile(`stroke-width:([0-9.]+)`)
	for _, tc := range []struct {
		name  string
		paths []MapPath
	}{
		{"QUCE first", []MapPath{quce, ig, agi}},
		{"QUCE last", []MapPath{ig, agi, quce}},
		{"QUCE between", []MapPath{agi, quce, ig}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Map(train, labels, tc.paths, Options{Classes: wbc})
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			// A star is a fill in a method's colour outlined in black; the legend's come
			// first, then the map's. The last one drawn, on top, is QUCE's.
			var stars []string
			lines := map[string][]string{} // method → its lines' styles, the legend's first
			var order []string             // the methods of the map's lines, in drawing order
			for i, st := range doc.PathStyles {
				for _, m := range []string{"quce", "ig", "agi"} {
					fill := fillOf(methodStyle(m).Color)
					if st == fill && i+1 < len(doc.PathStyles) && strings.Contains(doc.PathStyles[i+1], "stroke:#000000") {
						stars = append(stars, m)
					}
					if strings.HasPrefix(st, "fill:none;stroke:"+strings.TrimPrefix(fill, "fill:")+";") {
						lines[m] = append(lines[m], st)
						if len(lines[m]) == 2 {
							order = append(order, m)
						}
					}
				}
			}
			if len(stars) != 6 {
				t.Fatalf("stars %q, want 3 in the legend and 3 on the map", stars)
			}
			if stars[len(stars)-1] != "quce" {
				t.Errorf("the star on top is %s's, not QUCE's", stars[len(stars)-1])
			}
			// The legend's symbol of a method is its line as the map draws it, and its star.
			for _, m := range []string{"quce", "ig", "agi"} {
				if len(lines[m]) != 2 || lines[m][0] != lines[m][1] {
					t.Errorf("%s's lines (the legend's, then the map's): %q; want two alike", m, lines[m])
				}
				if !slices.Contains(stars[:3], m) || !slices.Contains(stars[3:], m) {
					t.Errorf("%s has no star in the legend or none on the map: %q", m, stars)
				}
			}
			if len(lines["ig"]) == 0 || !strings.Contains(lines["ig"][0], "stroke-dasharray") {
				t.Error("IG's straight line is not dashed")
			}
			// Each later line narrower than the one before, so none hides another.
			for i := 1; i < len(order); i++ {
				prev, _ := strconv.ParseFloat(width.FindStringSubmatch(lines[order[i-1]][1])[1], 64)
				cur, _ := strconv.ParseFloat(width.FindStringSubmatch(lines[order[i]][1])[1], 64)
				if cur >= prev {
					t.Errorf("%s's line (%g pt) is drawn over %s's (%g pt) and not narrower", order[i], cur, order[i-1], prev)
				}
			}
			cased := 0
			for _, st := range doc.PathStyles {
				if strings.HasPrefix(st, "fill:none;stroke:#FFFFFF;") {
					cased++
				}
			}
			if cased != 3 {
				t.Errorf("%d lines over a white casing, want 3", cased)
			}
			if !strings.Contains(noteText(doc), "IG's straight line ends at QUCE's counterfactual") {
				t.Error("the note does not say that IG ends at QUCE's counterfactual")
			}
			for _, s := range []string{"malignant (training)", "benign (training)", "QUCE", "IG", "AGI", "start x"} {
				if len(doc.find(s)) != 1 {
					t.Errorf("legend entry %q is not drawn once", s)
				}
			}
		})
	}
}

// fillOf is the SVG fill of c as vgsvg writes it, without its alpha.
func fillOf(c color.Color) string {
	r, g, b, a := c.RGBA()
	k := 255 / float64(a)
	return fmt.Sprintf("fill:#%02X%02X%02X", int(float64(r)*k), int(float64(g)*k), int(float64(b)*k))
}

// textBox is where a text was drawn, in the page's coordinates.
type textBox struct {
	text string
	box  vg.Rectangle
}

// boxCanvas is a vg.Canvas that only records where text goes: each FillString's box (its
// width by its font's ascent and descent) through the current transform.
type boxCanvas struct {
	w, h  vg.Length
	m     [6]float64 // x' = m0·x + m1·y + m2, y' = m3·x + m4·y + m5
	stack [][6]float64
	texts []textBox
}

func newBoxCanvas(w, h vg.Length) *boxCanvas {
	return &boxCanvas{w: w, h: h, m: [6]float64{1, 0, 0, 0, 1, 0}}
}

func (c *boxCanvas) mul(n [6]float64) {
	m := c.m
	c.m = [6]float64{
		m[0]*n[0] + m[1]*n[3], m[0]*n[1] + m[1]*n[4], m[0]*n[2] + m[1]*n[5] + m[2],
		m[3]*n[0] + m[4]*n[3], m[3]*n[1] + m[4]*n[4], m[3]*n[2] + m[4]*n[5] + m[5],
	}
}

func (c *boxCanvas) Size() (vg.Length, vg.Length)        { return c.w, c.h }
func (c *boxCanvas) SetLineWidth(vg.Length)              {}
func (c *boxCanvas) SetLineDash([]vg.Length, vg.Length)  {}
func (c *boxCanvas) SetColor(color.Color)                {}
func (c *boxCanvas) Stroke(vg.Path)                      {}
func (c *boxCanvas) Fill(vg.Path)                        {}
func (c *boxCanvas) DrawImage(vg.Rectangle, image.Image) {}
func (c *boxCanvas) Push()                               { c.stack = append(c.stack, c.m) }
func (c *boxCanvas) Pop()                                { c.m, c.stack = c.stack[len(c.stack)-1], c.stack[:len(c.stack)-1] }
func (c *boxCanvas) Translate(p vg.Point)                { c.mul([6]float64{1, 0, float64(p.X), 0, 1, float64(p.Y)}) }
func (c *boxCanvas) Scale(x, y float64)                  { c.mul([6]float64{x, 0, 0, 0, y, 0}) }
func (c *boxCanvas) Rotate(r float64) {
	s, co := math.Sincos(r)
	c.mul([6]float64{co, -s, 0, s, co, 0})
}

func (c *boxCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if s == "" {
		return
	}
	e := f.Extents()
	x0, x1 := float64(pt.X), float64(pt.X+f.Width(s))
	y0, y1 := float64(pt.Y-e.Descent), float64(pt.Y+e.Ascent)
	box := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
	for _, p := range [][2]float64{{x0, y0}, {x0, y1}, {x1, y0}, {x1, y1}} {
		x := vg.Length(c.m[0]*p[0] + c.m[1]*p[1] + c.m[2])
		y := vg.Length(c.m[3]*p[0] + c.m[4]*p[1] + c.m[5])
		box.Min.X, box.Min.Y = min(box.Min.X, x), min(box.Min.Y, y)
		box.Max.X, box.Max.Y = max(box.Max.X, x), max(box.Max.Y, y)
	}
	c.texts = append(c.texts, textBox{s, box})
}

// overlap reports whether two boxes share more than a sliver of area.
func overlap(a, b vg.Rectangle) bool {
	const sliver = 0.25 // pt
	return a.Min.X+sliver < b.Max.X && b.Min.X+sliver < a.Max.X && a.Min.Y+sliver < b.Max.Y && b.Min.Y+sliver < a.Max.Y
}

// evalTable is a metric table like a real evaluation's: six methods, values from 10⁻⁶
// to hundreds, long metric names, and methods lacking metrics.
func evalTable() MetricTable {
	t := map[string]map[string]map[string]float64{}
	methods := []string{"quce", "ig", "agi", "wachter", "dice-random", "growing-spheres"}
	r := rand.New(rand.NewPCG(5, 6))
	metrics := map[string]float64{
		"validity": 1, "proximity_l1": 20, "completeness_gap": 2e-4, "cf_recon_error": 0.5,
		"path_uncertainty_trained_mean": 25, "path_uncertainty_trained_std": 20,
		"seconds_per_instance": 0.1, "deletion": 0.7, "tiny": 3e-6, "cf_uncertainty_trained": 90,
	}
	for i, m := range methods {
		t[m] = map[string]map[string]float64{}
		for _, s := range []string{"train", "test"} {
			t[m][s] = map[string]float64{}
			for name, scale := range metrics {
				if (m == "ig" && name == "validity") || (m == "dice-random" && name == "completeness_gap") {
					continue
				}
				v := scale * (0.05 + r.Float64())
				if name == "validity" {
					v = 1 - 0.03*float64(i)
				}
				t[m][s][name] = v
			}
		}
	}
	t["quce"]["test"]["deletion"] = -0.2 // a negative bar, labelled below
	return metricTable(methods, t)
}

func TestEvaluationLabelsDoNotOverlap(t *testing.T) {
	table := evalTable()
	for _, tc := range []struct {
		width vg.Length
		modes []labelMode // the modes some panel must use
	}{
		{10 * vg.Inch, []labelMode{level, turned}},
		{7 * vg.Inch, []labelMode{turned}},
		{4 * vg.Inch, []labelMode{hidden}},
	} {
		t.Run(fmt.Sprintf("%gin", tc.width/vg.Inch), func(t *testing.T) {
			o := Options{Width: tc.width, Note: "A caller's note, long enough to wrap in a narrow figure: n = 20 instances per split, seeds 1 to 5, the embedded data."}
			f, labels, panels, err := evaluationFigure(table, nil, o)
			if err != nil {
				t.Fatal(err)
			}
			c := newBoxCanvas(tc.width, f.chromeHeight(tc.width)+panels)
			if err := f.draw(draw.New(c)); err != nil {
				t.Fatal(err)
			}
			// Every text inside the page, and no two overlapping.
			var values int
			for i, a := range c.texts {
				if a.box.Min.X < -0.5 || a.box.Min.Y < -0.5 || a.box.Max.X > tc.width+0.5 || a.box.Max.Y > c.h+0.5 {
					t.Errorf("text %q at %v is outside the %v × %v page", a.text, a.box, tc.width, c.h)
				}
				if _, err := strconv.ParseFloat(a.text, 64); err == nil {
					values++
				}
				for _, b := range c.texts[i+1:] {
					if overlap(a.box, b.box) {
						t.Errorf("%q at %v overlaps %q at %v", a.text, a.box, b.text, b.box)
					}
				}
			}
			if values == 0 {
				t.Error("no numbers drawn at all")
			}
			// The layouts are the ones this width calls for.
			var modes []labelMode
			for _, l := range labels {
				if !slices.Contains(modes, l.mode) {
					modes = append(modes, l.mode)
				}
			}
			for _, m := range tc.modes {
				if !slices.Contains(modes, m) {
					t.Errorf("no panel's labels are %v; the modes are %v", m, modes)
				}
			}
			hiddenNote := false
			for _, tx := range c.texts {
				hiddenNote = hiddenNote || strings.Contains(tx.text, "too narrow for their values")
			}
			if hiddenNote != slices.Contains(modes, hidden) {
				t.Errorf("the note says labels are left off: %v; labels left off: %v", hiddenNote, slices.Contains(modes, hidden))
			}
		})
	}
}

func (m labelMode) String() string { return [...]string{"level", "turned", "hidden"}[m] }

func TestEvaluationScalesSmallMetrics(t *testing.T) {
	table := metricTable([]string{"quce"}, map[string]map[string]map[string]float64{
		"quce": {"test": {"completeness_gap": 0.000157, "tiny": 3e-6, "big": 2.5e6, "plain": 0.5}}})
	b, err := Evaluation(table, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b)
	for _, s := range []string{"×1e−4", "×1e−6", "×1e6", "1.57", "3", "2.5", "0.5"} {
		if len(doc.find(s)) == 0 {
			t.Errorf("no text %q", s)
		}
	}
	if doc.hasText("0.000157") || doc.hasText("e-0") {
		t.Error("a small value is written out in full")
	}
}
