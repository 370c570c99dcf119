// Package plot draws line charts and multi-panel figures as standalone SVG
// documents, using only the standard library. It is presentation code for
// the commands, not numerics.
//
// The package has two layers, in the manner of gonum/plot: a drawing
// surface, [Canvas], that knows polylines (a line is one of two points),
// rectangles, text, markers and clip rectangles in pixel coordinates, with
// an SVG backend ([SVG]); and on top of it [Chart] (axes with linear or
// log10 scales and nice ticks, series, legend, grid) and [Figure] (several
// charts in a grid of lettered panels).
//
// Output is deterministic: the same input gives the same bytes, with
// coordinates written to 0.01 px.
package plot

// Point is a position on a canvas, in pixels; y grows downwards, as in SVG.
type Point struct{ X, Y float64 }

// Rect is an axis-aligned rectangle on a canvas: Min is its top-left corner
// and Max its bottom-right corner.
type Rect struct{ Min, Max Point }

// Width returns r's width.
func (r Rect) Width() float64 { return r.Max.X - r.Min.X }

// Height returns r's height.
func (r Rect) Height() float64 { return r.Max.Y - r.Min.Y }

// Contains reports whether p lies in r, edges included.
func (r Rect) Contains(p Point) bool {
	return p.X >= r.Min.X && p.X <= r.Max.X && p.Y >= r.Min.Y && p.Y <= r.Max.Y
}

// Color is a CSS colour as SVG understands it, such as "#0072B2" or
// "black". The empty Color means "choose one": a chart gives a series
// without a colour the next one of [Palette].
type Color string

// Palette is the default series colours, in order: the Okabe–Ito palette,
// distinguishable with the common forms of colour blindness, reordered so
// that the first colours contrast most on white and yellow comes last.
var Palette = []Color{
	"#0072B2", // blue
	"#D55E00", // vermillion
	"#009E73", // bluish green
	"#CC79A7", // reddish purple
	"#E69F00", // orange
	"#56B4E9", // sky blue
	"#000000", // black
	"#F0E442", // yellow
}

// LineStyle is how a line or a polyline is stroked.
type LineStyle struct {
	Color Color
	Width float64 // in pixels; 0 means 1
	// Dashes alternates dash and gap lengths in pixels; nil draws a solid
	// line.
	Dashes []float64
}

// Anchor is where a text's reference point lies along its baseline.
type Anchor int

// Text anchors.
const (
	AnchorStart  Anchor = iota // the text begins at the point
	AnchorMiddle               // the text is centred on the point
	AnchorEnd                  // the text ends at the point
)

// VAlign is where a text's reference point lies vertically.
type VAlign int

// Vertical alignments. They are computed by the canvas from the font size
// rather than left to the renderer, so that every renderer places text
// alike.
const (
	VAlignBaseline VAlign = iota // the point is on the baseline
	VAlignMiddle                 // the point is half a cap height above the baseline
	VAlignTop                    // the point is a cap height above the baseline
)

// TextStyle is how a text is drawn.
type TextStyle struct {
	Color  Color   // "" means black
	Size   float64 // font size in pixels; 0 means 12
	Anchor Anchor
	VAlign VAlign
	Bold   bool
	// Rotate turns the text by this many degrees clockwise about its
	// reference point; -90 reads bottom to top.
	Rotate float64
}

// Marker is the shape drawn at a data point.
type Marker int

// Marker shapes. MarkerNone draws nothing.
const (
	MarkerNone Marker = iota
	MarkerCircle
	MarkerSquare
	MarkerTriangle
	MarkerDiamond
	MarkerCross
	MarkerPlus
)

// Canvas is a drawing surface in pixel coordinates. Implementations need
// not check their arguments: the charts only pass finite coordinates.
type Canvas interface {
	// Polyline strokes the path through pts; fewer than two points draw
	// nothing.
	Polyline(pts []Point, s LineStyle)
	// Rect strokes r with s (nothing if s.Color is "") and fills it with
	// fill (nothing if fill is "").
	Rect(r Rect, s LineStyle, fill Color)
	// Text draws one line of text.
	Text(p Point, text string, s TextStyle)
	// Marker draws shape m of the given size (its width in pixels) centred
	// on p, in colour c.
	Marker(p Point, m Marker, size float64, c Color)
	// PushClip restricts what is drawn next to r, until the matching
	// PopClip.
	PushClip(r Rect)
	// PopClip ends the innermost PushClip.
	PopClip()
}

// TextWidth estimates the width in pixels of text set in a sans-serif font
// of the given size (0 means 12). It is what the charts lay themselves out
// with; it errs on the wide side, so that labels do not collide.
func TextWidth(text string, size float64) float64 {
	if size == 0 {
		size = 12
	}
	w := 0.0
	for _, r := range text {
		switch {
		case r == ' ' || r == '.' || r == ',' || r == ':' || r == ';' || r == '\'' ||
			r == 'i' || r == 'l' || r == 'j' || r == '|' || r == '!' || r == 'I':
			w += 0.32
		case r == 'f' || r == 't' || r == 'r' || r == '(' || r == ')' || r == '[' || r == ']' || r == '-':
			w += 0.42
		case r == 'm' || r == 'w' || r == 'M' || r == 'W':
			w += 0.9
		case r >= 'A' && r <= 'Z':
			w += 0.7
		case r >= 0x2070 && r <= 0x209F, r == 0xB2, r == 0xB3, r == 0xB9: // superscripts
			w += 0.42
		default: // digits are 0.636 em in DejaVu Sans
			w += 0.64
		}
	}
	return w * size
}
