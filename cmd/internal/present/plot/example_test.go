package plot_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/plot"
)

// A network's outputs, marked at a few points, beside the kernel machine's
// curve, on a log time axis.
func ExampleChart() {
	t := []float64{1, 10, 100, 1000, 10000}
	c := &plot.Chart{
		Title: "f(x) during training",
		X:     plot.Axis{Label: "step", Scale: plot.ScaleLog10},
		Y:     plot.Axis{Label: "output"},
		Series: []plot.Series{
			{Name: "network", X: t, Y: []float64{0, 0.11, 0.52, 0.9, 1.01}, NoLine: true, Marker: plot.MarkerCircle},
			{Name: "SVM", X: t, Y: []float64{0, 0.1, 0.5, 0.9, 1}, Dashed: true},
		},
	}
	var buf bytes.Buffer // or an *os.File
	if err := c.WriteSVG(&buf, 400, 300); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.SplitAfterN(buf.String(), ">", 2)[0])
	fmt.Println(strings.Count(buf.String(), "<circle"), "circles")
	// Output:
	// <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="400" height="300" viewBox="0 0 400 300" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
	// 6 circles
}

// Four panels in a grid, lettered (a)–(d), as in the paper's Fig. 1.
func ExampleFigure() {
	panel := func(title string) plot.Panel {
		return plot.Panel{Caption: title, Chart: &plot.Chart{
			X:      plot.Axis{Label: "t", Scale: plot.ScaleLog10},
			Series: []plot.Series{{Name: title, X: []float64{1, 10, 100}, Y: []float64{3, 2, 1}}},
		}}
	}
	f := &plot.Figure{Panels: []plot.Panel{panel("train"), panel("test"), panel("loss"), panel("accuracy")}}
	w, h := f.Size()
	fmt.Println(w, h)
	var buf bytes.Buffer
	if err := f.WriteSVG(&buf); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(buf.String(), "(d) accuracy"))
	// Output:
	// 960 730
	// true
}
