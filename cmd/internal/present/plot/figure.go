package plot

import (
	"fmt"
	"io"
	"strings"
)

// Panel is one chart of a figure with its caption.
type Panel struct {
	Chart   *Chart
	Caption string // set below the chart, after its letter; wrapped to the panel's width
}

// Figure is several charts in a grid of panels, row by row, each with a
// caption below it lettered (a), (b), ... as in the paper's figures.
type Figure struct {
	Title   string
	Panels  []Panel
	Columns int // panels per row; 0 means 2, or 1 for a single panel
	// PanelWidth and PanelHeight are the size of each chart, without its
	// caption; 0 means DefaultChartWidth and DefaultChartHeight.
	PanelWidth, PanelHeight float64
	NoLetters               bool // captions without (a), (b), ...
}

const (
	captionSize = 12
	captionLine = 16
	figTitle    = 16
)

func (f *Figure) dims() (cols, rows int, pw, ph float64) {
	cols = f.Columns
	if cols <= 0 {
		cols = min(2, max(1, len(f.Panels)))
	}
	rows = (len(f.Panels) + cols - 1) / cols
	pw, ph = f.PanelWidth, f.PanelHeight
	if pw == 0 {
		pw = DefaultChartWidth
	}
	if ph == 0 {
		ph = DefaultChartHeight
	}
	return
}

// caption returns the wrapped caption lines of panel i.
func (f *Figure) caption(i int, width float64) []string {
	c := f.Panels[i].Caption
	if !f.NoLetters {
		c = strings.TrimSpace("(" + string(rune('a'+i%26)) + ") " + c)
	}
	return wrap(c, width, captionSize)
}

// rowHeights returns the height of each row of panels, captions included.
func (f *Figure) rowHeights() []float64 {
	cols, rows, pw, ph := f.dims()
	h := make([]float64, rows)
	for i := range f.Panels {
		n := len(f.caption(i, pw-2*pad))
		h[i/cols] = max(h[i/cols], ph+float64(n)*captionLine+pad)
	}
	return h
}

func (f *Figure) top() float64 {
	if f.Title == "" {
		return 0
	}
	return figTitle + 2*pad
}

// Size returns the figure's size in pixels.
func (f *Figure) Size() (width, height float64) {
	cols, _, pw, _ := f.dims()
	height = f.top()
	for _, h := range f.rowHeights() {
		height += h
	}
	return float64(cols) * pw, height + pad
}

// Draw draws f on cv with its top-left corner at p. It returns the first
// error of a chart, and an error for a panel without a chart.
func (f *Figure) Draw(cv Canvas, p Point) error {
	for i, pn := range f.Panels {
		if pn.Chart == nil {
			return fmt.Errorf("plot: panel %d has no chart", i)
		}
		if err := pn.Chart.check(); err != nil {
			return fmt.Errorf("panel %d: %w", i, err)
		}
	}
	cols, _, pw, ph := f.dims()
	w, _ := f.Size()
	if f.Title != "" {
		cv.Text(Point{p.X + w/2, p.Y + pad}, f.Title,
			TextStyle{Size: figTitle, Bold: true, Anchor: AnchorMiddle, VAlign: VAlignTop, Color: textColor})
	}
	y := p.Y + f.top()
	heights := f.rowHeights()
	for i, pn := range f.Panels {
		row, col := i/cols, i%cols
		if col == 0 && row > 0 {
			y += heights[row-1]
		}
		x := p.X + float64(col)*pw
		if err := pn.Chart.Draw(cv, Rect{Point{x, y}, Point{x + pw, y + ph}}); err != nil {
			return fmt.Errorf("panel %d: %w", i, err)
		}
		for k, line := range f.caption(i, pw-2*pad) {
			cv.Text(Point{x + pw/2, y + ph + pad + float64(k)*captionLine}, line,
				TextStyle{Size: captionSize, Anchor: AnchorMiddle, VAlign: VAlignTop, Color: textColor})
		}
	}
	return nil
}

// WriteSVG writes f as a standalone SVG document of its Size.
func (f *Figure) WriteSVG(w io.Writer) error {
	width, height := f.Size()
	s := NewSVG(w, width, height)
	if err := f.Draw(s, Point{}); err != nil {
		return err
	}
	return s.Close()
}

// wrap splits text into lines at most width pixels wide where it can,
// breaking at spaces.
func wrap(text string, width, size float64) []string {
	words := strings.Fields(text)
	var lines []string
	cur := ""
	for _, w := range words {
		if cur != "" && TextWidth(cur+" "+w, size) > width {
			lines = append(lines, cur)
			cur = w
		} else if cur == "" {
			cur = w
		} else {
			cur += " " + w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
