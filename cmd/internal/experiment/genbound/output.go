package genbound

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/cmd/internal/present/plot"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// write writes curves.csv, summary.json and genbound.svg into dir, each
// atomically.
func write(dir string, s *Summary) error {
	files := []struct {
		name string
		fn   func(io.Writer) error
	}{
		{CurvesFile, func(w io.Writer) error { return WriteCurves(w, s.Points) }},
		{SummaryFile, func(w io.Writer) error { return output.WriteJSON(w, s) }},
		{FigureFile, func(w io.Writer) error { return Figure(s).WriteSVG(w) }},
	}
	for _, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), f.fn); err != nil {
			return fmt.Errorf("genbound: writing %s: %w", f.name, err)
		}
	}
	return nil
}

// CurvesHeader is the header of curves.csv: one column per field of
// Point, named as in its JSON form.
var CurvesHeader = []string{"step", "t", "nn_train_loss", "km_train_loss", "nn_test_loss", "nn_test_clipped_loss", "km_test_loss",
	"bound_loss", "bound", "bound_union", "rkhs_norm", "grid_norm", "trace", "rademacher", "rademacher_union",
	"confidence", "confidence_union", "gap_train_max", "gap_train_rms", "gap_test_max", "gap_test_rms", "sign_breaks", "drift"}

// WriteCurves writes the points as CSV with CurvesHeader: numbers as the
// shortest decimals that read back exactly, NaN for missing values.
func WriteCurves(w io.Writer, pts []Point) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	if err := cw.Write(CurvesHeader); err != nil {
		return err
	}
	f := func(v Num) string { return strconv.FormatFloat(float64(v), 'g', -1, 64) }
	for _, p := range pts {
		rec := []string{strconv.Itoa(p.Step), f(Num(p.T)), f(p.NNTrain), f(p.KMTrain), f(p.NNTest), f(p.NNTestClipped), f(p.KMTest),
			f(p.BoundLoss), f(p.Bound), f(p.BoundUnion), f(p.B), f(p.GridB), f(p.Trace), f(p.Rademacher), f(p.RademacherUnion),
			f(p.Confidence), f(p.ConfidenceUnion), f(p.GapTrainMax), f(p.GapTrainRMS), f(p.GapTestMax), f(p.GapTestRMS),
			strconv.Itoa(p.SignBreaks), f(p.Drift)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// Figure returns the run's figure, in the manner of the paper's Fig. B.2:
// (a) the network's and the kernel machine's training losses, the network's
// test loss and the bound over t; (b) max |f_NN − f_KM| on the training and
// test points over t; (c) the bound's terms over t.
func Figure(s *Summary) *plot.Figure {
	var t []float64
	col := func(get func(Point) Num) []float64 {
		v := make([]float64, len(s.Points))
		for i, p := range s.Points {
			v[i] = float64(get(p))
		}
		return v
	}
	for _, p := range s.Points {
		t = append(t, p.T)
	}
	loss := s.Config.Loss
	testName, test := "NN test "+loss, col(func(p Point) Num { return p.NNTest })
	boundName := fmt.Sprintf("bound (clipped, δ = %g)", s.Bound.Delta)
	if s.Config.AuthorsCode {
		boundName = fmt.Sprintf("bound (authors' code, δ = %g)", s.Bound.Delta)
	} else {
		testName, test = "NN test clipped "+loss, col(func(p Point) Num { return p.NNTestClipped })
	}
	// The bound at t = 0 (K_0 = 0) is the loss plus the confidence term.
	from := min(1, len(t))
	a := &plot.Chart{Title: "losses and the bound", X: plot.Axis{Label: "t"}, Y: plot.Axis{Label: "loss"},
		Series: []plot.Series{
			{Name: "NN train " + loss, X: t, Y: col(func(p Point) Num { return p.NNTrain }), Marker: plot.MarkerCircle, MaxMarkers: 11},
			{Name: "KM train " + loss, X: t, Y: col(func(p Point) Num { return p.KMTrain }), Dashed: true},
			{Name: testName, X: t, Y: test},
			{Name: boundName, X: t[from:], Y: col(func(p Point) Num { return p.Bound })[from:], Width: 2},
		}}
	if !s.Config.AuthorsCode {
		a.Series = append(a.Series, plot.Series{Name: "union-bound version", X: t[from:], Y: col(func(p Point) Num { return p.BoundUnion })[from:], Dashed: true})
	}
	b := &plot.Chart{Title: "|f_NN − f_KM|", X: plot.Axis{Label: "t"}, Y: plot.Axis{Label: "max |f_NN − f_KM|", Scale: plot.ScaleLog10},
		Series: []plot.Series{
			{Name: "train", X: t, Y: col(func(p Point) Num { return p.GapTrainMax })},
			{Name: "test", X: t, Y: col(func(p Point) Num { return p.GapTestMax }), Dashed: true},
		}}
	rho := s.Bound.Rho
	c := &plot.Chart{Title: "terms of the bound", X: plot.Axis{Label: "t"}, Y: plot.Axis{Label: "term"},
		Series: []plot.Series{
			{Name: "KM training loss", X: t, Y: col(func(p Point) Num { return p.BoundLoss })},
			{Name: "2ρ·R̂", X: t, Y: col(func(p Point) Num { return Num(2 * rho * float64(p.Rademacher)) })},
			{Name: "confidence", X: t, Y: col(func(p Point) Num { return p.Confidence })},
		}}
	title := fmt.Sprintf("Generalisation bound of the extracted kernel machine (n = %d, m = %d, L = %d, η = %g, λ = %g, %s penalty, seed %d)",
		s.NTrain, s.Config.Width, s.Config.Depth, s.Config.LR, s.Config.Lambda, s.Config.Reg, s.Config.Seed)
	return &plot.Figure{Title: title, Columns: 3, Panels: []plot.Panel{{Chart: a, Caption: "losses and the bound over t"},
		{Chart: b, Caption: "max |f_NN − f_KM| over the training and test points"}, {Chart: c, Caption: "the bound's terms"}}}
}
