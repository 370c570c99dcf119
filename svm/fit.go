package svm

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ntksvm/ntksvm/svm/train"
)

// Machine is one kernel machine of paper Table 1, named by its loss.
type Machine uint8

const (
	MachineSVM      Machine = iota // soft-margin SVM: hinge loss
	MachineSVM2                    // 2-norm SVM: squared hinge loss
	MachineSVR                     // support vector regression: ε-insensitive loss
	MachineKRR                     // kernel ridge regression: squared loss
	MachineLogistic                // ℓ2-regularised logistic regression
)

var machineNames = [...]string{"svm", "svm2", "svr", "krr", "logistic"}

// ParseMachine returns the machine named "svm", "svm2", "svr", "krr" or
// "logistic".
func ParseMachine(s string) (Machine, error) {
	for i, n := range machineNames {
		if n == s {
			return Machine(i), nil
		}
	}
	return 0, fmt.Errorf("svm: unknown machine %q (want svm, svm2, svr, krr or logistic)", s)
}

// String returns the machine's name as ParseMachine reads it.
func (m Machine) String() string {
	if int(m) < len(machineNames) {
		return machineNames[m]
	}
	return fmt.Sprintf("Machine(%d)", m)
}

// Loss returns the machine's loss; eps is the ε of MachineSVR (ignored by
// the others).
func (m Machine) Loss(eps float64) Loss {
	switch m {
	case MachineSVM:
		return Hinge
	case MachineSVM2:
		return SquaredHinge
	case MachineSVR:
		return EpsInsensitiveLoss(eps)
	case MachineKRR:
		return Squared
	}
	return Logistic
}

// Solver says how a machine is fitted.
type Solver uint8

const (
	// SolverExact solves the objective to a tolerance: SMO on the dual (svm, svm2,
	// svr; SolveDual) or Cholesky (krr; KRR).
	SolverExact Solver = iota
	// SolverSubgradient runs (stochastic) subgradient descent in α, paper
	// App. A.1 (TrainSubgradient).
	SolverSubgradient
)

// ParseSolver returns the solver named "exact" or "subgradient".
func ParseSolver(s string) (Solver, error) {
	switch s {
	case "exact":
		return SolverExact, nil
	case "subgradient":
		return SolverSubgradient, nil
	}
	return 0, fmt.Errorf("svm: unknown solver %q (want exact or subgradient)", s)
}

// String returns "exact" or "subgradient".
func (s Solver) String() string {
	if s == SolverSubgradient {
		return "subgradient"
	}
	return "exact"
}

// FieldError is a FitConfig (or other configuration) field with a value
// that is invalid on its own or in combination; a command line maps Field
// to its flag.
type FieldError struct {
	Field  string // the FitConfig field, e.g. "Lambda"
	Value  any
	Reason string // e.g. "want a finite λ ≥ 0"
}

// Error returns "svm: Field = value: reason".
func (e *FieldError) Error() string {
	return fmt.Sprintf("svm: %s = %v: %s", e.Field, e.Value, e.Reason)
}

func fieldErr(field string, v any, format string, args ...any) error {
	return &FieldError{Field: field, Value: v, Reason: fmt.Sprintf(format, args...)}
}

// FitConfig says what to fit and how: a machine, a solver, the objective
// and λ in its units (paper eq. 7 for ObjectiveSum, eq. 11 for ObjectiveMean), and the
// options of the solver. Options of the other solver must stay zero.
type FitConfig struct {
	Machine   Machine
	Solver    Solver
	Objective Objective
	Lambda    float64 // λ ≥ 0 of Objective; the exact SVMs need λ > 0
	Epsilon   float64 // ε ≥ 0 of MachineSVR's loss

	// Exact solver of svm, svm2, svr.
	Bias bool    // add a bias b (libsvm's machine); the paper's machines have none
	Gap  float64 // target relative duality gap > 0 (0: 1e-3)

	// Subgradient solver (see Config).
	Batch    int     // minibatch size; 0 is full batch
	LR       float64 // constant step η > 0 unless Pegasos
	Pegasos  bool    // step 1/(λt); needs λ > 0
	Steps    int     // updates; 0 means Epochs epochs
	Epochs   int     // epochs when Steps is 0 (then ≥ 1)
	Decay    Decay
	Seed     uint64
	Tol      float64 // relative objective change per epoch that stops early; 0 never
	LogCount int     // evaluations at log-spaced steps (see train.LogSteps)
}

// Validate checks the configuration without data: the machine has the
// solver, λ, ε, the gap and the subgradient options are in range. Errors
// are *FieldError.
func (c *FitConfig) Validate() error {
	if int(c.Machine) >= len(machineNames) {
		return fieldErr("Machine", c.Machine, "unknown machine")
	}
	if c.Objective != ObjectiveSum && c.Objective != ObjectiveMean {
		return fieldErr("Objective", c.Objective, "want sum or mean")
	}
	if !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0) {
		return fieldErr("Lambda", c.Lambda, "want a finite λ ≥ 0")
	}
	if c.Machine == MachineSVR && (!(c.Epsilon >= 0) || math.IsInf(c.Epsilon, 0)) {
		return fieldErr("Epsilon", c.Epsilon, "want a finite ε ≥ 0")
	}
	switch c.Solver {
	case SolverExact:
		return c.validateExact()
	case SolverSubgradient:
		return c.validateSubgradient()
	}
	return fieldErr("Solver", c.Solver, "unknown solver")
}

func (c *FitConfig) validateExact() error {
	switch {
	case c.Machine == MachineLogistic:
		return fieldErr("Solver", c.Solver, "the logistic machine has no exact solver; use the subgradient solver")
	case c.Bias && c.Machine == MachineKRR:
		return fieldErr("Bias", c.Bias, "not supported for krr")
	case c.Lambda == 0 && c.Machine != MachineKRR:
		return fieldErr("Lambda", c.Lambda, "the exact solver needs λ > 0 for %s (C = 1/λ)", c.Machine)
	case c.Gap < 0 || math.IsNaN(c.Gap) || math.IsInf(c.Gap, 0):
		return fieldErr("Gap", c.Gap, "want > 0")
	case c.Batch != 0 || c.LR != 0 || c.Pegasos || c.Steps != 0 || c.Epochs != 0 || c.Decay != DecayLazy || c.Seed != 0 || c.Tol != 0 || c.LogCount != 0:
		return fieldErr("Solver", c.Solver, "subgradient options (batch, step, steps, epochs, decay, seed, tolerance, log) do not apply to the exact solver")
	}
	return nil
}

func (c *FitConfig) validateSubgradient() error {
	switch {
	case c.Bias:
		return fieldErr("Bias", c.Bias, "the subgradient trainer fits the paper's homogeneous machine (no bias)")
	case c.Gap != 0:
		return fieldErr("Gap", c.Gap, "the duality gap applies to the exact solver only")
	case c.Batch < 0:
		return fieldErr("Batch", c.Batch, "want ≥ 0")
	case c.Steps < 0:
		return fieldErr("Steps", c.Steps, "want ≥ 0")
	case c.Steps == 0 && c.Epochs < 1:
		return fieldErr("Epochs", c.Epochs, "want ≥ 1 epochs (or Steps > 0)")
	case c.LogCount < 0:
		return fieldErr("LogCount", c.LogCount, "want ≥ 0")
	case c.Pegasos && c.Lambda == 0:
		return fieldErr("Pegasos", c.Pegasos, "the Pegasos step 1/(λt) needs λ > 0")
	case !c.Pegasos && (!(c.LR > 0) || math.IsInf(c.LR, 0)):
		return fieldErr("LR", c.LR, "want a finite η > 0")
	case c.Tol < 0 || math.IsNaN(c.Tol):
		return fieldErr("Tol", c.Tol, "want ≥ 0")
	}
	return nil
}

// StepsFromEpochs returns the number of updates in epochs passes over n
// points with minibatches of batch (0 or ≥ n: full batch, one update per
// epoch; otherwise ⌈n/batch⌉ updates per epoch, the last batch of an epoch
// being shorter, as train.BatchStream draws them).
func StepsFromEpochs(epochs, n, batch int) int {
	perEpoch := 1
	if batch > 0 && batch < n {
		perEpoch = (n + batch - 1) / batch
	}
	return epochs * perEpoch
}

// TotalSteps is the number of subgradient updates over n training points:
// Steps, or Epochs epochs by StepsFromEpochs.
func (c *FitConfig) TotalSteps(n int) int {
	if c.Steps > 0 {
		return c.Steps
	}
	return StepsFromEpochs(c.Epochs, n, c.Batch)
}

// SumLambda converts λ of objective obj over n points into the λ of the
// sum objective with the same minimiser: the mean objective
// λ/2‖β‖² + (1/n)Σ l is 1/n times the sum objective with nλ (paper eqs. 7
// and 11), so ObjectiveMean gives nλ and ObjectiveSum λ itself. C = 1/SumLambda is the
// soft-margin SVM's C.
func SumLambda(lambda float64, obj Objective, n int) float64 {
	if obj == ObjectiveMean {
		return lambda * float64(n)
	}
	return lambda
}

// FitInfo is what a fit reports besides the machine: the solver's
// internal units and its convergence, stored with the model (typed, one
// field per quantity; zero fields are omitted from the model file).
type FitInfo struct {
	// Exact krr: the ridge c of α = (K + cI)⁻¹y (see KRRShift).
	RidgeShift float64 `json:"ridge_shift,omitempty"`
	// Exact svm, svm2, svr: C = 1/λ of the sum objective, the primal and
	// dual objectives (divided by λ), their relative gap, the SMO
	// iterations and support vectors.
	C              float64 `json:"c,omitempty"`
	Primal         float64 `json:"primal,omitempty"`
	Dual           float64 `json:"dual,omitempty"`
	RelGap         float64 `json:"rel_gap,omitempty"`
	Iterations     int     `json:"iterations,omitempty"`
	SupportVectors int     `json:"support_vectors,omitempty"`
	Converged      bool    `json:"converged,omitempty"` // exact dual: gap reached; subgradient: stopped early by Tol
	// Subgradient: the hyper-parameters and the updates applied.
	Batch   int     `json:"batch,omitempty"`
	LR      float64 `json:"lr,omitempty"`
	Steps   int     `json:"steps,omitempty"`
	Decay   string  `json:"decay,omitempty"`
	Seed    uint64  `json:"seed,omitempty"`
	Pegasos bool    `json:"pegasos,omitempty"`
	// Objective is the value of the fitted objective in the units of the
	// solver (the sum objective divided by λ for the exact duals).
	Objective float64 `json:"objective_value,omitempty"`
	Seconds   float64 `json:"solve_seconds,omitempty"`
}

// FitResult is a fitted machine with its training outputs and report.
type FitResult struct {
	Machine KernelMachine
	Outputs []float64 // g(xᵢ) on the training points (bias included)
	Info    FitInfo
	Dual    *DualResult        // the exact dual solve; nil otherwise
	Train   *SubgradientResult // the subgradient run; nil otherwise
	// Warnings are problems that did not stop the fit (see CheckGram).
	Warnings []string
}

// FitHooks are the optional observers of a subgradient fit (ignored by
// the exact solvers).
type FitHooks struct {
	Test       *EvalSet              // held-out set the log evaluates
	TrackTrain []int                 // training indices whose outputs Log reports
	TrackTest  []int                 // Test indices whose outputs Log reports
	Log        func(*Progress) error // called at train.LogSteps(steps, LogCount)
	// ConsumeGram says the caller does not use the Gram after Fit: exact
	// KRR with a ridge c > 0 on a float64 *Dense Gram then factors it in
	// place (KRRInPlace; peak memory about one Gram instead of two) and
	// reports the training outputs as y − cα, which (K + cI)α = y makes
	// equal to Kα up to the solve's rounding. With c = 0 those outputs
	// would be y itself whatever the solve's residual, so Fit copies.
	ConsumeGram bool
}

// Fit fits cfg's machine on the training Gram k with targets y: KRR by
// Cholesky (ridge KRRShift), the svm, svm2 and svr duals by SolveDual
// with λ converted to the sum objective (SumLambda), or the subgradient
// trainer TrainSubgradient. Every solver stops at ctx's cancellation with ctx's
// error. The labels are checked against the machine's loss (±1 for
// classification), the configuration by Validate and the Gram by
// CheckGram.
func Fit(ctx context.Context, k KernelMatrix, y []float64, cfg FitConfig, hooks FitHooks) (*FitResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n, _ := k.Dims()
	if n == 0 {
		return nil, inputErr("no training points")
	}
	loss := cfg.Machine.Loss(cfg.Epsilon)
	if err := checkLabels(loss, y); err != nil {
		return nil, err
	}
	warning, err := CheckGram(k)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	var res *FitResult
	switch {
	case cfg.Solver == SolverExact && cfg.Machine == MachineKRR:
		res, err = fitKRR(ctx, k, y, cfg, hooks.ConsumeGram)
	case cfg.Solver == SolverExact:
		res, err = fitDual(ctx, k, y, cfg, loss)
	default:
		res, err = fitSubgradient(ctx, k, y, cfg, loss, hooks)
	}
	if err != nil {
		return nil, err
	}
	res.Info.Seconds = time.Since(t0).Seconds()
	if warning != "" {
		res.Warnings = append(res.Warnings, warning)
	}
	return res, nil
}

func fitKRR(ctx context.Context, k KernelMatrix, y []float64, cfg FitConfig, consume bool) (*FitResult, error) {
	n, _ := k.Dims()
	c := KRRShift(cfg.Lambda, cfg.Objective, n)
	if d, ok := k.(*Dense[float64]); ok && consume && c > 0 {
		m, err := KRRInPlace(ctx, d.M, y, c)
		if err != nil {
			return nil, err
		}
		out := make([]float64, n)
		for i, a := range m.Alpha {
			out[i] = y[i] - c*a
		}
		return &FitResult{Machine: *m, Outputs: out, Info: FitInfo{RidgeShift: c}}, nil
	}
	m, err := KRR(ctx, k, y, c)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	k.MulVec(out, m.Alpha)
	return &FitResult{Machine: *m, Outputs: out, Info: FitInfo{RidgeShift: c}}, nil
}

func fitDual(ctx context.Context, k KernelMatrix, y []float64, cfg FitConfig, loss Loss) (*FitResult, error) {
	n, _ := k.Dims()
	lambda := SumLambda(cfg.Lambda, cfg.Objective, n)
	r, err := SolveDual(ctx, k, y, DualConfig{Loss: loss, Lambda: lambda, Bias: cfg.Bias, Tol: cfg.Gap})
	if err != nil {
		return nil, err
	}
	info := FitInfo{C: 1 / lambda, Primal: r.Primal, Dual: r.DualObj, RelGap: r.RelGap, Iterations: r.Iterations,
		SupportVectors: r.SupportVectors, Converged: r.Converged, Objective: r.Objective}
	return &FitResult{Machine: r.Machine, Outputs: r.Outputs, Info: info, Dual: r}, nil
}

func fitSubgradient(ctx context.Context, k KernelMatrix, y []float64, cfg FitConfig, loss Loss, h FitHooks) (*FitResult, error) {
	n, _ := k.Dims()
	steps := cfg.TotalSteps(n)
	tc := SubgradientConfig{Loss: loss, Lambda: cfg.Lambda, Objective: cfg.Objective, LR: cfg.LR, Pegasos: cfg.Pegasos,
		Batch: cfg.Batch, Decay: cfg.Decay, Steps: steps, Seed: cfg.Seed, Tol: cfg.Tol,
		LogAt: train.LogSteps(steps, cfg.LogCount), Test: h.Test}
	if h.Test != nil {
		if err := checkLabels(loss, h.Test.Y); err != nil {
			return nil, fmt.Errorf("test set: %w", err)
		}
	}
	r, err := trainLogged(ctx, k, y, tc, h)
	if err != nil {
		return nil, err
	}
	info := FitInfo{Batch: cfg.Batch, LR: cfg.LR, Steps: r.Steps, Decay: cfg.Decay.String(), Seed: cfg.Seed,
		Pegasos: cfg.Pegasos, Objective: r.Objective, Converged: r.Converged}
	return &FitResult{Machine: r.Machine, Outputs: r.Outputs, Info: info, Train: r}, nil
}

// Progress is one entry of a subgradient fit's log (FitHooks.Log), taken
// before the update of Step (Step 1 is the initial state, as in the
// authors' code).
type Progress struct {
	Step      int     // 1-based step whose update has not yet been applied
	T         float64 // time Σ η over steps 1…Step: Step·η for a constant step
	Epoch     int     // epoch of Step's batch (0 for full batch)
	Objective float64 // the training objective (see Primal)
	TrainLoss float64 // mean loss over the training set (no regulariser)
	TrainAcc  float64 // training accuracy (see Accuracy); NaN for regression losses
	TestLoss  float64 // mean loss over the EvalSet; NaN without one
	TestAcc   float64 // NaN without an EvalSet or for regression losses
	TrainOut  []float64
	TestOut   []float64 // outputs at FitHooks.TrackTrain and TrackTest
	Alpha     []float64 // the current α; read-only, valid during the callback only
}

// trainLogged runs TrainSubgradient with cfg and reports its evaluations
// to h.Log as Progress, with the outputs at h's tracked indices.
func trainLogged(ctx context.Context, k KernelMatrix, y []float64, cfg SubgradientConfig, h FitHooks) (*SubgradientResult, error) {
	n, _ := k.Dims()
	for _, i := range h.TrackTrain {
		if i < 0 || i >= n {
			return nil, inputErr("tracked training index %d out of range [0, %d)", i, n)
		}
	}
	if cfg.Test != nil {
		r, _ := cfg.Test.K.Dims()
		for _, i := range h.TrackTest {
			if i < 0 || i >= r {
				return nil, inputErr("tracked evaluation index %d out of range [0, %d)", i, r)
			}
		}
	} else if len(h.TrackTest) > 0 {
		return nil, inputErr("tracked evaluation points without an evaluation set")
	}
	if h.Log == nil {
		return trainSubgradient(ctx, k, y, cfg, nil)
	}
	p := &Progress{TrainOut: make([]float64, len(h.TrackTrain)), TestOut: make([]float64, len(h.TrackTest))}
	return trainSubgradient(ctx, k, y, cfg, func(r *train.Record, ks *KernelStepper) error {
		if r.Event != train.Evaluated {
			return nil
		}
		ev := r.Evals[0]
		p.Step, p.T, p.Epoch, p.Alpha = r.Step, r.T, r.Epoch, ks.alpha
		p.Objective = ev.Objective
		p.TrainLoss = MeanLoss(cfg.Loss, ev.Train, y)
		p.TrainAcc, p.TestLoss, p.TestAcc = math.NaN(), math.NaN(), math.NaN()
		if cfg.Loss.Classification() {
			p.TrainAcc = Accuracy(ev.Train, y)
		}
		for j, i := range h.TrackTrain {
			p.TrainOut[j] = ev.Train[i]
		}
		if cfg.Test != nil {
			p.TestLoss = MeanLoss(cfg.Loss, ev.Test, cfg.Test.Y)
			if cfg.Loss.Classification() {
				p.TestAcc = Accuracy(ev.Test, cfg.Test.Y)
			}
			for j, i := range h.TrackTest {
				p.TestOut[j] = ev.Test[i]
			}
		}
		return h.Log(p)
	})
}

// CheckLabels checks evaluation targets y for machine m as the fit checks
// training targets: finite, and −1 or +1 for the classifiers (svm, svm2,
// logistic). The error names the first bad row and its value.
func CheckLabels(m Machine, y []float64) error {
	return checkLabels(m.Loss(0), y)
}

// CheckGram checks a training Gram for degenerate values before a fit,
// looking at its diagonal (for a positive semi-definite K,
// |K_ij| ≤ √(K_ii·K_jj), so a finite diagonal bounds every entry): a NaN
// or infinite K_ii (the kernel overflowed: inputs too large) or a zero
// diagonal (the kernel underflowed, e.g. at a large depth, or every input
// is zero) is an error; a largest K_ii below 1e-20 gives a warning: such
// a kernel has nearly vanished (a ReLU network's kernel diagonal shrinks
// by σ_w²/2 per layer, as E[relu(u)²] = Var(u)/2), is within a few orders of
// magnitude of float32's underflow, and its machine's outputs are at the
// level of rounding noise against any λ.
func CheckGram(k KernelMatrix) (warning string, err error) {
	n, _ := k.Dims()
	var top float64
	for i := range n {
		v := k.At(i, i)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", inputErr("K[%d, %d] is %v: the kernel overflows (inputs too large; rescale them)", i, i, v)
		}
		top = max(top, math.Abs(v))
	}
	switch {
	case n > 0 && top == 0:
		return "", inputErr("the kernel is 0 on every training point (it underflows: depth too large for σ_w, or all inputs are zero)")
	case n > 0 && top < 1e-20:
		return fmt.Sprintf("the kernel is at most %.3g on the training points: it has nearly vanished "+
			"(a ReLU kernel shrinks by σ_w²/2 per layer; σ_w = √2 keeps its scale), results may be numerical noise", top), nil
	}
	return "", nil
}
