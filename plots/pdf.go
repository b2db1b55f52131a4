package plots

import (
	"image/color"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgpdf"
)

// pdfCanvas is gonum's PDF canvas with its text fixed: vgpdf registers fonts with the
// Windows-1252 encoding but hands them UTF-8 bytes, so "é" would print as "Ã©" and Greek
// letters, arrows and the minus sign as worse. Text that Windows-1252 can encode is
// recoded and stays text (selectable, searchable) where its face is regular; other text
// is drawn as the glyph outlines of the same font, which look the same.
type pdfCanvas struct {
	*vgpdf.Canvas
}

func newPDFCanvas(w, h vg.Length) pdfCanvas { return pdfCanvas{vgpdf.New(w, h)} }

// SetColor implements vg.Canvas. vgpdf takes the premultiplied components of
// color.Color.RGBA for the colour and applies the alpha on top, so a translucent colour
// would come out darker than in SVG or PNG; it is handed the straight components instead.
func (c pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.Canvas.SetColor(straight(color.NRGBA64Model.Convert(clr).(color.NRGBA64)))
}

// straight is a colour whose RGBA method returns its components not premultiplied by its
// alpha, as vgpdf needs them; it is for vgpdf only.
type straight color.NRGBA64

func (s straight) RGBA() (r, g, b, a uint32) {
	return uint32(s.R), uint32(s.G), uint32(s.B), uint32(s.A)
}

// FillString implements vg.Canvas.
func (c pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	// vgpdf registers a bold or italic face under its plain style and then asks for it
	// by its own ("undefined font: liberationsans-bold B"), so only regular text can stay
	// text.
	regular := f.Font.Weight == xfont.WeightNormal && f.Font.Style == xfont.StyleNormal
	if b, ok := cp1252(s); ok && regular {
		c.Canvas.FillString(f, pt, b)
		return
	}
	c.Fill(outline(f, pt, s))
}

// outline is the outline of s in f, set from the baseline point pt as font.Face.Width
// measures it (with kerning).
func outline(f font.Face, pt vg.Point, s string) vg.Path {
	var (
		buf   sfnt.Buffer
		upem  = fixed.Int26_6(f.Face.UnitsPerEm()) // at this size, 26.6 values are font units
		scale = f.Font.Size / vg.Length(f.Face.UnitsPerEm())
		p     vg.Path
		x     int // pen position in font units
		prev  sfnt.GlyphIndex
	)
	at := func(q fixed.Point26_6) vg.Point { // sfnt's y grows downwards
		return vg.Point{X: pt.X + vg.Length(x+int(q.X))*scale, Y: pt.Y - vg.Length(int(q.Y))*scale}
	}
	for i, r := range []rune(s) {
		idx, err := f.Face.GlyphIndex(&buf, r)
		if err != nil {
			continue
		}
		if i > 0 {
			if k, err := f.Face.Kern(&buf, prev, idx, upem, 0); err == nil {
				x += int(k)
			}
		}
		segs, err := f.Face.LoadGlyph(&buf, idx, upem, nil)
		if err == nil {
			for j, seg := range segs {
				a := seg.Args
				switch seg.Op {
				case sfnt.SegmentOpMoveTo:
					if j > 0 {
						p.Close()
					}
					p.Move(at(a[0]))
				case sfnt.SegmentOpLineTo:
					p.Line(at(a[0]))
				case sfnt.SegmentOpQuadTo:
					p.QuadTo(at(a[0]), at(a[1]))
				case sfnt.SegmentOpCubeTo:
					p.CubeTo(at(a[0]), at(a[1]), at(a[2]))
				}
			}
			if len(segs) > 0 {
				p.Close()
			}
		}
		if adv, err := f.Face.GlyphAdvance(&buf, idx, upem, 0); err == nil {
			x += int(adv)
		}
		prev = idx
	}
	return p
}

// cp1252 is s in the Windows-1252 encoding, and whether every character of s has a code
// there. Control characters have none, so as not to reach the PDF.
func cp1252(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f, r >= 0xa0 && r <= 0xff:
			b = append(b, byte(r))
		default:
			c, ok := cp1252High[r]
			if !ok {
				return "", false
			}
			b = append(b, c)
		}
	}
	return string(b), true
}

// cp1252High are the characters of Windows-1252's codes 0x80–0x9f.
var cp1252High = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88,
	'‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e, '‘': 0x91, '’': 0x92, '“': 0x93,
	'”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97, '˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b,
	'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
}
