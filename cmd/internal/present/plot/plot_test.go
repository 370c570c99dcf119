package plot

import (
	"bytes"
	"encoding/xml"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// node is an XML element of a parsed SVG document.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []node     `xml:",any"`
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// all returns the elements named local under n, n included, in document order.
func (n *node) all(local string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.XMLName.Local == local {
			out = append(out, m)
		}
		for i := range m.Children {
			walk(&m.Children[i])
		}
	}
	walk(n)
	return out
}

// parseSVG checks that b is one well-formed SVG element with the
// attributes a standalone SVG 1.1 document needs, and returns it.
func parseSVG(t *testing.T, b []byte) *node {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var root node
	if err := d.Decode(&root); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, b)
	}
	// Nothing but white space may follow the root element.
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if cd, ok := tok.(xml.CharData); !ok || len(bytes.TrimSpace(cd)) > 0 {
			t.Fatalf("content after the root element: %v", tok)
		}
	}
	if root.XMLName.Local != "svg" || root.XMLName.Space != "http://www.w3.org/2000/svg" {
		t.Fatalf("root is %v, want svg in the SVG namespace", root.XMLName)
	}
	for _, a := range []string{"width", "height", "viewBox", "version"} {
		if root.attr(a) == "" {
			t.Errorf("root has no %s", a)
		}
	}
	var walk func(*node)
	walk = func(n *node) {
		for _, a := range n.Attrs {
			if strings.Contains(a.Value, "NaN") || strings.Contains(a.Value, "Inf") {
				t.Errorf("non-finite number in %s=%q", a.Name.Local, a.Value)
			}
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
	}
	walk(&root)
	return &root
}

func render(t *testing.T, c *Chart) (*node, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := c.WriteSVG(&buf, 0, 0); err != nil {
		t.Fatal(err)
	}
	return parseSVG(t, buf.Bytes()), buf.Bytes()
}

func values(ticks []Tick, major bool) []float64 {
	var v []float64
	for _, t := range ticks {
		if t.Major() == major {
			v = append(v, t.Value)
		}
	}
	return v
}

func labels(ticks []Tick) []string {
	var l []string
	for _, t := range ticks {
		if t.Major() {
			l = append(l, t.Label)
		}
	}
	return l
}

func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		labels string
	}{
		{0, 1, 5, "0 0.2 0.4 0.6 0.8 1.0"},
		{0, 10, 5, "0 2 4 6 8 10"},
		{0, 10, 10, "0 1 2 3 4 5 6 7 8 9 10"},
		{0, 10, 3, "0 5 10"},
		{-1, 1, 4, "−1.0 −0.5 0 0.5 1.0"},
		{0, 0.3, 3, "0 0.1 0.2 0.3"},
		{0.1, 0.7, 6, "0.1 0.2 0.3 0.4 0.5 0.6 0.7"},
		{0.15, 0.95, 4, "0.2 0.4 0.6 0.8"},
		{17, 83, 5, "20 40 60 80"},
		{-250, 1250, 3, "0 500 1000"},
		{0, 4e6, 4, "0 1e6 2e6 3e6 4e6"},
		{0, 5e-4, 5, "0 1e−4 2e−4 3e−4 4e−4 5e−4"},
		{1.5e-4, 2.5e-4, 2, "1.5e−4 2.0e−4 2.5e−4"},
		{0.995, 1.005, 2, "0.995 1.000 1.005"},
		{1, 1, 5, ""},
	} {
		got := strings.Join(labels(LinearTicks(tc.lo, tc.hi, tc.n)), " ")
		if got != tc.labels {
			t.Errorf("LinearTicks(%g, %g, %d) = %q, want %q", tc.lo, tc.hi, tc.n, got, tc.labels)
		}
	}
	// A fixed range too narrow for its magnitude ends the loop.
	for _, hi := range []float64{1 + 2.3e-16, 1 + 4.5e-16, 1 + 1e-15, 1 + 1e-13} {
		if ticks := LinearTicks(1, hi, 5); len(ticks) == 0 || len(ticks) > 6 {
			t.Errorf("LinearTicks(1, %v, 5) = %v", hi, ticks)
		}
	}
	// Values are exact decimals, not k*step with rounding error.
	for _, tk := range LinearTicks(0, 1, 10) {
		if s := strconv.FormatFloat(tk.Value, 'g', -1, 64); len(s) > 3 {
			t.Errorf("tick value %s is not a short decimal", s)
		}
	}
}

func TestNiceRange(t *testing.T) {
	for _, tc := range []struct {
		lo, hi   float64
		n        int
		wlo, whi float64
		desc     string
	}{
		{0.13, 0.96, 5, 0, 1, "widened to steps of 0.2"},
		{3, 97, 5, 0, 100, "to 20s"},
		{-0.8, 1.2, 4, -1, 1.5, "to 0.5s"},
		{5, 5, 5, 4.4, 5.6, "a constant widened by 10%"},
		{0, 0, 5, -1, 1, "zero"},
		{-7, -3, 4, -7, -3, "already nice"},
		{1001, 1009, 4, 1000, 1010, "narrow far from zero"},
		{1, 1 + 2.3e-16, 4, 0.9, 1.1, "constant but for rounding"},
	} {
		lo, hi := NiceRange(tc.lo, tc.hi, tc.n)
		if lo != tc.wlo || hi != tc.whi {
			t.Errorf("%s: NiceRange(%g, %g, %d) = [%g, %g], want [%g, %g]", tc.desc, tc.lo, tc.hi, tc.n, lo, hi, tc.wlo, tc.whi)
		}
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		n      int
		labels string
		minor  int
	}{
		{1, 1e4, 6, "1 10 100 1000 10000", 4 * 8},
		{1e-3, 1, 6, "0.001 0.01 0.1 1", 3 * 8},
		{1e-6, 1, 8, "10⁻⁶ 10⁻⁵ 10⁻⁴ 10⁻³ 10⁻² 10⁻¹ 10⁰", 6 * 8},
		{1, 1e5, 6, "10⁰ 10¹ 10² 10³ 10⁴ 10⁵", 5 * 8},
		{0.5, 2000, 6, "1 10 100 1000", 5 + 8*3 + 1},
		{1e-12, 1e12, 6, "10⁻¹⁰ 10⁻⁵ 10⁰ 10⁵ 10¹⁰", 25 - 5},
		{1e-20, 1e20, 5, "10⁻²⁰ 10⁻¹⁰ 10⁰ 10¹⁰ 10²⁰", 41 - 5},
		{2, 30, 6, "2 5 10 20", 28 - 4 - 4 - 1 - 2*0}, // 2…9, 10, 20, 30: 11 ticks
		{0.2, 0.9, 6, "0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9", 0},
		{2e6, 9e6, 6, "2×10⁶ 3×10⁶ 4×10⁶ 5×10⁶ 6×10⁶ 7×10⁶ 8×10⁶ 9×10⁶", 0},
		{2, 3, 6, "2 3", 0},
		{2.1, 2.9, 4, "2.2 2.4 2.6 2.8", 0},
		{0, 1, 6, "", 0},
		{3, 3, 6, "", 0},
	} {
		ticks := LogTicks(tc.lo, tc.hi, tc.n)
		got := strings.Join(labels(ticks), " ")
		if got != tc.labels {
			t.Errorf("LogTicks(%g, %g, %d) labels %q, want %q", tc.lo, tc.hi, tc.n, got, tc.labels)
		}
		if tc.minor != 0 {
			if m := len(values(ticks, false)); m != tc.minor && !(tc.lo == 2 && m == 7) {
				t.Errorf("LogTicks(%g, %g, %d): %d minor ticks, want %d", tc.lo, tc.hi, tc.n, m, tc.minor)
			}
		}
		for i := 1; i < len(ticks); i++ {
			if !(ticks[i].Value > ticks[i-1].Value) {
				t.Errorf("LogTicks(%g, %g): ticks not increasing at %d: %v", tc.lo, tc.hi, i, ticks)
				break
			}
		}
		for _, tk := range ticks {
			if tk.Value < tc.lo*(1-1e-9) || tk.Value > tc.hi*(1+1e-9) {
				t.Errorf("LogTicks(%g, %g): tick %g out of range", tc.lo, tc.hi, tk.Value)
			}
		}
	}
}

func TestLogRange(t *testing.T) {
	for _, tc := range []struct{ lo, hi, wlo, whi float64 }{
		{3, 4000, 1, 1e4},
		{1, 1000, 1, 1000},
		{0.0067, 1.02, 0.001, 10},
		{2.5, 7.5, 2, 8},
		{0.31, 4.2, 0.3, 5},
		{5, 5, 2, 10},
		{0.1, 1000.0000000001588, 0.1, 1000}, // 10⁴ summed steps of 0.1
		{0.0099999, 100.001, 0.001, 1000},    // past the 1e-9 snap
		{0.01, 1000.00001, 0.01, 1e4},
	} {
		lo, hi := LogRange(tc.lo, tc.hi)
		if math.Abs(lo/tc.wlo-1) > 1e-12 || math.Abs(hi/tc.whi-1) > 1e-12 {
			t.Errorf("LogRange(%g, %g) = [%g, %g], want [%g, %g]", tc.lo, tc.hi, lo, hi, tc.wlo, tc.whi)
		}
	}
}

func TestDecade(t *testing.T) {
	for k := -300; k <= 300; k++ {
		v := math.Pow10(k)
		if d := decade(v); d != k {
			t.Errorf("decade(1e%d) = %d", k, d)
		}
		if d := decade(v * 9.999); d != k {
			t.Errorf("decade(9.999e%d) = %d", k, d)
		}
	}
}

// seriesLines returns the polylines drawn in colour c.
func seriesLines(root *node, c Color) []*node {
	var out []*node
	for _, p := range root.all("polyline") {
		if p.attr("stroke") == string(c) {
			out = append(out, p)
		}
	}
	return out
}

func TestNaNBreaksLines(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, tc := range []struct {
		name  string
		y     []float64
		logY  bool
		lines int
	}{
		{"clean", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, false, 1},
		{"one NaN", []float64{1, 2, 3, nan, 5, 6, 7, 8, 9}, false, 2},
		{"Inf and NaN", []float64{1, 2, inf, 4, 5, nan, 7, 8, 9}, false, 3},
		{"isolated point", []float64{1, 2, nan, 4, nan, 6, 7, 8, 9}, false, 2},
		{"zero on log", []float64{1, 2, 3, 0, 5, 6, -1, 8, 9}, true, 3},
		{"zero on linear", []float64{1, 2, 3, 0, 5, 6, -1, 8, 9}, false, 1},
		{"all NaN", []float64{nan, nan, nan, nan, nan, nan, nan, nan, nan}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Chart{Series: []Series{{Name: "s", X: x, Y: tc.y, Color: "#123456"}}}
			if tc.logY {
				c.Y.Scale = ScaleLog10
			}
			root, _ := render(t, c)
			// One more polyline for the legend sample.
			if got := len(seriesLines(root, "#123456")) - 1; got != tc.lines {
				t.Errorf("%d polylines, want %d", got, tc.lines)
			}
		})
	}
}

func TestOutOfRangeIsClipped(t *testing.T) {
	c := &Chart{
		Y:      Axis{Min: 0, Max: 1},
		Series: []Series{{X: []float64{0, 1, 2, 3, 4}, Y: []float64{0.5, 1e300, 0.5, -1e300, 0.5}, Color: "#123456", Marker: MarkerCircle}},
	}
	root, _ := render(t, c)
	lines := seriesLines(root, "#123456")
	if len(lines) != 3 {
		t.Errorf("%d pieces, want 3 (the line leaves the range twice)", len(lines))
	}
	for _, l := range lines {
		for _, f := range strings.FieldsFunc(l.attr("points"), func(r rune) bool { return r == ' ' || r == ',' }) {
			if v, _ := strconv.ParseFloat(f, 64); math.Abs(v) > 1e4 {
				t.Fatalf("coordinate %s far outside the canvas", f)
			}
		}
	}
	if n := len(root.all("circle")); n != 3 {
		t.Errorf("%d markers, want the 3 in range", n)
	}
}

func TestMarkersAndLegend(t *testing.T) {
	x := make([]float64, 100)
	y := make([]float64, 100)
	for i := range x {
		x[i], y[i] = float64(i+1), math.Sqrt(float64(i+1))
	}
	c := &Chart{
		Title: "markers <&> legend",
		X:     Axis{Label: "t", Scale: ScaleLog10},
		Y:     Axis{Label: "y"},
		Series: []Series{
			{Name: "network", X: x, Y: y, NoLine: true, Marker: MarkerCircle, MaxMarkers: 7},
			{Name: "kernel machine", X: x, Y: y, Dashed: true},
			{Name: "every point", X: x[:10], Y: y[:10], Marker: MarkerSquare},
			{X: x, Y: y}, // no name: not in the legend
			{Name: "network", X: x, Y: y, Color: "#123456"}, // a second curve of the first entry
		},
	}
	root, _ := render(t, c)
	if n := len(root.all("circle")); n != 7+1 {
		t.Errorf("%d circles, want 7 markers and 1 in the legend", n)
	}
	var texts []string
	for _, tx := range root.all("text") {
		texts = append(texts, tx.Text)
	}
	joined := "\n" + strings.Join(texts, "\n") + "\n"
	if n := strings.Count(joined, "\nnetwork\n"); n != 1 {
		t.Errorf("%d legend entries for two series named network, want 1", n)
	}
	for _, want := range []string{"network", "kernel machine", "every point", "markers <&> legend", "t", "y", "1", "10", "100"} {
		if !strings.Contains(joined, "\n"+want+"\n") {
			t.Errorf("no text %q among %q", want, texts)
		}
	}
	dashed := 0
	for _, p := range root.all("polyline") {
		if p.attr("stroke-dasharray") != "" {
			dashed++
		}
	}
	if dashed != 2 {
		t.Errorf("%d dashed polylines, want 2 (series and legend)", dashed)
	}
	// Squares: 10 markers, 1 legend, besides the background and frame
	// rectangles, the legend box and the clip rectangle.
	rects := 0
	for _, r := range root.all("rect") {
		if r.attr("fill") == string(Palette[2]) {
			rects++
		}
	}
	if rects != 11 {
		t.Errorf("%d square markers, want 11", rects)
	}
	// Colours come from the palette in order, for series without one.
	if len(seriesLines(root, Palette[1])) != 2 || len(seriesLines(root, Palette[3])) != 1 {
		t.Errorf("series colours not taken from the palette in order")
	}
}

func TestDegenerateData(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    []Series
		log  bool
	}{
		{"no series", nil, false},
		{"empty series", []Series{{Name: "empty"}}, false},
		{"empty on log", []Series{{Name: "empty"}}, true},
		{"single point", []Series{{Name: "one", X: []float64{3}, Y: []float64{7}}}, false},
		{"single point log", []Series{{Name: "one", X: []float64{3}, Y: []float64{7}}}, true},
		{"constant", []Series{{X: []float64{1, 2, 3}, Y: []float64{5, 5, 5}}}, false},
		{"constant zero", []Series{{X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}}}, false},
		{"constant log", []Series{{X: []float64{1, 2, 3}, Y: []float64{5, 5, 5}}}, true},
		{"huge", []Series{{X: []float64{-1e308, 1e308}, Y: []float64{-1e308, 1e308}}}, false},
		{"tiny", []Series{{X: []float64{1e-300, 2e-300}, Y: []float64{1e-300, 3e-300}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Chart{Series: tc.s}
			if tc.log {
				c.X.Scale, c.Y.Scale = ScaleLog10, ScaleLog10
			}
			root, _ := render(t, c)
			if len(root.all("text")) < 4 {
				t.Errorf("fewer than 4 tick labels")
			}
			if strings.HasPrefix(tc.name, "single point") && len(root.all("circle")) != 1 {
				t.Errorf("a single point is not drawn")
			}
		})
	}
}

func TestErrors(t *testing.T) {
	var buf bytes.Buffer
	c := &Chart{Series: []Series{{Name: "bad", X: []float64{1, 2}, Y: []float64{1}}}}
	if err := c.WriteSVG(&buf, 0, 0); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("mismatched lengths: err = %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("something was written on error")
	}
	f := &Figure{Panels: []Panel{{Chart: &Chart{}}, {Caption: "no chart"}}}
	if err := f.WriteSVG(&buf); err == nil {
		t.Errorf("panel without a chart: no error")
	}
	c = &Chart{X: Axis{Scale: 7}}
	if err := c.WriteSVG(&buf, 0, 0); err == nil {
		t.Errorf("unknown scale: no error")
	}
}

func TestDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := sampleFigure().WriteSVG(&a); err != nil {
		t.Fatal(err)
	}
	if err := sampleFigure().WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renderings of the same figure differ")
	}
	// Limited precision: no coordinate has more than two decimals.
	for _, f := range strings.FieldsFunc(a.String(), func(r rune) bool { return strings.ContainsRune(" ,\"=()MLZ", r) }) {
		if i := strings.IndexByte(f, '.'); i >= 0 && len(f)-i-1 > 2 {
			if _, err := strconv.ParseFloat(f, 64); err == nil && !strings.Contains(a.String(), ">"+f+"<") {
				t.Fatalf("number %s has more than two decimals", f)
			}
		}
	}
}

func TestFigure(t *testing.T) {
	f := sampleFigure()
	var buf bytes.Buffer
	if err := f.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, buf.Bytes())
	w, h := f.Size()
	if root.attr("width") != num(w) || root.attr("height") != num(h) || root.attr("viewBox") != "0 0 "+num(w)+" "+num(h) {
		t.Errorf("size attributes %q %q %q, want %v×%v", root.attr("width"), root.attr("height"), root.attr("viewBox"), w, h)
	}
	var texts []string
	for _, tx := range root.all("text") {
		texts = append(texts, tx.Text)
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"(a) outputs on training points", "(b) outputs on test points", "(c) hinge loss", "(d) accuracy"} {
		if !strings.Contains(all, want) {
			t.Errorf("no caption %q", want)
		}
	}
	// Structure: per panel, the clip group holds the series.
	groups := root.all("g")
	if len(groups) != 4 {
		t.Fatalf("%d clip groups, want 4", len(groups))
	}
	wantLines := []int{3, 3, 1, 4} // NN series have no line; panel (d) has a NaN gap
	for i, g := range groups {
		if n := len(g.all("polyline")); n != wantLines[i] {
			t.Errorf("panel %c: %d series polylines, want %d", 'a'+i, n, wantLines[i])
		}
	}
	if n := len(root.all("circle")); n != 2*3*12+1 {
		t.Errorf("%d circles, want 72 markers and 1 legend entry", n)
	}
	if n := len(root.all("clipPath")); n != 4 {
		t.Errorf("%d clip paths, want 4", n)
	}
}

func TestSVGEscaping(t *testing.T) {
	var buf bytes.Buffer
	s := NewSVG(&buf, 100, 50)
	s.Text(Point{1, 2}, `a<b & "c" 'd'>`+"\x01", TextStyle{Color: `red" onload="x`})
	s.Rect(Rect{Max: Point{10, 10}}, LineStyle{Color: "<bad>"}, "&")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, buf.Bytes())
	tx := root.all("text")
	if len(tx) != 1 || tx[0].Text != `a<b & "c" 'd'>`+"\uFFFD" {
		t.Errorf("text round trip: %d texts", len(tx))
	}
	if tx[0].attr("fill") != `red" onload="x` || tx[0].attr("onload") != "" {
		t.Errorf("attribute not escaped")
	}
}

func TestSubsample(t *testing.T) {
	pts := make([]Point, 10)
	for i := range pts {
		pts[i].X = float64(i)
	}
	xs := func(p []Point) []float64 {
		var v []float64
		for _, q := range p {
			v = append(v, q.X)
		}
		return v
	}
	for _, tc := range []struct {
		n    int
		want []float64
	}{
		{0, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{20, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{4, []float64{0, 3, 6, 9}},
		{2, []float64{0, 9}},
		{1, []float64{0}},
	} {
		if got := xs(subsample(pts, tc.n)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("subsample(10 points, %d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

func FuzzChart(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 0.5, -1.0, 1e-9, true, false)
	f.Add(math.NaN(), math.Inf(1), 0.0, 0.0, 0.0, 0.0, false, true)
	f.Add(1e300, -1e300, 5e-324, 1.0, 1.0, 1.0, true, true)
	f.Add(1.0, 1+2.3e-16, 1.0, 1.0, 1+2.3e-16, 1.0, false, false)
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g float64, logX, logY bool) {
		ch := &Chart{Series: []Series{
			{Name: "s", X: []float64{a, b, c}, Y: []float64{d, e, g}, Marker: MarkerDiamond},
			{X: []float64{g, e}, Y: []float64{a, c}},
		}}
		if logX {
			ch.X.Scale = ScaleLog10
		}
		if logY {
			ch.Y.Scale = ScaleLog10
		}
		var buf bytes.Buffer
		if err := ch.WriteSVG(&buf, 300, 200); err != nil {
			t.Fatal(err)
		}
		parseSVG(t, buf.Bytes())
	})
}

func TestClipsShared(t *testing.T) {
	var buf bytes.Buffer
	s := NewSVG(&buf, 100, 100)
	r := Rect{Point{10, 10}, Point{50.5, 60}}
	s.PushClip(r)
	s.Polyline([]Point{{0, 0}, {100, 100}}, LineStyle{})
	s.PopClip()
	s.PushClip(r)
	s.PushClip(Rect{Max: Point{20, 20}})
	s.Marker(Point{5, 5}, MarkerCross, 6, "")
	// Close ends the two open groups.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	root := parseSVG(t, buf.Bytes())
	if n := len(root.all("clipPath")); n != 2 {
		t.Errorf("%d clip paths, want 2 (one per distinct rectangle)", n)
	}
	if n := len(root.all("g")); n != 3 {
		t.Errorf("%d groups, want 3", n)
	}
	defer func() {
		if recover() == nil {
			t.Error("drawing after Close did not panic")
		}
	}()
	s.Polyline([]Point{{0, 0}, {1, 1}}, LineStyle{})
}

func TestEmptyFigure(t *testing.T) {
	var buf bytes.Buffer
	if err := (&Figure{Title: "nothing"}).WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	parseSVG(t, buf.Bytes())
}
