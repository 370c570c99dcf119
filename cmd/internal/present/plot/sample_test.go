package plot

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// sampleFigure is a figure shaped like the paper's Fig. A.1: a network and
// its equivalent kernel machine over log-spaced training steps.
func sampleFigure() *Figure {
	var t []float64
	for k := 0; k <= 60; k++ {
		t = append(t, math.Pow(10, float64(k)/15)) // 1 … 10⁴
	}
	curve := func(f func(t float64) float64) []float64 {
		y := make([]float64, len(t))
		for i, v := range t {
			y[i] = f(v)
		}
		return y
	}
	out := func(a, r float64) func(float64) float64 {
		return func(v float64) float64 { return a * (1 - math.Exp(-r*v)) }
	}
	noisy := func(f func(float64) float64, e float64) func(float64) float64 {
		return func(v float64) float64 { return f(v) + e*math.Sin(7*math.Log(v)) }
	}
	var outputs, testOut []Series
	for i, a := range []float64{1.2, -0.8, 0.5} {
		r := 0.002 * float64(i+1)
		outputs = append(outputs,
			Series{Name: "NN", X: t, Y: curve(noisy(out(a, r), 0.01)), Color: Palette[i], NoLine: true, Marker: MarkerCircle, MaxMarkers: 12},
			Series{Name: "SVM", X: t, Y: curve(out(a, r)), Color: Palette[i]})
		testOut = append(testOut,
			Series{X: t, Y: curve(noisy(out(-a, r/2), 0.02)), Color: Palette[i], NoLine: true, Marker: MarkerCircle, MaxMarkers: 12},
			Series{X: t, Y: curve(out(-a, r/2)), Color: Palette[i]})
	}
	loss := curve(func(v float64) float64 { return math.Exp(-v / 2000) })
	lossNN := curve(noisy(func(v float64) float64 { return math.Exp(-v / 2000) }, 0.02))
	acc := curve(func(v float64) float64 { return 0.5 + 0.45*(1-math.Exp(-v/500)) })
	accNN := curve(noisy(func(v float64) float64 { return 0.5 + 0.45*(1-math.Exp(-v/500)) }, 0.01))
	return &Figure{
		Title: "Training a network and its SVM: outputs, loss and accuracy",
		Panels: []Panel{
			{Caption: "outputs on training points", Chart: &Chart{
				X: Axis{Label: "training step t", Scale: ScaleLog10}, Y: Axis{Label: "f(x)"}, Series: outputs}},
			{Caption: "outputs on test points", Chart: &Chart{
				X: Axis{Label: "training step t", Scale: ScaleLog10}, Y: Axis{Label: "f(x)"}, Series: testOut}},
			{Caption: "hinge loss", Chart: &Chart{
				X: Axis{Label: "training step t", Scale: ScaleLog10}, Y: Axis{Label: "loss", Scale: ScaleLog10},
				Series: []Series{
					{Name: "NN", X: t, Y: lossNN, Marker: MarkerTriangle, MaxMarkers: 15, NoLine: true},
					{Name: "SVM", X: t, Y: loss, Dashed: true},
				}}},
			{Caption: "accuracy on the test set, a long caption that needs to wrap onto a second line", Chart: &Chart{
				X: Axis{Label: "training step t", Scale: ScaleLog10}, Y: Axis{Label: "accuracy", Min: 0.4, Max: 1},
				Series: []Series{
					{Name: "NN (train)", X: t, Y: accNN, Marker: MarkerSquare, MaxMarkers: 10},
					{Name: "SVM (train)", X: t, Y: acc, Dashed: true},
					{Name: "with NaN gap", X: t, Y: curve(func(v float64) float64 {
						if v > 30 && v < 300 {
							return math.NaN()
						}
						return 0.45 + 0.4*(1-math.Exp(-v/800))
					})},
				}}},
		},
	}
}

// TestWriteSample writes the sample figure to $PLOT_SAMPLE_DIR, to look at.
func TestWriteSample(t *testing.T) {
	dir := os.Getenv("PLOT_SAMPLE_DIR")
	if dir == "" {
		t.Skip("PLOT_SAMPLE_DIR not set")
	}
	f, err := os.Create(filepath.Join(dir, "sample.svg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sampleFigure().WriteSVG(f); err != nil {
		t.Fatal(err)
	}
}

// edgeFigure is a figure of awkward charts, to look at.
func edgeFigure() *Figure {
	lin := func(n int, f func(float64) float64) ([]float64, []float64) {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(i)
			y[i] = f(x[i])
		}
		return x, y
	}
	x1, y1 := lin(50, func(v float64) float64 { return math.Pow(10, v/2-12) })
	x2, y2 := lin(50, func(v float64) float64 { return 3e-4 * math.Sin(v/5) })
	x3, y3 := lin(50, func(v float64) float64 { return 2.5e6 + 1e5*math.Cos(v/7) })
	x4, y4 := lin(20, func(v float64) float64 { return 1 + 1e-9*v })
	return &Figure{
		Title:   "Awkward data",
		Columns: 3,
		Panels: []Panel{
			{Caption: "24 decades", Chart: &Chart{Y: Axis{Label: "y", Scale: ScaleLog10}, Series: []Series{{Name: "10^(x/2−12)", X: x1, Y: y1}}}},
			{Caption: "small values", Chart: &Chart{Y: Axis{Label: "y"}, Series: []Series{{Name: "sin", X: x2, Y: y2, Marker: MarkerDiamond, MaxMarkers: 9}}}},
			{Caption: "large values", Chart: &Chart{X: Axis{Label: "x"}, Y: Axis{Label: "y"}, Series: []Series{{Name: "cos", X: x3, Y: y3}}}},
			{Caption: "nearly constant", Chart: &Chart{Title: "1 + 1e-9 x, with a title long enough to be wrapped onto two lines", Series: []Series{{Name: "c", X: x4, Y: y4, Marker: MarkerCross}}}},
			{Caption: "empty and single point", Chart: &Chart{X: Axis{Scale: ScaleLog10}, Series: []Series{{Name: "empty"}, {Name: "one point", X: []float64{3}, Y: []float64{2}}}}},
			{Caption: "narrow log range", Chart: &Chart{X: Axis{Scale: ScaleLog10, Label: "x"}, Y: Axis{Scale: ScaleLog10},
				Series: []Series{{Name: "plus", X: []float64{2, 3, 4, 5}, Y: []float64{0.3, 0.5, 0.4, 0.9}, Marker: MarkerPlus},
					{Name: "triangle", X: []float64{2.2, 3.3, 4.4}, Y: []float64{0.35, 0.55, 0.45}, Marker: MarkerTriangle, Dashed: true},
					{Name: "square", X: []float64{2.4, 3.4, 4.6}, Y: []float64{0.6, 0.7, 0.8}, Marker: MarkerSquare, NoLine: true}}}},
		},
	}
}

// TestWriteEdgeSample writes the awkward figure to $PLOT_SAMPLE_DIR.
func TestWriteEdgeSample(t *testing.T) {
	dir := os.Getenv("PLOT_SAMPLE_DIR")
	if dir == "" {
		t.Skip("PLOT_SAMPLE_DIR not set")
	}
	f, err := os.Create(filepath.Join(dir, "edge.svg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := edgeFigure().WriteSVG(f); err != nil {
		t.Fatal(err)
	}
}
