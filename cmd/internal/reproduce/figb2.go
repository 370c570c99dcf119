package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/plot"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// The run of Fig. B.2 (the authors' generalization.py with svm_gene.yaml):
// the first 1000 training 0/1 digits, a two-layer network of width 100,
// full-batch subgradient descent with η = 0.1 for 100 steps (t = 10), mean
// hinge with f₀ subtracted, the penalty λ/2‖W_last/√m‖², λ = 0.001, seed 0.
const (
	figB2N      = 1000
	figB2Width  = 100
	figB2LR     = 0.1
	figB2Steps  = 100
	figB2Lambda = 0.001
	figB2Seed   = 0
)

func init() {
	register(&Entry{
		Name:  "figB2",
		Title: "Fig. B.2: a generalisation bound from the network's kernel machine",
		Paper: "A width-100 two-layer network trained by full-batch subgradient descent (η = 0.1, t = 10) on the first 1000 0/1 digits; " +
			"the kernel machine of Theorem 4.1 tracks it and its Rademacher bound (confidence 0.99) is non-vacuous: " +
			"the authors' figure shows the bound falling from 1.055 (t = 0.1) to 0.912 (t = 10), the train hinge from 0.998 to 0.840, |NN − KM| ≤ 1.5e-3.",
		MNIST:    true,
		Run:      runFigB2,
		Estimate: estimateFigB2,
	})
}

// figB2Run is one training run observed by the two extractors: the authors'
// generalization.py (kernel decay λ, every |l'| = 1, δ = 0.99, unclipped
// hinge) and the valid one (decay λ/m, ramp loss, δ = 0.01).
type figB2Run struct {
	t                  []float64
	nnHinge            []float64
	authBound, valid   []float64
	authDiff, validDif []float64
	last               [2]*svm.GenBound
}

func newFigB2(env *Env) (*svm.NetworkStepper[float64], []*svm.Extractor[float64], []float64, error) {
	train, _, err := env.MNIST()
	if err != nil {
		return nil, nil, nil, err
	}
	x := train.X.Slice(0, figB2N, 0, train.X.Cols)
	y := append([]float64(nil), train.Y[:figB2N]...)
	net, err := ntk.NewNetwork[float64](x.Cols, figB2Width, 1, 1, 0, figB2Seed)
	if err != nil {
		return nil, nil, nil, err
	}
	rate, err := svm.DecayRate("paper", figB2Lambda, figB2Width)
	if err != nil {
		return nil, nil, nil, err
	}
	cfgs := []svm.ExtractConfig{
		{Loss: svm.Hinge, Objective: svm.Mean, Decay: figB2Lambda, SubtractInit: true, AuthorsCode: true},
		{Loss: svm.Hinge, Objective: svm.Mean, Decay: rate, SubtractInit: true},
	}
	var ex []*svm.Extractor[float64]
	for _, c := range cfgs {
		e, err := svm.NewExtractor(x, y, linalg.Matrix[float64]{}, c)
		if err != nil {
			return nil, nil, nil, err
		}
		ex = append(ex, e)
	}
	st, err := svm.NewNetworkStepper(net, x, y, linalg.Matrix[float64]{},
		svm.NetworkConfig{Loss: svm.Hinge, Lambda: figB2Lambda, Objective: svm.Mean, Reg: svm.RegPaper})
	if err != nil {
		return nil, nil, nil, err
	}
	return st, ex, y, nil
}

// observe hands the network at time t to both extractors and records the
// bounds and differences (from the second observation on).
func (r *figB2Run) observe(net *ntk.Network[float64], ex []*svm.Extractor[float64], y []float64, t float64) error {
	var rep [2]*svm.ExtractReport
	for i, e := range ex {
		if err := e.Observe(net, t, nil); err != nil {
			return err
		}
		var err error
		if rep[i], err = e.Report(); err != nil {
			return err
		}
		if t == 0 {
			continue
		}
		if r.last[i], err = e.Bound(svm.BoundConfig{AuthorsCode: i == 0}); err != nil {
			return err
		}
	}
	if t == 0 {
		return nil
	}
	r.t = append(r.t, t)
	r.nnHinge = append(r.nnHinge, svm.MeanLoss(svm.Hinge, rep[1].TrainNN, y))
	r.authBound = append(r.authBound, r.last[0].Value)
	r.valid = append(r.valid, r.last[1].Value)
	r.authDiff = append(r.authDiff, rep[0].TrainMaxAbs)
	r.validDif = append(r.validDif, rep[1].TrainMaxAbs)
	return nil
}

// trainFigB2 runs steps full-batch steps under a Driver, observing before
// every update and after the last.
func trainFigB2(ctx context.Context, env *Env, steps int) (*figB2Run, error) {
	st, ex, y, err := newFigB2(env)
	if err != nil {
		return nil, err
	}
	r := &figB2Run{}
	d := &svm.Driver{Steppers: []svm.Stepper{st}, N: figB2N, Steps: steps, LR: figB2LR, LogAt: svm.LogSteps(steps, steps),
		Log: func(step int, t float64, _ int, _ []*svm.Eval) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return r.observe(st.Network(), ex, y, t-figB2LR)
		}}
	if _, err := d.Run(ctx); err != nil {
		return nil, err
	}
	if err := r.observe(st.Network(), ex, y, float64(steps)*figB2LR); err != nil {
		return nil, err
	}
	return r, nil
}

func runFigB2(ctx context.Context, env *Env) (*Result, error) {
	r, err := trainFigB2(ctx, env, figB2Steps)
	if err != nil {
		return nil, err
	}
	n := len(r.t)
	seedReason := "our seed-0 initialisation is not torch's; at width 100 the training speed (yᵀΘ̂y/n²) varies by ±20 % between seeds"
	maxAuth, maxValid := 0.0, 0.0
	for i := range r.t {
		maxAuth, maxValid = math.Max(maxAuth, r.authDiff[i]), math.Max(maxValid, r.validDif[i])
	}
	res := &Result{
		Rows: []Row{
			{Quantity: "authors' bound (δ = 0.99, unclipped hinge) at t = 0.1", Paper: "1.055", Ours: r.authBound[0], Tol: Abs(0.02), Reason: seedReason},
			{Quantity: "authors' bound at t = 10", Paper: "0.912", Ours: r.authBound[n-1], Tol: Abs(0.04), Reason: seedReason},
			{Quantity: "NN train hinge at t = 0.1", Paper: "0.998", Ours: r.nnHinge[0], Tol: Abs(0.005), Reason: seedReason},
			{Quantity: "NN train hinge at t = 10", Paper: "0.840", Ours: r.nnHinge[n-1], Tol: Abs(0.05), Reason: seedReason},
			{Quantity: "max |NN − KM| (authors' kernel, decay λ)", Paper: "1.5e-3", Ours: maxAuth, Tol: Band(0, 3e-3),
				Reason: "the authors' kernel decays at λ where their network decays at λ/m (train_sgd.py penalty), a gap ≈ λt|f|/2"},
		},
		Notes: []string{
			fmt.Sprintf("The paper's numbers are read from the authors' example figure (generalization.py, δ = 0.99 in the code although the caption says confidence 0.99). "+
				"The valid bound (kernel decay λ/m as the network's penalty gives, the true |l'| weights, ramp loss min(1, hinge), δ = 0.01) ends at %.4f (t = 10) "+
				"and its machine stays within %.2e of the network (max over t).", r.valid[n-1], maxValid),
			fmt.Sprintf("At t = 10 the valid bound's parts: kernel-machine ramp loss %.4f, RKHS norm B = %.4g, tr K = %.4g, Rademacher %.5f, confidence term %.5f.",
				r.last[1].Loss, r.last[1].RKHSNorm, r.last[1].Trace, r.last[1].Rademacher, r.last[1].Confidence),
		},
	}
	svg, err := figB2Figure(r)
	if err != nil {
		return nil, err
	}
	res.Figures = []Figure{{Name: "figB2", Caption: "Fig. B.2: bounds and train hinge (a), |NN − KM| on the training points (b), against t = k·η.", SVG: svg}}
	return res, nil
}

// figB2Figure draws the bounds with the network's hinge, and the gap
// between network and kernel machine.
func figB2Figure(r *figB2Run) ([]byte, error) {
	f := &plot.Figure{Title: "Fig. B.2: generalisation bound of a width-100 network through its kernel machine", Panels: []plot.Panel{
		{Caption: "bounds and NN train hinge", Chart: &plot.Chart{
			X: plot.Axis{Label: "t"}, Y: plot.Axis{Label: "value"},
			Series: []plot.Series{
				{Name: "bound, authors' code (δ = 0.99)", X: r.t, Y: r.authBound},
				{Name: "bound, valid (δ = 0.01, ramp)", X: r.t, Y: r.valid, Dashed: true},
				{Name: "NN train hinge", X: r.t, Y: r.nnHinge},
			}}},
		{Caption: "max |NN − KM| over the training points", Chart: &plot.Chart{
			X: plot.Axis{Label: "t"}, Y: plot.Axis{Label: "|f_NN − f_KM|", Scale: plot.Log10},
			Series: []plot.Series{
				{Name: "authors' kernel (decay λ)", X: r.t, Y: r.authDiff},
				{Name: "decay λ/m", X: r.t, Y: r.validDif, Dashed: true},
			}}},
	}}
	var b bytes.Buffer
	if err := f.WriteSVG(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// estimateFigB2 times two observed steps and scales to the run's 100.
func estimateFigB2(ctx context.Context, env *Env) (time.Duration, error) {
	t0 := time.Now()
	if _, err := trainFigB2(ctx, env, 2); err != nil {
		return 0, err
	}
	return time.Since(t0) * (figB2Steps + 1) / 3, nil
}
