package plot

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"strconv"
	"strings"
)

// FontFamily is the font list the SVG backend asks for.
const FontFamily = "DejaVu Sans, Helvetica, Arial, sans-serif"

// SVG is a [Canvas] that builds a standalone SVG 1.1 document. Drawing
// calls accumulate in memory; Close writes the whole document to the
// writer given to NewSVG, so a failed drawing leaves nothing half written.
type SVG struct {
	w      io.Writer
	buf    bytes.Buffer
	clips  map[string]bool // clip paths defined so far, by id
	depth  int             // open clip groups
	closed bool
}

// NewSVG starts a document of the given size in pixels, with a white
// background, that Close writes to w.
func NewSVG(w io.Writer, width, height float64) *SVG {
	s := &SVG{w: w, clips: map[string]bool{}}
	ws, hs := num(width), num(height)
	s.buf.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="` + ws +
		`" height="` + hs + `" viewBox="0 0 ` + ws + ` ` + hs + `" font-family="` + FontFamily + `">` + "\n")
	s.buf.WriteString(`<rect x="0" y="0" width="` + ws + `" height="` + hs + `" fill="#ffffff"/>` + "\n")
	return s
}

// Close ends any open clips and the document, and writes it out. It returns
// the writer's error. Drawing after Close panics.
func (s *SVG) Close() error {
	if s.closed {
		return nil
	}
	for s.depth > 0 {
		s.PopClip()
	}
	s.buf.WriteString("</svg>\n")
	s.closed = true
	_, err := s.w.Write(s.buf.Bytes())
	return err
}

func (s *SVG) check() {
	if s.closed {
		panic("plot: drawing on a closed SVG")
	}
}

// Polyline implements [Canvas].
func (s *SVG) Polyline(pts []Point, st LineStyle) {
	s.check()
	if len(pts) < 2 {
		return
	}
	b := &s.buf
	b.WriteString(`<polyline points="`)
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(num(p.X))
		b.WriteByte(',')
		b.WriteString(num(p.Y))
	}
	b.WriteString(`" fill="none"`)
	s.stroke(st)
	b.WriteString("/>\n")
}

// Rect implements [Canvas].
func (s *SVG) Rect(r Rect, st LineStyle, fill Color) {
	s.check()
	b := &s.buf
	b.WriteString(`<rect x="` + num(r.Min.X) + `" y="` + num(r.Min.Y) + `" width="` + num(r.Width()) +
		`" height="` + num(r.Height()) + `"`)
	if fill == "" {
		b.WriteString(` fill="none"`)
	} else {
		b.WriteString(` fill="`)
		attr(b, string(fill))
		b.WriteByte('"')
	}
	if st.Color != "" {
		s.stroke(st)
	}
	b.WriteString("/>\n")
}

func (s *SVG) stroke(st LineStyle) {
	b := &s.buf
	c := st.Color
	if c == "" {
		c = "#000000"
	}
	b.WriteString(` stroke="`)
	attr(b, string(c))
	b.WriteByte('"')
	if st.Width != 0 && st.Width != 1 {
		b.WriteString(` stroke-width="` + num(st.Width) + `"`)
	}
	if len(st.Dashes) > 0 {
		b.WriteString(` stroke-dasharray="`)
		for i, d := range st.Dashes {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(num(d))
		}
		b.WriteByte('"')
	}
	b.WriteString(` stroke-linejoin="round" stroke-linecap="butt"`)
}

// Text implements [Canvas].
func (s *SVG) Text(p Point, text string, st TextStyle) {
	s.check()
	if text == "" {
		return
	}
	size := st.Size
	if size == 0 {
		size = 12
	}
	// Place the baseline ourselves: dominant-baseline is not honoured by
	// every renderer. 0.72 em is about the cap height of common fonts.
	dy := 0.0
	switch st.VAlign {
	case VAlignMiddle:
		dy = 0.36 * size
	case VAlignTop:
		dy = 0.72 * size
	}
	b := &s.buf
	x, y := num(p.X), num(p.Y)
	b.WriteString(`<text x="` + x + `" y="` + y + `"`)
	if dy != 0 {
		b.WriteString(` dy="` + num(dy) + `"`)
	}
	b.WriteString(` font-size="` + num(size) + `"`)
	switch st.Anchor {
	case AnchorMiddle:
		b.WriteString(` text-anchor="middle"`)
	case AnchorEnd:
		b.WriteString(` text-anchor="end"`)
	}
	if st.Bold {
		b.WriteString(` font-weight="bold"`)
	}
	if st.Color != "" {
		b.WriteString(` fill="`)
		attr(b, string(st.Color))
		b.WriteByte('"')
	}
	if st.Rotate != 0 {
		b.WriteString(` transform="rotate(` + num(st.Rotate) + ` ` + x + ` ` + y + `)"`)
	}
	b.WriteByte('>')
	xml.EscapeText(b, []byte(text)) // never fails on a bytes.Buffer
	b.WriteString("</text>\n")
}

// Marker implements [Canvas].
func (s *SVG) Marker(p Point, m Marker, size float64, c Color) {
	s.check()
	if c == "" {
		c = "#000000"
	}
	b := &s.buf
	h := size / 2
	x, y := p.X, p.Y
	fill := func() {
		b.WriteString(` fill="`)
		attr(b, string(c))
		b.WriteString(`"/>` + "\n")
	}
	path := func(d string) {
		b.WriteString(`<path d="` + d + `"`)
		fill()
	}
	switch m {
	case MarkerNone:
	case MarkerCircle:
		b.WriteString(`<circle cx="` + num(x) + `" cy="` + num(y) + `" r="` + num(h) + `"`)
		fill()
	case MarkerSquare:
		h *= 0.9
		b.WriteString(`<rect x="` + num(x-h) + `" y="` + num(y-h) + `" width="` + num(2*h) + `" height="` + num(2*h) + `"`)
		fill()
	case MarkerTriangle:
		h *= 1.15
		path("M" + num(x) + "," + num(y-h) + "L" + num(x+h*0.866) + "," + num(y+h*0.5) +
			"L" + num(x-h*0.866) + "," + num(y+h*0.5) + "Z")
	case MarkerDiamond:
		h *= 1.2
		path("M" + num(x) + "," + num(y-h) + "L" + num(x+h) + "," + num(y) +
			"L" + num(x) + "," + num(y+h) + "L" + num(x-h) + "," + num(y) + "Z")
	case MarkerCross, MarkerPlus:
		var d string
		if m == MarkerCross {
			k := h * 0.8
			d = "M" + num(x-k) + "," + num(y-k) + "L" + num(x+k) + "," + num(y+k) +
				"M" + num(x-k) + "," + num(y+k) + "L" + num(x+k) + "," + num(y-k)
		} else {
			d = "M" + num(x-h) + "," + num(y) + "L" + num(x+h) + "," + num(y) +
				"M" + num(x) + "," + num(y-h) + "L" + num(x) + "," + num(y+h)
		}
		b.WriteString(`<path d="` + d + `" fill="none" stroke="`)
		attr(b, string(c))
		b.WriteString(`" stroke-width="` + num(max(1.5, size/5)) + `"/>` + "\n")
	}
}

// PushClip implements [Canvas]. Clip paths are named after their
// rectangle, so that identical clips share one definition and several
// documents inlined into one HTML page cannot refer to each other's
// differing clips.
func (s *SVG) PushClip(r Rect) {
	s.check()
	coords := []string{num(r.Min.X), num(r.Min.Y), num(r.Width()), num(r.Height())}
	id := "clip-" + strings.NewReplacer(".", "_", "-", "m").Replace(strings.Join(coords, "-"))
	if !s.clips[id] {
		s.clips[id] = true
		s.buf.WriteString(`<clipPath id="` + id + `"><rect x="` + coords[0] + `" y="` + coords[1] +
			`" width="` + coords[2] + `" height="` + coords[3] + `"/></clipPath>` + "\n")
	}
	s.buf.WriteString(`<g clip-path="url(#` + id + `)">` + "\n")
	s.depth++
}

// PopClip implements [Canvas].
func (s *SVG) PopClip() {
	s.check()
	if s.depth == 0 {
		panic("plot: PopClip without PushClip")
	}
	s.depth--
	s.buf.WriteString("</g>\n")
}

// num formats a coordinate to at most two decimals, without a negative
// zero, and non-finite values as 0 (they are never meant to reach here).
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	v = math.Round(v*100) / 100
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// attr writes v escaped for a double-quoted XML attribute.
func attr(b *bytes.Buffer, v string) {
	xml.EscapeText(b, []byte(v)) // escapes & < > " ' and control characters
}
