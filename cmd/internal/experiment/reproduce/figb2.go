package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/genbound"
)

// figB2Entry is the entry of the paper's Fig. B.2.
var figB2Entry = &Entry{
	Name:  "figB2",
	Title: "Fig. B.2: a generalisation bound from the network's kernel machine",
	Paper: "A width-100 two-layer network trained by full-batch subgradient descent (η = 0.1, t = 10) on the first 1000 0/1 digits; " +
		"the kernel machine of Theorem 4.1 tracks it and its Rademacher bound (confidence 0.99) is non-vacuous: " +
		"the authors' figure shows the bound falling from 1.055 (t = 0.1) to 0.912 (t = 10), the train hinge from 0.998 to 0.840, |NN − KM| ≤ 1.5e-3.",
	MNIST:    true,
	Run:      runFigB2,
	Estimate: estimateFigB2,
}

// figB2Runs runs the figB2 preset of package genbound twice: as the
// authors' generalization.py computed it (AuthorsCode: kernel decay λ,
// every |l'| = 1, δ = 0.99, unclipped hinge) and the valid bound (decay
// λ/m, ramp loss, δ = 0.01). steps > 0 shortens the runs.
func figB2Runs(ctx context.Context, env *Env, steps int) (auth, valid *genbound.Summary, err error) {
	train, test, err := env.MNIST()
	if err != nil {
		return nil, nil, err
	}
	data := &genbound.Data{Name: "mnist01", X: train.X, Y: train.Y, XTest: test.X, YTest: test.Y}
	var out [2]*genbound.Summary
	for i, authors := range []bool{true, false} {
		cfg, err := genbound.Preset("figB2")
		if err != nil {
			return nil, nil, err
		}
		cfg.AuthorsCode = authors
		if steps > 0 {
			cfg.Steps = steps
		}
		sub := map[bool]string{true: "authors-code", false: "valid"}[authors]
		if out[i], err = genbound.Run(ctx, cfg, data, genbound.Options{Out: filepath.Join(env.Dir, sub)}); err != nil {
			return nil, nil, err
		}
	}
	return out[0], out[1], nil
}

func runFigB2(ctx context.Context, env *Env) (*Result, error) {
	auth, valid, err := figB2Runs(ctx, env, 0)
	if err != nil {
		return nil, err
	}
	seedReason := "our seed-0 initialisation is not torch's; at width 100 the training speed (yᵀΘ̂y/n²) varies by ±20 % between seeds"
	res := &Result{
		Rows: []Row{
			{Quantity: "authors' bound (δ = 0.99, unclipped hinge) at t = 0.1", Paper: "1.055", Ours: float64(auth.First.Bound), Tol: Abs(0.02), Reason: seedReason},
			{Quantity: "authors' bound at t = 10", Paper: "0.912", Ours: float64(auth.Last.Bound), Tol: Abs(0.04), Reason: seedReason},
			{Quantity: "NN train hinge at t = 0.1", Paper: "0.998", Ours: float64(auth.First.NNTrain), Tol: Abs(0.005), Reason: seedReason},
			{Quantity: "NN train hinge at t = 10", Paper: "0.840", Ours: float64(auth.Last.NNTrain), Tol: Abs(0.05), Reason: seedReason},
			{Quantity: "max |NN − KM| on the training points (authors' kernel, decay λ)", Paper: "1.5e-3", Ours: float64(auth.MaxGapTrain), Tol: Band(0, 3e-3),
				Reason: "the authors' kernel decays at λ where their network decays at λ/m (train_sgd.py penalty), a gap ≈ λt|f|/2"},
		},
		Notes: []string{
			"The paper's numbers are read from the authors' example figure (generalization.py, δ = 0.99 in the code although the caption says confidence 0.99 (δ = 0.01)); the run is the figB2 preset of ntksvm genbound.",
			fmt.Sprintf("The valid bound (kernel decay λ/m as the network's penalty gives, the true |l'| weights, ramp loss min(1, hinge), δ = 0.01) ends at %.4f at t = 10 "+
				"(union bound over the RKHS-norm grid: %.4f), its machine within %.2e of the network on the training points; the network's clipped test loss is %.4f.",
				float64(valid.Last.Bound), float64(valid.Last.BoundUnion), float64(valid.MaxGapTrain), float64(valid.Last.NNTestClipped)),
		},
	}
	for i, s := range []*genbound.Summary{auth, valid} {
		var b bytes.Buffer
		if err := genbound.Figure(s).WriteSVG(&b); err != nil {
			return nil, err
		}
		name, what := "figB2-authors", "as the authors' generalization.py computes it (δ = 0.99, unclipped hinge, kernel decay λ)"
		if i == 1 {
			name, what = "figB2-valid", "the valid bound (δ = 0.01, ramp loss, kernel decay λ/m)"
		}
		res.Figures = append(res.Figures, Figure{Name: name, Caption: "Fig. B.2, " + what + ": losses and bound (a), |NN − KM| (b), the bound's terms (c), against t = k·η.", SVG: b.Bytes()})
	}
	return res, nil
}

// estimateFigB2 runs both settings for two steps and scales genbound's
// timed first step to the preset's steps, plus the runs' fixed costs.
func estimateFigB2(ctx context.Context, env *Env) (time.Duration, error) {
	cfg, err := genbound.Preset("figB2")
	if err != nil {
		return 0, err
	}
	const probe = 2
	auth, valid, err := figB2Runs(ctx, env, probe)
	if err != nil {
		return 0, err
	}
	est := 0.0
	for _, s := range []*genbound.Summary{auth, valid} {
		est += s.Seconds + s.StepSeconds*float64(cfg.Steps-probe)
	}
	return time.Duration(est * float64(time.Second)), nil
}
