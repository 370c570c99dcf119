package svm

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ntksvm/ntksvm/svm/train"
)

// Objective says how the losses enter the training objective.
type Objective uint8

const (
	// ObjectiveSum is paper eq. 7: λ/2‖β‖² + Σᵢ l(g(xᵢ), yᵢ).
	ObjectiveSum Objective = iota
	// ObjectiveMean is paper eq. 11: λ/2‖β‖² + (1/n) Σᵢ l(g(xᵢ), yᵢ).
	ObjectiveMean
)

// ParseObjective returns the objective named "sum" or "mean".
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "sum":
		return ObjectiveSum, nil
	case "mean":
		return ObjectiveMean, nil
	}
	return 0, fmt.Errorf("svm: unknown objective %q (want sum or mean)", s)
}

// String returns "sum" or "mean".
func (o Objective) String() string {
	if o == ObjectiveMean {
		return "mean"
	}
	return "sum"
}

// Decay says which α entries a minibatch step multiplies by (1 − ηλ).
type Decay uint8

const (
	// DecayLazy decays only the entries of the batch, as the authors' code does
	// (train_sgd.py; the SGD update after paper eq. 16): each αᵢ decays with
	// probability B/n per step, so in expectation that is the sum objective
	// (eq. 7) with λ' = B·λ (64 × 0.001 = 0.064, Table 3's SVM λ).
	DecayLazy Decay = iota
	// DecayExact decays every entry: true stochastic subgradient descent on the
	// objective.
	DecayExact
)

// ParseDecay returns the decay named "lazy" or "exact".
func ParseDecay(s string) (Decay, error) {
	switch s {
	case "lazy":
		return DecayLazy, nil
	case "exact":
		return DecayExact, nil
	}
	return 0, fmt.Errorf("svm: unknown decay %q (want lazy or exact)", s)
}

// String returns "lazy" or "exact".
func (d Decay) String() string {
	if d == DecayExact {
		return "exact"
	}
	return "lazy"
}

// Primal returns the objective value λ/2‖β‖² + s·Σ l(gᵢ, yᵢ) of the
// machine with weights α and training outputs g = Kα (so ‖β‖² = αᵀg),
// with s = 1 for ObjectiveSum and 1/n for ObjectiveMean.
func Primal(l Loss, lambda float64, obj Objective, alpha, g, y []float64) float64 {
	var reg, loss float64
	for i, a := range alpha {
		reg += a * g[i]
		loss += l.Value(g[i], y[i])
	}
	if obj == ObjectiveMean && len(y) > 0 {
		loss /= float64(len(y))
	}
	return lambda/2*reg + loss
}

// EvalSet is a held-out set for the training log: the cross kernel
// K(A, X) (one row per point, one column per training point) and targets.
type EvalSet struct {
	K KernelMatrix
	Y []float64
}

// SubgradientConfig holds the hyper-parameters of the subgradient trainer
// (TrainSubgradient).
type SubgradientConfig struct {
	Loss      Loss
	Lambda    float64   // λ ≥ 0
	Objective Objective // ObjectiveSum or ObjectiveMean
	LR        float64   // the step η > 0 (ignored with Pegasos)
	// Pegasos uses the step ηₜ = 1/(λt) of kernelized Pegasos at step t
	// instead of the constant LR; it needs λ > 0.
	Pegasos bool
	// Batch is the minibatch size; 0 or ≥ n means full batch (paper eq. 16).
	Batch int
	Decay Decay  // minibatch decay; full batch always decays every entry
	Steps int    // number of updates (≥ 1)
	Seed  uint64 // seed of the BatchStream when Stream is nil
	// Stream, if not nil, supplies the minibatches (it overrides Batch and
	// Seed). To train a network beside the kernel machine on the same
	// batches, run both as Steppers under one train.Driver instead.
	Stream *train.BatchStream
	// Tol > 0 stops early when the objective changes by at most
	// Tol·max(|objective|, 1) relatively between two checks, one per epoch
	// (every step for full batch).
	Tol float64
	// LogAt lists the steps (1-based, ascending; see train.LogSteps) at
	// which the machine is evaluated for the Recorder.
	LogAt []int
	// Recorder, if set, receives the Driver's records (train.Recorder);
	// Evals[0] of an Evaluated record is the machine's, and Epoch is 0 for
	// full batch. Its errors stop training and are returned.
	Recorder train.Recorder
	Test     *EvalSet
	// Init is the starting α (copied); nil starts from α = 0 (g₀ = 0).
	Init []float64
}

// SubgradientResult is what TrainSubgradient returns.
type SubgradientResult struct {
	Machine   KernelMachine
	Steps     int     // updates applied
	Converged bool    // stopped early by Tol
	Objective float64 // the objective at the returned α
	Outputs   []float64
}

// TrainSubgradient runs subgradient descent in α (paper App. A.1) on the
// training Gram k (n×n, symmetric) with targets y: one KernelStepper (see
// it for the update rules) under a train.Driver. Without a Stream and with
// Batch 0 or ≥ n every step is the full-batch step of paper eq. 16,
// α ← (1 − ηλ)α − η·s·l'(Kα, y); otherwise the steps are minibatch steps
// with cfg.Decay on the batches of the BatchStream (cfg.Stream, or one of
// cfg.Batch and cfg.Seed), a batch of all n included. It stops at ctx's
// cancellation with an error wrapping ctx's error and the state reached
// so far.
func TrainSubgradient(ctx context.Context, k KernelMatrix, y []float64, cfg SubgradientConfig) (*SubgradientResult, error) {
	var rec func(*train.Record, *KernelStepper) error
	if cfg.Recorder != nil {
		rec = func(r *train.Record, _ *KernelStepper) error { return cfg.Recorder.Record(r) }
	}
	return trainSubgradient(ctx, k, y, cfg, rec)
}

// trainSubgradient is TrainSubgradient with the records handed to rec
// together with the stepper.
func trainSubgradient(ctx context.Context, k KernelMatrix, y []float64, cfg SubgradientConfig, rec func(*train.Record, *KernelStepper) error) (*SubgradientResult, error) {
	n, c := k.Dims()
	if n != c {
		return nil, inputErr("training Gram is %d×%d, not square", n, c)
	}
	if err := cfg.check(n, y); err != nil {
		return nil, err
	}
	stream := cfg.Stream
	full := stream == nil && (cfg.Batch <= 0 || cfg.Batch >= n)
	if stream == nil && !full {
		var err error
		if stream, err = train.NewBatchStream(n, cfg.Batch, cfg.Seed); err != nil {
			return nil, err
		}
	}
	if stream != nil && stream.N() != n {
		return nil, inputErr("BatchStream is over %d indices, the Gram has %d", stream.N(), n)
	}
	ks, err := NewKernelStepper(k, y, cfg.stepper())
	if err != nil {
		return nil, err
	}
	ks.minibatchOnly = !full
	d := &train.Driver{Steppers: []train.Stepper{ks}, Stream: stream, N: n, Steps: cfg.Steps, LR: cfg.LR, LogAt: cfg.LogAt, Tol: cfg.Tol}
	if cfg.Pegasos {
		d.PegasosLambda = cfg.Lambda
	}
	if rec != nil {
		d.Recorder = train.RecorderFunc(func(r *train.Record) error {
			if full {
				r.Epoch = 0
			}
			return rec(r, ks)
		})
	}
	stats, err := d.Run(ctx)
	obj, _ := ks.Objective()
	res := &SubgradientResult{Machine: ks.Machine(), Steps: stats.Steps, Converged: stats.Converged, Objective: obj, Outputs: ks.Outputs()}
	return res, err
}

// stepper returns the KernelStepper's part of the configuration.
func (cfg *SubgradientConfig) stepper() KernelStepperConfig {
	return KernelStepperConfig{Loss: cfg.Loss, Lambda: cfg.Lambda, Objective: cfg.Objective, Decay: cfg.Decay, Test: cfg.Test, Init: cfg.Init}
}

func (cfg *SubgradientConfig) check(n int, y []float64) error {
	kc := cfg.stepper()
	if err := kc.check(n, y); err != nil {
		return err
	}
	switch {
	case cfg.Pegasos && cfg.Lambda == 0:
		return inputErr("the Pegasos step 1/(λt) needs λ > 0")
	case !cfg.Pegasos && (!(cfg.LR > 0) || math.IsInf(cfg.LR, 0)):
		return inputErr("learning rate η = %v; want a finite η > 0", cfg.LR)
	case cfg.Steps < 1:
		return inputErr("steps = %d; want ≥ 1", cfg.Steps)
	case cfg.Batch < 0:
		return inputErr("batch = %d; want ≥ 0 (0: full batch)", cfg.Batch)
	case cfg.Tol < 0 || math.IsNaN(cfg.Tol):
		return inputErr("tolerance %v; want ≥ 0", cfg.Tol)
	case !slices.IsSorted(cfg.LogAt):
		return inputErr("log steps are not ascending")
	}
	return nil
}
