package equiv

import (
	"math"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
)

// Num is a float64 written to JSON as null when it is NaN or ±Inf.
type Num = output.Num

func nan() float64 { return math.NaN() }

func isNaN(f float64) bool { return f != f }

// ModelEval is one model at one evaluation.
type ModelEval struct {
	Objective  Num   `json:"objective"` // the model's own training objective
	TrainLoss  Num   `json:"train_loss"`
	TrainAcc   Num   `json:"train_acc"` // null for regression losses
	TestLoss   Num   `json:"test_loss"`
	TestAcc    Num   `json:"test_acc"`
	TrackTrain []Num `json:"track_train"` // outputs at Config.TrackTrain
	TrackTest  []Num `json:"track_test"`
}

// Gap is |f − g| between the network and one kernel machine at one
// evaluation, over the training and the test points.
type Gap struct {
	TrainMax  Num `json:"train_max"`
	TrainMean Num `json:"train_mean"`
	TestMax   Num `json:"test_max"`
	TestMean  Num `json:"test_mean"`
}

// Eval is one evaluation of a run, taken before the update of Step (step
// 1 is the initial state, as train_sgd.py logs).
type Eval struct {
	Step  int     `json:"step"`
	T     float64 `json:"t"` // Step·η̂ (Σ η̂ over steps 1…Step)
	Epoch int     `json:"epoch"`
	// Models are the network, then each kernel machine (RunResult.Models).
	Models []ModelEval `json:"models"`
	// Gaps[k] is |f − g_k| for kernel machine k (Models[k+1]).
	Gaps []Gap `json:"gaps"`
}

// RunResult is the record of one run.
type RunResult struct {
	RunSpec
	// Models names the models of each Eval: "nn", then "km-ntk" (the
	// analytic NTK) and/or "km-emp" (the empirical NTK at W_0).
	Models []string `json:"models"`
	// Mapping says how λ enters each side.
	Mapping Mapping `json:"mapping"`
	// Done counts the steps applied; Complete reports whether the run
	// reached Steps.
	Done     int  `json:"steps_done"`
	Complete bool `json:"complete"`
	// Seconds is the wall time of the training loop (all sessions of a
	// resumed run), StepSeconds the time of the timed first step's update.
	Seconds     float64 `json:"seconds"`
	StepSeconds float64 `json:"first_step_seconds"`
	Evals       []Eval  `json:"evals"`
	// MaxGap[k] is the largest Gaps[k] over the evaluations, FinalGap[k]
	// the last one (for an unfinished run: as of its last checkpoint).
	MaxGap   []Gap `json:"max_gap"`
	FinalGap []Gap `json:"final_gap"`
}

// finish fills MaxGap and FinalGap from the evaluations.
func (r *RunResult) finish() {
	k := len(r.Models) - 1
	r.MaxGap, r.FinalGap = make([]Gap, k), make([]Gap, k)
	for j := range k {
		var m Gap
		for _, e := range r.Evals {
			g := e.Gaps[j]
			m.TrainMax = output.MaxNum(m.TrainMax, g.TrainMax)
			m.TrainMean = output.MaxNum(m.TrainMean, g.TrainMean)
			m.TestMax = output.MaxNum(m.TestMax, g.TestMax)
			m.TestMean = output.MaxNum(m.TestMean, g.TestMean)
		}
		r.MaxGap[j] = m
		if len(r.Evals) > 0 {
			r.FinalGap[j] = r.Evals[len(r.Evals)-1].Gaps[j]
		}
	}
}

// gap returns |f − g| over the training and test outputs.
func gap(f, g, ft, gt []float64) Gap {
	mx, mean := absDiff(f, g)
	tmx, tmean := absDiff(ft, gt)
	return Gap{Num(mx), Num(mean), Num(tmx), Num(tmean)}
}

// absDiff returns max and mean |a − b|, NaN for empty slices.
func absDiff(a, b []float64) (mx, mean float64) {
	if len(a) == 0 || len(a) != len(b) {
		return nan(), nan()
	}
	for i, v := range a {
		d := math.Abs(v - b[i])
		mx = max(mx, d)
		mean += d
	}
	return mx, mean / float64(len(a))
}
