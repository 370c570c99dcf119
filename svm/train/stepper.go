package train

import (
	"context"
	"io"
)

// Stepper is one trainer under a Driver: it owns a model (a kernel machine's
// α, a network's weights) and advances it one (sub)gradient step at a time
// on batches it is handed. The Driver owns everything the trainers share:
// the BatchStream, the step size schedule, the evaluation schedule, early
// stopping, cancellation and checkpoints. Several Steppers on one Driver see
// exactly the same batches in the same order, which is how a network and
// its kernel machine are trained side by side (the batch order is the one
// thing the authors' code did not share between them: their network and
// SVM data loaders drew from one global RNG, so after the first epoch the
// two saw different batches).
//
// A Stepper may also implement ObjectiveStepper (a cheap objective for
// early stopping) and a method TrainSize() int that the Driver checks
// against its batches; svm.KernelStepper, the kernel machine of paper
// App. A.1, does both.
//
// A Stepper is not safe for concurrent use; the Driver calls it from one
// goroutine.
type Stepper interface {
	// Step applies one update with step size eta > 0 on the training
	// indices batch. A full-batch step is handed every index 0…n−1 in
	// order. The slice is owned by the caller, read-only (the Driver hands
	// the same slice to every stepper) and valid during the call only. The
	// stepper applies its own objective scaling (svm.ObjectiveSum or svm.ObjectiveMean, per-batch
	// means) and regularisation.
	Step(batch []int, eta float64) error

	// Evaluate measures the current state (the state before the update of
	// the next Step) without changing it. The returned Eval and its slices
	// are owned by the stepper and valid until the next call to Step,
	// Evaluate or LoadState.
	Evaluate() (*Eval, error)

	// SaveState writes everything the stepper needs to continue
	// bit-identically after LoadState on a stepper built with the same
	// configuration and data.
	SaveState(w io.Writer) error

	// LoadState restores a state written by SaveState. It returns an error
	// naming the mismatch if the state was written by a stepper of another
	// kind, size or configuration.
	LoadState(r io.Reader) error
}

// ContextStepper is a Stepper whose long calls stop once a context is
// done, so that a Driver's cancellation takes effect within a step rather
// than after it. The Driver calls StepContext and EvaluateContext in place
// of Step and Evaluate.
type ContextStepper interface {
	Stepper
	// StepContext is Step, abandoned when ctx is done before the update
	// is applied: it then returns an error wrapping ctx's error and the
	// stepper is exactly as before the call (an update once begun is
	// applied whole). A step that runs to its end is Step's, bit for bit.
	StepContext(ctx context.Context, batch []int, eta float64) error
	// EvaluateContext is Evaluate, abandoned with an error wrapping ctx's
	// when ctx is done.
	EvaluateContext(ctx context.Context) (*Eval, error)
}

// Eval is what a Stepper reports at an evaluation step. Outputs are the
// model's function values as the paper plots them: g(x) = Σᵢ αᵢ K(x, xᵢ)
// for a kernel machine, f(x; W_t) − f(x; W_0) for a network with f₀
// subtraction.
type Eval struct {
	// Objective is the training objective λ/2‖β‖² + s·Σ l (s = 1 for svm.ObjectiveSum,
	// 1/n for svm.ObjectiveMean) in the stepper's own units.
	Objective float64
	Train     []float64 // outputs on every training point, in index order
	Test      []float64 // outputs on the evaluation set; nil without one
}
