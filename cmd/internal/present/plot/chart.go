package plot

import (
	"fmt"
	"io"
	"math"
)

// Series is one line of a chart: the points (X[i], Y[i]) joined in order.
// A point with a NaN or infinite coordinate, or a non-positive one on a
// ScaleLog10 axis, is not drawn and breaks the line in two.
type Series struct {
	// Name is the legend entry; "" leaves the series out of the legend.
	// Series sharing a name share the first one's entry, as when each of
	// several outputs is drawn for a network and for its kernel machine.
	Name string
	X, Y []float64
	// Color is the series' colour; "" takes the next colour of Palette.
	Color  Color
	NoLine bool    // draw markers only
	Dashed bool    // draw the line dashed
	Width  float64 // line width in pixels; 0 means 1.5
	// Marker is drawn at the points; MarkerNone draws none. A point that
	// has no neighbour to join is drawn as a small dot even without one.
	Marker     Marker
	MarkerSize float64 // in pixels; 0 means 6
	// MaxMarkers, if positive, draws markers at most at that many points,
	// spread evenly by index over the drawable points, first and last
	// included, as the paper marks a network's curve at a few points.
	MaxMarkers int
}

// LegendPos is where a chart's legend goes, inside the plotting area.
type LegendPos int

// Legend positions. LegendAuto picks the corner the data cross least,
// trying top right, top left, bottom right and bottom left in that order.
const (
	LegendAuto LegendPos = iota
	LegendTopRight
	LegendTopLeft
	LegendBottomRight
	LegendBottomLeft
	LegendNone
)

// Chart is a line chart: a title, two axes, series, a legend and
// gridlines.
type Chart struct {
	Title  string // wrapped at spaces to the chart's width
	X, Y   Axis
	Series []Series
	Legend LegendPos
	NoGrid bool // no gridlines at the major ticks
}

// Font sizes and lengths, in pixels.
const (
	titleSize  = 14
	titleLine  = 18 // line height of a wrapped title
	labelSize  = 12
	tickSize   = 11
	legendSize = 11
	majorTick  = 5
	minorTick  = 3
	pad        = 6
)

// Default sizes.
const (
	DefaultChartWidth  = 480 // width of a chart written with width 0
	DefaultChartHeight = 340 // height of a chart written with height 0
)

// Colours of the chart furniture.
const (
	axisColor  Color = "#333333"
	gridColor  Color = "#dddddd"
	textColor  Color = "#222222"
	frameColor Color = "#999999"
)

// WriteSVG writes c as a standalone SVG document of the given size in
// pixels (0 takes DefaultChartWidth or DefaultChartHeight).
func (c *Chart) WriteSVG(w io.Writer, width, height float64) error {
	if width == 0 {
		width = DefaultChartWidth
	}
	if height == 0 {
		height = DefaultChartHeight
	}
	if err := c.check(); err != nil {
		return err
	}
	s := NewSVG(w, width, height)
	if err := c.Draw(s, Rect{Max: Point{width, height}}); err != nil {
		return err
	}
	return s.Close()
}

func (c *Chart) check() error {
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plot: series %d (%q) has %d x values and %d y values", i, s.Name, len(s.X), len(s.Y))
		}
	}
	for _, a := range []struct {
		name string
		ax   *Axis
	}{{"x", &c.X}, {"y", &c.Y}} {
		if a.ax.Scale != ScaleLinear && a.ax.Scale != ScaleLog10 {
			return fmt.Errorf("plot: %s axis has unknown scale %d", a.name, a.ax.Scale)
		}
	}
	return nil
}

// valid reports whether v can be shown on an axis of scale s.
func valid(v float64, s Scale) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (s == ScaleLinear || v > 0)
}

// axisLayout is an axis fitted to its data and to its length on the canvas.
type axisLayout struct {
	ax     *Axis
	lo, hi float64
	ticks  []Tick
	a, b   float64 // pixel positions of lo and hi
}

func (l *axisLayout) pos(v float64) float64 {
	var f float64
	if l.ax.Scale == ScaleLog10 {
		f = math.Log10(v/l.lo) / math.Log10(l.hi/l.lo)
	} else {
		f = (v/2 - l.lo/2) / (l.hi/2 - l.lo/2) // halves: hi-lo may overflow
	}
	return l.a + f*(l.b-l.a)
}

// dataRange returns the range of the values of each series that are
// valid on both axes (ok false if there are none).
func (c *Chart) dataRange(xAxis bool) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			if !valid(s.X[i], c.X.Scale) || !valid(s.Y[i], c.Y.Scale) {
				continue
			}
			v := s.Y[i]
			if xAxis {
				v = s.X[i]
			}
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi, lo <= hi
}

// fit sets l's range and ticks for an axis of length px, at most n major
// intervals.
func (c *Chart) fit(l *axisLayout, xAxis bool, n int) {
	ax := l.ax
	fixed := ax.Min < ax.Max && !math.IsInf(ax.Min, 0) && !math.IsInf(ax.Max, 0) &&
		(ax.Scale == ScaleLinear || ax.Min > 0)
	if fixed {
		l.lo, l.hi = ax.Min, ax.Max
	} else {
		lo, hi, ok := c.dataRange(xAxis)
		switch {
		case !ok && ax.Scale == ScaleLog10:
			l.lo, l.hi = 1, 10
		case !ok:
			l.lo, l.hi = 0, 1
		case ax.Scale == ScaleLog10:
			l.lo, l.hi = LogRange(lo, hi)
		default:
			l.lo, l.hi = NiceRange(lo, hi, n)
		}
	}
	if ax.Scale == ScaleLog10 {
		l.ticks = LogTicks(l.lo, l.hi, n)
	} else {
		l.ticks = LinearTicks(l.lo, l.hi, n)
	}
	if ax.Format != nil {
		for i, t := range l.ticks {
			if t.Label != "" {
				l.ticks[i].Label = ax.Format(t.Value)
			}
		}
	}
}

// maxLabelWidth is the widest major tick label of l.
func maxLabelWidth(ticks []Tick) float64 {
	w := 0.0
	for _, t := range ticks {
		w = max(w, TextWidth(t.Label, tickSize))
	}
	return w
}

// Draw draws c into r on cv. It returns an error for series whose X and Y
// differ in length, and draws nothing then.
func (c *Chart) Draw(cv Canvas, r Rect) error {
	if err := c.check(); err != nil {
		return err
	}
	// Vertical layout: title, plot, x tick labels, x label.
	top := r.Min.Y + pad
	title := wrap(c.Title, (r.Width()-4*pad)/1.12, titleSize) // bold is about 12% wider
	if len(title) > 0 {
		top += float64(len(title))*titleLine + pad
	} else {
		top += tickSize / 2.0 // room for the top y tick label
	}
	bottom := r.Max.Y - pad - majorTick - 3 - tickSize
	if c.X.Label != "" {
		bottom -= labelSize + pad
	}
	bottom = max(bottom, top+10)
	ly := axisLayout{ax: &c.Y, a: bottom, b: top}
	c.fit(&ly, false, max(2, int((bottom-top)/40)))

	// Horizontal layout: y label, y tick labels, plot, room for the last
	// x tick label.
	left := r.Min.X + pad + maxLabelWidth(ly.ticks) + majorTick + 3
	if c.Y.Label != "" {
		left += labelSize + pad
	}
	right := r.Max.X - 2*pad
	lx := axisLayout{ax: &c.X, a: left, b: right}
	for n := max(2, int((right-left)/60)); ; n-- {
		lx.b = right
		c.fit(&lx, true, n)
		// Shrink the plot if the last label overhangs the canvas.
		if len(lx.ticks) > 0 {
			last := lx.ticks[len(lx.ticks)-1]
			if last.Label != "" && lx.pos(last.Value) >= right-1 {
				lx.b = min(right, r.Max.X-pad-TextWidth(last.Label, tickSize)/2)
			}
		}
		if n <= 2 || !xLabelsCollide(&lx) {
			break
		}
	}
	right = max(lx.b, left+10)
	lx.b = right
	plot := Rect{Point{left, top}, Point{right, bottom}}

	// Grid, frame, ticks and labels.
	if !c.NoGrid {
		for _, t := range lx.ticks {
			if t.Label != "" {
				x := lx.pos(t.Value)
				cv.Polyline([]Point{{x, top}, {x, bottom}}, LineStyle{Color: gridColor, Width: 0.8})
			}
		}
		for _, t := range ly.ticks {
			if t.Label != "" {
				y := ly.pos(t.Value)
				cv.Polyline([]Point{{left, y}, {right, y}}, LineStyle{Color: gridColor, Width: 0.8})
			}
		}
	}
	cv.Rect(plot, LineStyle{Color: frameColor, Width: 1}, "")
	tick := LineStyle{Color: axisColor, Width: 1}
	for _, t := range lx.ticks {
		x := lx.pos(t.Value)
		l := float64(minorTick)
		if t.Label != "" {
			l = majorTick
			cv.Text(Point{x, bottom + majorTick + 3}, t.Label,
				TextStyle{Size: tickSize, Anchor: AnchorMiddle, VAlign: VAlignTop, Color: textColor})
		}
		cv.Polyline([]Point{{x, bottom}, {x, bottom + l}}, tick)
	}
	for _, t := range ly.ticks {
		y := ly.pos(t.Value)
		l := float64(minorTick)
		if t.Label != "" {
			l = majorTick
			cv.Text(Point{left - majorTick - 3, y}, t.Label,
				TextStyle{Size: tickSize, Anchor: AnchorEnd, VAlign: VAlignMiddle, Color: textColor})
		}
		cv.Polyline([]Point{{left - l, y}, {left, y}}, tick)
	}
	for k, line := range title {
		x := (left + right) / 2
		if len(title) > 1 { // a wrapped title is centred on the chart, not the plot
			x = (r.Min.X + r.Max.X) / 2
		}
		cv.Text(Point{x, r.Min.Y + pad + float64(k)*titleLine}, line,
			TextStyle{Size: titleSize, Bold: true, Anchor: AnchorMiddle, VAlign: VAlignTop, Color: textColor})
	}
	if c.X.Label != "" {
		cv.Text(Point{(left + right) / 2, r.Max.Y - pad}, c.X.Label,
			TextStyle{Size: labelSize, Anchor: AnchorMiddle, Color: textColor})
	}
	if c.Y.Label != "" {
		cv.Text(Point{r.Min.X + pad, (top + bottom) / 2}, c.Y.Label,
			TextStyle{Size: labelSize, Anchor: AnchorMiddle, VAlign: VAlignTop, Rotate: -90, Color: textColor})
	}

	// Series.
	paths := make([][][]Point, len(c.Series))
	next := 0
	colors := make([]Color, len(c.Series))
	for i := range c.Series {
		colors[i] = c.Series[i].Color
		if colors[i] == "" {
			colors[i] = Palette[next%len(Palette)]
			next++
		}
	}
	inner := Rect{Point{left - 2, top - 2}, Point{right + 2, bottom + 2}}
	cv.PushClip(plot)
	for i := range c.Series {
		s := &c.Series[i]
		runs := c.runs(s, &lx, &ly)
		st := LineStyle{Color: colors[i], Width: s.Width}
		if st.Width == 0 {
			st.Width = 1.5
		}
		if s.Dashed {
			st.Dashes = []float64{6 * st.Width / 1.5, 4 * st.Width / 1.5}
		}
		for _, run := range runs {
			for _, piece := range clipRun(run, inner) {
				paths[i] = append(paths[i], piece)
				if !s.NoLine {
					cv.Polyline(piece, st)
				}
			}
			// A lone point has no line to show it.
			if len(run) == 1 && s.Marker == MarkerNone && plot.Contains(run[0]) {
				cv.Marker(run[0], MarkerCircle, 2*st.Width+2, colors[i])
				paths[i] = append(paths[i], run)
			}
		}
	}
	cv.PopClip()
	for i := range c.Series {
		s := &c.Series[i]
		if s.Marker == MarkerNone {
			continue
		}
		var pts []Point
		for _, run := range c.runs(s, &lx, &ly) {
			for _, p := range run {
				if inner.Contains(p) {
					pts = append(pts, p)
				}
			}
		}
		for _, p := range subsample(pts, s.MaxMarkers) {
			cv.Marker(p, s.Marker, markerSize(s), colors[i])
			paths[i] = append(paths[i], []Point{p})
		}
	}
	c.drawLegend(cv, plot, colors, paths)
	return nil
}

func markerSize(s *Series) float64 {
	if s.MarkerSize > 0 {
		return s.MarkerSize
	}
	return 6
}

// xLabelsCollide reports whether neighbouring x tick labels would touch.
func xLabelsCollide(l *axisLayout) bool {
	prev := math.Inf(-1)
	for _, t := range l.ticks {
		if t.Label == "" {
			continue
		}
		x, w := l.pos(t.Value), TextWidth(t.Label, tickSize)
		if x-w/2 < prev+8 {
			return true
		}
		prev = x + w/2
	}
	return false
}

// runs maps the drawable points of s to pixels, split at the points that
// cannot be drawn.
func (c *Chart) runs(s *Series, lx, ly *axisLayout) [][]Point {
	var runs [][]Point
	var cur []Point
	for i := range s.X {
		x, y := s.X[i], s.Y[i]
		ok := valid(x, c.X.Scale) && valid(y, c.Y.Scale)
		var p Point
		if ok {
			p = Point{lx.pos(x), ly.pos(y)}
			ok = !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0) && !math.IsNaN(p.X) && !math.IsNaN(p.Y)
		}
		if !ok {
			if len(cur) > 0 {
				runs = append(runs, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, p)
	}
	if len(cur) > 0 {
		runs = append(runs, cur)
	}
	return runs
}

// subsample returns at most n of pts (all if n <= 0), evenly spread by
// index, first and last included.
func subsample(pts []Point, n int) []Point {
	if n <= 0 || len(pts) <= n {
		return pts
	}
	if n == 1 {
		return pts[:1]
	}
	out := make([]Point, n)
	for k := range n {
		out[k] = pts[int(math.Round(float64(k)*float64(len(pts)-1)/float64(n-1)))]
	}
	return out
}

// clipSeg clips the segment a–b to r (Liang–Barsky). It returns the
// clipped ends, whether anything is left, and whether each end moved.
func clipSeg(a, b Point, r Rect) (Point, Point, bool, bool, bool) {
	t0, t1 := 0.0, 1.0
	dx, dy := b.X-a.X, b.Y-a.Y
	for _, e := range [4][2]float64{
		{-dx, a.X - r.Min.X}, {dx, r.Max.X - a.X},
		{-dy, a.Y - r.Min.Y}, {dy, r.Max.Y - a.Y},
	} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return a, b, false, false, false
			}
			continue
		}
		t := q / p
		if p < 0 {
			if t > t1 {
				return a, b, false, false, false
			}
			t0 = max(t0, t)
		} else {
			if t < t0 {
				return a, b, false, false, false
			}
			t1 = min(t1, t)
		}
	}
	ca, cb := t0 > 0, t1 < 1
	na, nb := a, b
	if ca {
		na = Point{a.X + t0*dx, a.Y + t0*dy}
	}
	if cb {
		nb = Point{a.X + t1*dx, a.Y + t1*dy}
	}
	return na, nb, true, ca, cb
}

// clipRun clips a polyline to r, into the pieces that lie inside it.
func clipRun(pts []Point, r Rect) [][]Point {
	var out [][]Point
	var cur []Point
	flush := func() {
		if len(cur) >= 2 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i := 0; i+1 < len(pts); i++ {
		a, b, ok, ca, cb := clipSeg(pts[i], pts[i+1], r)
		if !ok {
			flush()
			continue
		}
		if cur == nil || ca {
			flush()
			cur = []Point{a}
		}
		cur = append(cur, b)
		if cb {
			flush()
		}
	}
	flush()
	return out
}

// drawLegend draws the legend entries of the named series in a box in a
// corner of plot, avoiding the drawn paths if the position is automatic.
func (c *Chart) drawLegend(cv Canvas, plot Rect, colors []Color, paths [][][]Point) {
	if c.Legend == LegendNone {
		return
	}
	var entries []int
	seen := map[string]bool{}
	w := 0.0
	for i, s := range c.Series {
		if s.Name != "" && !seen[s.Name] {
			seen[s.Name] = true
			entries = append(entries, i)
			w = max(w, TextWidth(s.Name, legendSize))
		}
	}
	if len(entries) == 0 {
		return
	}
	const rowH, sample, inset = 16.0, 26.0, 6.0
	bw := pad + sample + pad + w + pad
	bh := float64(len(entries))*rowH + pad
	box := func(pos LegendPos) Rect {
		var x, y float64
		switch pos {
		case LegendTopLeft, LegendBottomLeft:
			x = plot.Min.X + inset
		default:
			x = plot.Max.X - inset - bw
		}
		switch pos {
		case LegendBottomLeft, LegendBottomRight:
			y = plot.Max.Y - inset - bh
		default:
			y = plot.Min.Y + inset
		}
		return Rect{Point{x, y}, Point{x + bw, y + bh}}
	}
	pos := c.Legend
	if pos == LegendAuto {
		best := -1
		for _, p := range []LegendPos{LegendTopRight, LegendTopLeft, LegendBottomRight, LegendBottomLeft} {
			if n := crossings(box(p), paths); best < 0 || n < best {
				best, pos = n, p
			}
		}
	}
	b := box(pos)
	cv.Rect(b, LineStyle{Color: "#cccccc", Width: 0.8}, "#ffffff")
	for k, i := range entries {
		s := &c.Series[i]
		y := b.Min.Y + pad/2 + rowH*(float64(k)+0.5)
		x0 := b.Min.X + pad
		if !s.NoLine {
			st := LineStyle{Color: colors[i], Width: s.Width}
			if st.Width == 0 {
				st.Width = 1.5
			}
			if s.Dashed {
				st.Dashes = []float64{6 * st.Width / 1.5, 4 * st.Width / 1.5}
			}
			cv.Polyline([]Point{{x0, y}, {x0 + sample, y}}, st)
		}
		if s.Marker != MarkerNone {
			cv.Marker(Point{x0 + sample/2, y}, s.Marker, markerSize(s), colors[i])
		}
		cv.Text(Point{x0 + sample + pad, y}, s.Name,
			TextStyle{Size: legendSize, VAlign: VAlignMiddle, Color: textColor})
	}
}

// crossings counts the path segments and points that meet r.
func crossings(r Rect, paths [][][]Point) int {
	n := 0
	for _, series := range paths {
		for _, p := range series {
			if len(p) == 1 && r.Contains(p[0]) {
				n++
			}
			for i := 0; i+1 < len(p); i++ {
				if _, _, ok, _, _ := clipSeg(p[i], p[i+1], r); ok {
					n++
				}
			}
		}
	}
	return n
}
