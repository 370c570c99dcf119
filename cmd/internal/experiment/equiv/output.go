package equiv

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/cmd/internal/present/plot"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// Output files in Options.Out.
const (
	CurvesFile  = "curves.csv"
	SummaryFile = "summary.json"
	SweepFile   = "sweep.csv"
	Fig1File    = "fig1.svg"  // full-batch runs: the layout of paper Fig. 1
	FigA1File   = "figA1.svg" // minibatch runs: the layout of paper Fig. A.1 (figA1-runK.svg for run K > 1)
	GapFile     = "gap.svg"   // max and mean |f − g| over time, every run
	SweepSVG    = "sweep.svg" // gap against width, log–log, with the fit
)

func unmarshalJSON(b []byte, v any) error { return json.Unmarshal(b, v) }

// write writes every output file of the summary so far.
func (e *experiment[T]) write() error { return WriteOutputs(e.opt.Out, e.sum) }

// WriteOutputs writes summary.json, curves.csv, the figures and (with a
// sweep) sweep.csv and sweep.svg into dir, each atomically.
func WriteOutputs(dir string, s *Summary) error {
	files := []struct {
		name string
		fn   func(io.Writer) error
	}{
		{SummaryFile, func(w io.Writer) error { return output.WriteJSON(w, s) }},
		{CurvesFile, func(w io.Writer) error { return WriteCurves(w, s) }},
		{GapFile, func(w io.Writer) error { return gapChart(s).WriteSVG(w, 640, 420) }},
	}
	if fullBatch(s) {
		files = append(files, struct {
			name string
			fn   func(io.Writer) error
		}{Fig1File, func(w io.Writer) error { return fig1(s).WriteSVG(w) }})
	} else {
		for i := range s.Runs {
			name := FigA1File
			if i > 0 {
				name = fmt.Sprintf("figA1-run%d.svg", i+1)
			}
			files = append(files, struct {
				name string
				fn   func(io.Writer) error
			}{name, func(w io.Writer) error { return figA1(s, i).WriteSVG(w) }})
		}
	}
	if s.Sweep != nil {
		files = append(files, struct {
			name string
			fn   func(io.Writer) error
		}{SweepFile, func(w io.Writer) error { return writeSweep(w, s.Sweep) }},
			struct {
				name string
				fn   func(io.Writer) error
			}{SweepSVG, func(w io.Writer) error { return sweepChart(s.Sweep).WriteSVG(w, 560, 420) }})
	}
	for _, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			if err := f.fn(bw); err != nil {
				return err
			}
			return bw.Flush()
		}); err != nil {
			return fmt.Errorf("equiv: writing %s: %w", f.name, err)
		}
	}
	return nil
}

func fullBatch(s *Summary) bool { return s.Config.Batch == 0 || s.Config.Batch >= s.NTrain }

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// column is a model name as a CSV column prefix: "km-ntk" → "km_ntk".
func column(m string) string { return strings.ReplaceAll(m, "-", "_") }

// WriteCurves writes one CSV row per run and evaluation: run (from 1),
// width, lr, step, t, epoch; per model M (nn, km_ntk, km_emp) M_objective,
// M_train_loss, M_train_acc, M_test_loss, M_test_acc, M_train_out_I and
// M_test_out_I at each tracked index I; per kernel machine K gap_K_train_max,
// gap_K_train_mean, gap_K_test_max, gap_K_test_mean (|f − g|). Numbers are
// the shortest decimals that read back exactly; NaN is "NaN".
func WriteCurves(w io.Writer, s *Summary) error {
	cw := csv.NewWriter(w)
	var models []string
	if len(s.Runs) > 0 {
		models = s.Runs[0].Models
	}
	head := []string{"run", "width", "lr", "step", "t", "epoch"}
	for _, m := range models {
		c := column(m)
		head = append(head, c+"_objective", c+"_train_loss", c+"_train_acc", c+"_test_loss", c+"_test_acc")
		for _, i := range s.TrackTrain {
			head = append(head, fmt.Sprintf("%s_train_out_%d", c, i))
		}
		for _, i := range s.TrackTest {
			head = append(head, fmt.Sprintf("%s_test_out_%d", c, i))
		}
	}
	for _, m := range models[min(1, len(models)):] {
		c := column(m)
		head = append(head, "gap_"+c+"_train_max", "gap_"+c+"_train_mean", "gap_"+c+"_test_max", "gap_"+c+"_test_mean")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for k, r := range s.Runs {
		for _, e := range r.Evals {
			row := []string{strconv.Itoa(k + 1), strconv.Itoa(r.Width), fmtF(r.LR), strconv.Itoa(e.Step), fmtF(e.T), strconv.Itoa(e.Epoch)}
			for _, m := range e.Models {
				for _, v := range []Num{m.Objective, m.TrainLoss, m.TrainAcc, m.TestLoss, m.TestAcc} {
					row = append(row, fmtF(float64(v)))
				}
				for _, v := range append(append([]Num{}, m.TrackTrain...), m.TrackTest...) {
					row = append(row, fmtF(float64(v)))
				}
			}
			for _, g := range e.Gaps {
				for _, v := range []Num{g.TrainMax, g.TrainMean, g.TestMax, g.TestMean} {
					row = append(row, fmtF(float64(v)))
				}
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeSweep writes the sweep as CSV: width, max_gap_train, max_gap_test,
// max_mean_gap_train, final_gap_train (means over the seeds), then rows
// "slope" and "slope_se" with the fitted slopes and their standard errors
// in the gap columns.
func writeSweep(w io.Writer, sw *Sweep) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"width", "max_gap_train", "max_gap_test", "max_mean_gap_train", "final_gap_train"})
	for i, m := range sw.Widths {
		cw.Write([]string{strconv.Itoa(m), fmtF(sw.Gap[i]), fmtF(float64(sw.GapTest[i])), fmtF(sw.GapMean[i]), fmtF(sw.Final[i])})
	}
	cw.Write([]string{"slope", fmtF(float64(sw.Slope)), "", fmtF(float64(sw.SlopeMean)), fmtF(float64(sw.SlopeFinal))})
	cw.Write([]string{"slope_se", fmtF(float64(sw.SE)), "", fmtF(float64(sw.SEMean)), fmtF(float64(sw.SEFinal))})
	cw.Flush()
	return cw.Error()
}

// kmLabel names kernel machine model m for a legend: "SVM" for the hinge
// loss (the paper's name), "KM" otherwise, with its kernel when two are
// drawn.
func kmLabel(s *Summary, m string, both bool) string {
	name := "KM"
	if s.Config.Loss == "hinge" {
		name = "SVM"
	}
	if !both {
		return name
	}
	if m == "km-emp" {
		return name + " (emp. NTK)"
	}
	return name + " (NTK)"
}

func column0(v []Num, j int) float64 {
	if j < len(v) {
		return float64(v[j])
	}
	return nan()
}

// series extracts x (t or step) and y = f(eval) of run r.
func series(r *RunResult, useT bool, f func(e *Eval) float64) (x, y []float64) {
	for i := range r.Evals {
		e := &r.Evals[i]
		if useT {
			x = append(x, e.T)
		} else {
			x = append(x, float64(e.Step))
		}
		y = append(y, f(e))
	}
	return x, y
}

var markers = []plot.Marker{plot.MarkerCircle, plot.MarkerSquare, plot.MarkerTriangle, plot.MarkerDiamond, plot.MarkerCross, plot.MarkerPlus}

// fig1 lays the runs out as paper Fig. 1 over t = step·η̂ (log): (a) the
// outputs at two tracked training points of the kernel machine (lines) and
// of the network of every width (markers) at the first η̂; (b) the same at
// the widest width for every η̂; (c) the kernel machine minus the network
// at those points, every run; (d) the training loss of the kernel machine
// and of the networks at the first η̂.
func fig1(s *Summary) *plot.Figure {
	lr0 := s.Config.LRs[0]
	widest := 0
	for _, r := range s.Runs {
		widest = max(widest, r.Width)
	}
	both := len(s.Runs) > 0 && len(s.Runs[0].Models) > 2
	pts := min(2, len(s.TrackTrain))
	tAxis := plot.Axis{Label: "t = step·η", Scale: plot.ScaleLog10}
	var a, b, c, d []plot.Series
	for ri := range s.Runs {
		r := &s.Runs[ri]
		col := plot.Palette[(ri+1)%len(plot.Palette)]
		nnName := fmt.Sprintf("NN m=%d η=%g", r.Width, r.LR)
		if r.Seed != s.Config.Seed {
			nnName += fmt.Sprintf(" seed %d", r.Seed)
		}
		for p := range pts {
			nn := func(e *Eval) float64 { return column0(e.Models[0].TrackTrain, p) }
			x, y := series(r, true, nn)
			nnS := plot.Series{Name: nnName, X: x, Y: y, Color: col, NoLine: true, Marker: markers[ri%len(markers)], MaxMarkers: 20}
			if r.LR == lr0 {
				a = append(a, nnS)
			}
			if r.Width == widest {
				b = append(b, nnS)
			}
			for k := 1; k < len(r.Models); k++ {
				km := func(e *Eval) float64 { return column0(e.Models[k].TrackTrain, p) }
				x, y := series(r, true, km)
				kmS := plot.Series{Name: fmt.Sprintf("%s η=%g", kmLabel(s, r.Models[k], both), r.LR), X: x, Y: y,
					Color: plot.Palette[0], Dashed: k > 1 || r.LR != lr0}
				if r.Width == widest && r.LR == lr0 {
					a = append(a, kmS)
				}
				if r.Width == widest {
					b = append(b, kmS)
				}
				x, y = series(r, true, func(e *Eval) float64 { return km(e) - nn(e) })
				name := fmt.Sprintf("m=%d η=%g", r.Width, r.LR)
				if both {
					name += " " + kmLabel(s, r.Models[k], true)
				}
				c = append(c, plot.Series{Name: name, X: x, Y: y, Color: col, Dashed: k > 1})
			}
		}
		if r.LR == lr0 {
			x, y := series(r, true, func(e *Eval) float64 { return float64(e.Models[0].TrainLoss) })
			d = append(d, plot.Series{Name: nnName, X: x, Y: y, Color: col, NoLine: true, Marker: markers[ri%len(markers)], MaxMarkers: 20})
			if r.Width == widest {
				for k := 1; k < len(r.Models); k++ {
					x, y := series(r, true, func(e *Eval) float64 { return float64(e.Models[k].TrainLoss) })
					d = append(d, plot.Series{Name: kmLabel(s, r.Models[k], both), X: x, Y: y, Color: plot.Palette[0], Dashed: k > 1})
				}
			}
		}
	}
	loss := s.Config.Loss + " loss"
	return &plot.Figure{
		Title: fmt.Sprintf("Network vs kernel machine, full batch (%s, reg %s, L = %d, n = %d)", s.Config.Loss, s.Config.Reg, s.Config.Depth, s.NTrain),
		Panels: []plot.Panel{
			{Caption: fmt.Sprintf("outputs at two training points, η = %g", lr0), Chart: &plot.Chart{X: tAxis, Y: plot.Axis{Label: "output"}, Series: a}},
			{Caption: fmt.Sprintf("outputs, m = %d, every η", widest), Chart: &plot.Chart{X: tAxis, Y: plot.Axis{Label: "output"}, Series: b}},
			{Caption: "kernel machine − network at those points", Chart: &plot.Chart{X: tAxis, Y: plot.Axis{Label: "g − f"}, Series: c}},
			{Caption: "training " + loss, Chart: &plot.Chart{X: tAxis, Y: plot.Axis{Label: loss}, Series: d}},
		},
	}
}

// figA1 lays run ri out as paper Fig. A.1 over the step (log): outputs at
// the tracked training points, at the tracked test points, the loss and the
// accuracy (train and test); the kernel machines as lines, the network as
// at most 20 markers.
func figA1(s *Summary, ri int) *plot.Figure {
	r := &s.Runs[ri]
	both := len(r.Models) > 2
	sAxis := plot.Axis{Label: "step", Scale: plot.ScaleLog10}
	var tr, te, loss, acc []plot.Series
	outs := func(dst []plot.Series, test bool) []plot.Series {
		n := len(s.TrackTrain)
		if test {
			n = len(s.TrackTest)
		}
		for p := range n {
			col := plot.Palette[p%len(plot.Palette)]
			for k := range r.Models {
				x, y := series(r, false, func(e *Eval) float64 {
					if test {
						return column0(e.Models[k].TrackTest, p)
					}
					return column0(e.Models[k].TrackTrain, p)
				})
				if k == 0 {
					dst = append(dst, plot.Series{Name: "NN", X: x, Y: y, Color: col, NoLine: true, Marker: plot.MarkerCircle, MaxMarkers: 20})
				} else {
					dst = append(dst, plot.Series{Name: kmLabel(s, r.Models[k], both), X: x, Y: y, Color: col, Dashed: k > 1})
				}
			}
		}
		return dst
	}
	tr, te = outs(tr, false), outs(te, true)
	curve := func(dst []plot.Series, what string, get func(m *ModelEval) (Num, Num)) []plot.Series {
		for k := range r.Models {
			for j, split := range []string{"train", "test"} {
				x, y := series(r, false, func(e *Eval) float64 {
					a, b := get(&e.Models[k])
					if j == 0 {
						return float64(a)
					}
					return float64(b)
				})
				name := "NN " + split
				if k > 0 {
					name = kmLabel(s, r.Models[k], both) + " " + split
				}
				sr := plot.Series{Name: name, X: x, Y: y, Color: plot.Palette[j], Dashed: k > 1}
				if k == 0 {
					sr.Color, sr.NoLine, sr.Marker, sr.MaxMarkers = plot.Palette[2+j], true, markers[j], 20
				}
				dst = append(dst, sr)
			}
		}
		return dst
	}
	loss = curve(loss, "loss", func(m *ModelEval) (Num, Num) { return m.TrainLoss, m.TestLoss })
	acc = curve(acc, "accuracy", func(m *ModelEval) (Num, Num) { return m.TrainAcc, m.TestAcc })
	ln := s.Config.Loss + " loss"
	return &plot.Figure{
		Title: fmt.Sprintf("Network (m = %d) vs kernel machine, minibatch %d, η = %g (%s, reg %s, L = %d, n = %d)",
			r.Width, s.Config.Batch, r.LR, s.Config.Loss, s.Config.Reg, s.Config.Depth, s.NTrain),
		Panels: []plot.Panel{
			{Caption: "outputs at the tracked training points", Chart: &plot.Chart{X: sAxis, Y: plot.Axis{Label: "output"}, Series: tr}},
			{Caption: "outputs at the tracked test points", Chart: &plot.Chart{X: sAxis, Y: plot.Axis{Label: "output"}, Series: te}},
			{Caption: ln, Chart: &plot.Chart{X: sAxis, Y: plot.Axis{Label: ln}, Series: loss}},
			{Caption: "accuracy", Chart: &plot.Chart{X: sAxis, Y: plot.Axis{Label: "accuracy"}, Series: acc}},
		},
	}
}

// gapChart draws max and mean |f − g| over the training points against t
// (full batch) or the step (minibatch), for every run and kernel machine.
func gapChart(s *Summary) *plot.Chart {
	useT := fullBatch(s)
	xl := "step"
	if useT {
		xl = "t = step·η"
	}
	var ser []plot.Series
	for ri := range s.Runs {
		r := &s.Runs[ri]
		for k := 1; k < len(r.Models); k++ {
			col := plot.Palette[(ri*2+k-1)%len(plot.Palette)]
			name := fmt.Sprintf("m=%d η=%g %s", r.Width, r.LR, r.Models[k])
			x, y := series(r, useT, func(e *Eval) float64 { return float64(e.Gaps[k-1].TrainMax) })
			ser = append(ser, plot.Series{Name: name + " max", X: x, Y: y, Color: col})
			x, y = series(r, useT, func(e *Eval) float64 { return float64(e.Gaps[k-1].TrainMean) })
			ser = append(ser, plot.Series{Name: name + " mean", X: x, Y: y, Color: col, Dashed: true})
		}
	}
	return &plot.Chart{Title: "|f − g| over the training points (max solid, mean dashed)",
		X: plot.Axis{Label: xl, Scale: plot.ScaleLog10}, Y: plot.Axis{Label: "|f − g|", Scale: plot.ScaleLog10}, Series: ser}
}

// sweepChart draws the largest gap against the width, log–log, with the
// fitted line.
func sweepChart(sw *Sweep) *plot.Chart {
	x := make([]float64, len(sw.Widths))
	for i, m := range sw.Widths {
		x[i] = float64(m)
	}
	ser := []plot.Series{
		{Name: "max_t max_i |f − g| (train)", X: x, Y: sw.Gap, Marker: plot.MarkerCircle},
		{Name: "final max_i |f − g| (train)", X: x, Y: sw.Final, Marker: plot.MarkerSquare, Dashed: true},
		{Name: "max_t mean_i |f − g| (train)", X: x, Y: sw.GapMean, Marker: plot.MarkerTriangle, Dashed: true},
	}
	if !isNaN(float64(sw.Slope)) {
		fit := make([]float64, len(x))
		for i, v := range x {
			fit[i] = expf(float64(sw.Intercept) + float64(sw.Slope)*logf(v))
		}
		ser = append(ser, plot.Series{Name: fmt.Sprintf("fit: slope %.3f ± %.3f", float64(sw.Slope), float64(sw.SE)), X: x, Y: fit, Color: "#000000", Dashed: true})
	}
	return &plot.Chart{Title: "Network–kernel machine gap against width (" + sw.Model + ")",
		X: plot.Axis{Label: "width m", Scale: plot.ScaleLog10}, Y: plot.Axis{Label: "|f − g|", Scale: plot.ScaleLog10}, Series: ser}
}

// ReadCurves parses a curves.csv written by WriteCurves: the header and the
// rows as numbers.
func ReadCurves(b []byte) (head []string, rows [][]float64, err error) {
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, nil, err
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("equiv: empty curves file")
	}
	for _, rec := range recs[1:] {
		row := make([]float64, len(rec))
		for i, f := range rec {
			if row[i], err = strconv.ParseFloat(f, 64); err != nil {
				return nil, nil, fmt.Errorf("equiv: curves column %s: %w", recs[0][i], err)
			}
		}
		rows = append(rows, row)
	}
	return recs[0], rows, nil
}
