package plots

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/quce"
)

// methodStyle is how the tests draw the method named m: with the label and colour eval
// describes it by, as the callers of the plots do, else with its name in black.
func methodStyle(m string) MethodStyle {
	if info, ok := eval.Method(m).Info(); ok {
		return MethodStyle{Label: info.Label, Color: info.Color}
	}
	return MethodStyle{Label: m, Color: black}
}

// metricTable is the MetricTable of values (method → split → metric → value), the methods
// in the order of methods, each drawn in its methodStyle.
func metricTable(methods []string, values map[string]map[string]map[string]float64) MetricTable {
	var t MetricTable
	for _, m := range methods {
		t = append(t, MethodMetrics{MethodStyle: methodStyle(m), Metrics: values[m]})
	}
	return t
}

// fixture is a hand-made explanation with n features and m paths of steps steps each.
// Feature j's |Φ| is ((7j mod n) + 1)/n · 0.2, so the ranking differs from the feature
// order (n must not be a multiple of 7), and the signs alternate.
func fixture(n, m, steps int) (*quce.Explanation, []string) {
	names := make([]string, n)
	for j := range names {
		names[j] = fmt.Sprintf("feature_with_a_long_name_%02d", j)
	}
	ex := &quce.Explanation{Target: 1, ProbStart: 0.12, X: make([]float64, n)}
	for i := range m {
		p := &quce.Path{Valid: i != 1, ProbEnd: 0.9 - 0.01*float64(i), Steps: steps}
		for s := 0; s <= steps; s++ {
			t := float64(s) / float64(steps)
			pt := make([]float64, n)
			for j := range pt {
				pt[j] = t * (float64(j%5-2)*0.3 + 0.1*float64(i))
			}
			p.Points = append(p.Points, pt)
			p.Probability = append(p.Probability, 0.12+(p.ProbEnd-0.12)*t)
			p.Uncertainty = append(p.Uncertainty, 5-3*t)
		}
		p.Counterfactual = p.Points[steps]
		for j := range n {
			phi := float64((7*j)%n+1) / float64(n) * 0.2 * float64(1-2*(j%2))
			phi += 0.002 * float64(i)
			p.Attribution = append(p.Attribution, phi)
			p.AttributionPlus = append(p.AttributionPlus, 0.01*phi)
			p.AttributionMinus = append(p.AttributionMinus, -0.008*phi)
		}
		ex.Paths = append(ex.Paths, p)
	}
	mean := func(get func(*quce.Path) []float64) []float64 {
		out := make([]float64, n)
		for _, p := range ex.Paths {
			for j, v := range get(p) {
				out[j] += v / float64(m)
			}
		}
		return out
	}
	ex.Attribution = mean(func(p *quce.Path) []float64 { return p.Attribution })
	ex.AttributionPlus = mean(func(p *quce.Path) []float64 { return p.AttributionPlus })
	ex.AttributionMinus = mean(func(p *quce.Path) []float64 { return p.AttributionMinus })
	ex.AttributionStd = make([]float64, n)
	if m > 1 {
		for j := range n {
			ss := 0.0
			for _, p := range ex.Paths {
				ss += math.Pow(p.Attribution[j]-ex.Attribution[j], 2)
			}
			ex.AttributionStd[j] = math.Sqrt(ss / float64(m-1))
		}
	}
	return ex, names
}

// svgText is one <text> element of an SVG.
type svgText struct {
	X, Y    float64 // in the coordinates of the text's group: turned ones' are turned too
	Text    string
	Style   string
	Rotated bool // inside a rotated group
}

// svgDoc is what the tests read from an SVG: its size, its texts and its paths' styles.
type svgDoc struct {
	Width, Height float64 // in points
	Texts         []svgText
	PathStyles    []string
}

// parseSVG parses b as XML and collects the <svg> size, the <text> elements and the
// style of every <path>.
func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	var cur *svgText
	var groups []bool // per open <g>, whether it rotates
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := func(name string) string {
				for _, a := range el.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch el.Name.Local {
			case "svg":
				doc.Width = points(t, attr("width"))
				doc.Height = points(t, attr("height"))
			case "g":
				groups = append(groups, strings.Contains(attr("transform"), "rotate"))
			case "text":
				cur = &svgText{X: points(t, attr("x")), Y: points(t, attr("y")), Style: attr("style"), Rotated: slices.Contains(groups, true)}
			case "path":
				doc.PathStyles = append(doc.PathStyles, attr("style"))
			}
		case xml.CharData:
			if cur != nil {
				cur.Text += string(el)
			}
		case xml.EndElement:
			if el.Name.Local == "g" && len(groups) > 0 {
				groups = groups[:len(groups)-1]
			}
			if el.Name.Local == "text" && cur != nil {
				cur.Text = strings.TrimSpace(cur.Text)
				doc.Texts = append(doc.Texts, *cur)
				cur = nil
			}
		}
	}
	if doc.Width <= 0 || doc.Height <= 0 {
		t.Fatalf("the SVG has no size: %g × %g", doc.Width, doc.Height)
	}
	return doc
}

func points(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "pt"), 64)
	if err != nil {
		t.Fatalf("bad SVG length %q: %v", s, err)
	}
	return v
}

// find returns the texts equal to s.
func (d svgDoc) find(s string) []svgText {
	var out []svgText
	for _, tx := range d.Texts {
		if tx.Text == s {
			out = append(out, tx)
		}
	}
	return out
}

// hasText reports whether some text contains s.
func (d svgDoc) hasText(s string) bool {
	for _, tx := range d.Texts {
		if strings.Contains(tx.Text, s) {
			return true
		}
	}
	return false
}

// fills counts the paths filled with c, whatever its opacity. It writes c as vgsvg does:
// without its alpha, and not at all for black, SVG's default fill.
func (d svgDoc) fills(c color.Color) int {
	r, g, b, a := c.RGBA()
	k := 255 / float64(a)
	want := fmt.Sprintf("fill:#%02X%02X%02X", int(float64(r)*k), int(float64(g)*k), int(float64(b)*k))
	n := 0
	for _, s := range d.PathStyles {
		if want == "fill:#000000" && !strings.Contains(s, "fill:") || strings.Contains(s, want) {
			n++
		}
	}
	return n
}

// checkPNG decodes b as PNG and fails unless it has some ink: more than one colour, and
// at least 1% of its pixels not white.
func checkPNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	bounds := img.Bounds()
	colours := map[color.RGBA]bool{}
	ink := 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
			if c != (color.RGBA{255, 255, 255, 255}) {
				ink++
			}
		}
	}
	if len(colours) < 3 || float64(ink) < 0.01*float64(bounds.Dx()*bounds.Dy()) {
		t.Fatalf("the PNG is blank: %d colours, %d of %d pixels not white", len(colours), ink, bounds.Dx()*bounds.Dy())
	}
	return img
}

// checkRSVG renders svg with rsvg-convert, an independent SVG renderer, and checks that
// the picture has ink. It skips the calling test when rsvg-convert is not installed.
func checkRSVG(t *testing.T, svg []byte) {
	t.Helper()
	bin, err := exec.LookPath("rsvg-convert")
	if err != nil {
		t.Skip("rsvg-convert is not installed (package librsvg2-bin); the PNG check covers rendering")
	}
	cmd := exec.Command(bin, "--format=png", "--background-color=white")
	cmd.Stdin = bytes.NewReader(svg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rsvg-convert: %v: %s", err, stderr.String())
	}
	checkPNG(t, out)
}
