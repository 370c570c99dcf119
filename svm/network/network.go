package network

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/train"
)

// Regularization says which penalty R(W) a Stepper adds to its
// objective, and so which function-space decay the network's outputs feel
// (paper eqs. 7 and 9; see Stepper for the mapping to the kernel
// machine's λ). W_l,0 are the weights at construction.
type Regularization uint8

const (
	// RegPaper is the authors' train_sgd.py: λ/2·‖W_last/√m‖² on the raw
	// N(0, 1) last-layer weights W_last of width m (the last-layer bias,
	// if any, is not penalised). Its gradient λ·W_last/m decays the
	// weight part of f at rate λ/m, not λ: the network is under-regularised
	// by a factor m against the kernel machine of the same λ, and the decay
	// pulls f itself, f₀ included, toward 0.
	RegPaper Regularization = iota
	// RegTheory is λ/2·Σ_l (‖W_l − W_l,0‖² + ‖b_l − b_l,0‖²), every weight
	// and bias pulled toward its initial value: in the linearised network
	// f − f₀ = ⟨∇f(W_0), W − W_0⟩ this is the kernel machine's λ/2‖β‖² with
	// β = W − W_0, and the function-space decay is −λ(f − f₀) as paper
	// eq. 9 assumes, up to the O(1/√m) change of the tangent features. It
	// keeps a copy of W_0 (the memory of the weights once more).
	RegTheory
	// RegLastLayer is λ/2·(‖W_last − W_last,0‖² + ‖b_last − b_last,0‖²),
	// the last layer only. Its decay is −λ·(W_last − W_last,0)·a_t/√m (plus
	// the bias part), exactly at fixed hidden activations a_t; but the
	// hidden layers' share of f − f₀ is not decayed, and it is O(1), not
	// O(1/√m): the change of hidden unit j is proportional to its output
	// weight, so W_last,0·(a_t − a_0)/√m = Σ_j O(w_j²)/m does not vanish with
	// width. This mode therefore does not match the kernel machine with λ
	// (measured in this package's tests); it is kept for comparison.
	RegLastLayer
	// RegNone adds no penalty (λ is ignored): paper Table 1's λ = 0 row.
	RegNone
)

// ParseRegularization returns the mode named "paper", "theory",
// "last-layer" or "none".
func ParseRegularization(s string) (Regularization, error) {
	switch s {
	case "paper":
		return RegPaper, nil
	case "theory":
		return RegTheory, nil
	case "last-layer":
		return RegLastLayer, nil
	case "none":
		return RegNone, nil
	}
	return 0, fmt.Errorf("svm: unknown regularisation %q (want paper, theory, last-layer or none)", s)
}

// String returns "paper", "theory", "last-layer" or "none".
func (r Regularization) String() string {
	switch r {
	case RegPaper:
		return "paper"
	case RegTheory:
		return "theory"
	case RegLastLayer:
		return "last-layer"
	case RegNone:
		return "none"
	}
	return fmt.Sprintf("Regularization(%d)", uint8(r))
}

// DefaultMemCap is the memory bound Config.MemCap = 0 stands
// for: 8 GiB. A command should pass the memory the machine has available.
const DefaultMemCap = 8 << 30

// Config holds the hyper-parameters of a Stepper. The step
// size η is not among them: the driver hands it to every Step.
type Config struct {
	Loss      svm.Loss
	Lambda    float64        // λ ≥ 0, finite
	Objective svm.Objective  // svm.ObjectiveSum or svm.ObjectiveMean, scaled per batch as svm.TrainSubgradient does
	Reg       Regularization // the penalty λ applies to
	// KeepF0 turns the f₀ subtraction off: outputs, losses and their
	// derivatives use f(x; W_t) itself instead of f(x; W_t) − f(x; W_0).
	KeepF0 bool
	// Batch is the largest batch Step will be handed; 0 means the whole
	// training set. It sizes the buffers and the memory check; Step
	// refuses a larger batch.
	Batch int
	// MemCap bounds, in bytes, the memory the stepper may need in all:
	// the network's weights and gradients, the initial weights the penalty
	// needs (all of W_0 for RegTheory), the activations of
	// one batch or evaluation block, f₀ and the outputs. The constructor
	// refuses a larger need. 0 means DefaultMemCap, < 0 no bound.
	MemCap int64
}

// Stepper trains a finite NTK-parameterised ReLU network (package
// ntk's Network: f = σ_w·W_last·a_L(x)/√m + σ_b·b_last with N(0, 1) weights)
// by (sub)gradient descent, one Step per batch, as the Stepper of a driver
// that trains its kernel machine beside it on the same batches.
//
// # Objective
//
// With outputs h(x) = f(x; W_t) − f₀(x), f₀(x) = f(x; W_0) stored at
// construction for every training and evaluation point (as the authors'
// train_sgd.py does; h = f with KeepF0), a step on batch B minimises
//
//	R(W) + s_B·Σ_{i∈B} l(h(xᵢ), yᵢ),  s_B = 1/|B| (svm.ObjectiveMean) or n/|B| (svm.ObjectiveSum),
//
// by W ← W − η·∇_W of it, with R the penalty of Config.Reg: every weight
// and bias is updated, and the penalty acts on every step whatever the
// batch. The full batch (B = 0…n−1) is the objective of paper eq. 7 (svm.ObjectiveSum)
// or eq. 11 (svm.ObjectiveMean) with the network's penalty in place of λ/2‖β‖², and it
// is what Evaluate reports.
//
// # The kernel machine it matches
//
// A step W ← W − η·∇_W changes the outputs by
//
//	Δh(x) = −η·s_B·Σ_{i∈B} Θ̂(W_t; x, xᵢ)·l'(h(xᵢ), yᵢ) − η·⟨∇_W f(W_t; x), ∇_W R⟩ + O(η²),
//
// with Θ̂ the empirical tangent kernel (ntk's EmpiricalNTK), and the decay
// term ⟨∇_W f, ∇_W R⟩ is
//
//	RegTheory:    λ·⟨∇_W f(W_t; x), W_t − W_0⟩, which is λ·h(x) exactly for the
//	              linearised network h = ⟨∇_W f(W_0; x), W − W_0⟩ and λ·h(x) + O(1/√m)
//	              for the network (∇_W f moves by O(1/√m) in the NTK regime);
//	RegLastLayer: λ·(W_last − W_last,0)·σ_w·a_t(x)/√m (+ the bias part): λ·h(x)
//	              minus the hidden layers' share of h, which does not vanish with width;
//	RegPaper:     (λ/m)·σ_w·W_last·a_t(x)/√m, the weight part of f itself (f₀ included);
//	RegNone:      0.
//
// So under RegTheory, in the limit where Θ̂(W_t) stays Θ̂(W_0) (paper eq. 9,
// Theorem 3.4), h follows h ← (1 − ηλ)h − η·s_B·Θ̂(W_0)·l'(h), step for step:
// the kernel machine svm.TrainSubgradient runs with K = Θ̂(W_0) (these N(0, 1) weights in
// NTK parameterisation give the neural-tangents NTK scale, so the same η),
// the same λ, the same Objective (the network trained with
// λ/2‖W − W_0‖² + s·Σ l has dh/dt = −λh − s·Θ̂·l'), and svm.DecayExact for
// minibatches (a full batch decays every α anyway). Its objective, which
// Evaluate reports, then also approximates the machine's: ‖W − W_0‖² is
// ‖β‖² = αᵀKα of the linearised network. Under RegPaper the matching
// machine has λ/m in place of λ (the authors' kernel machine used λ with
// svm.DecayLazy, so the two sides of their figures differ), and since the
// decay acts on f = h + f₀ (exactly: f is homogeneous in W_last), h is
// also pulled by −η(λ/m)·f₀ per step. RegNone matches the machine with
// λ = 0 (kernel regression for the squared loss, paper Table 1).
//
// # Buffers and memory
//
// The stepper owns the network it is given and updates its weights in
// place. Steps reuse one forward/backward workspace (ntk's ForwardInto and
// BackwardStep). The first and hidden layers' weights are updated inside
// the backward pass, W ← (1 − δ)·W − η·G as the weight-gradient GEMM
// itself, so their gradients are never stored; the penalty's δ·W_0, the
// last layer and the biases take an in-place axpy that checks the new
// values for NaN and ±Inf in cache-sized chunks. The fused layers are
// shown finite without reading them, from a bound on max |W| carried from
// step to step and one on the step (ntk.Step's Bound), and read only when
// that bound gets too large. Evaluate runs the forward pass in row
// blocks. The constructor refuses a configuration whose memory need
// exceeds Config.MemCap.
//
// A Stepper is not safe for concurrent use.
type Stepper[T linalg.Float] struct {
	net   *ntk.Network[T]
	x     linalg.Matrix[T]
	y     []float64
	test  linalg.Matrix[T]
	cfg   Config
	batch int // the largest batch

	// w0 and b0 hold W_l,0 and b_l,0 for the layers the penalty pulls
	// toward them (every layer for RegTheory, the last for RegLastLayer),
	// nil for the others; b0 is nil without biases.
	w0     [][]T
	b0     [][]T
	f0     []float64
	f0Test []float64

	steps  int   // updates applied
	failed error // set when a step or a load left the weights unusable

	pass  ntk.Pass[T]
	grads ntk.Grads[T]
	// st is ntk's BackwardStep argument; wmax[l] is an upper bound on
	// max |W_l| (+Inf: unknown), carried from step to step so that the
	// fused update can be shown finite without reading the weights.
	st    ntk.Step[T]
	wmax  []float64
	xb    linalg.Matrix[T] // gathered batch rows
	c     []T              // output cotangents
	zeros []T              // for the finiteness check
	ev    train.Eval
	hash  uint32 // fingerprint of x, y and test (SaveState)
}

// finiteChunk is the number of weights updated and checked at once: small
// enough to stay in the first-level cache between the two.
const finiteChunk = 2048

// NewStepper returns the trainer of net (at its initialisation W_0,
// from ntk.NewNetwork or ntk.LoadNetwork) on the rows of x with targets y.
// test holds evaluation points whose outputs Evaluate reports; the zero
// Matrix means none. x and test are referred to, not copied, and must not
// change while the stepper is used. The stepper computes f₀ on x and test,
// then owns net.
//
// It returns an error wrapping svm.ErrInput for shapes that do not match the
// network, non-finite inputs or weights, targets invalid for the loss, or
// bad hyper-parameters, and for a configuration that needs more memory
// than cfg.MemCap (naming the bytes it needs).
func NewStepper[T linalg.Float](net *ntk.Network[T], x linalg.Matrix[T], y []float64, test linalg.Matrix[T], cfg Config) (*Stepper[T], error) {
	return NewStepperContext(context.Background(), net, x, y, test, cfg)
}

// NewStepperContext is NewStepper whose forward passes for f₀ stop once
// ctx is done; it then returns an error wrapping ctx's.
func NewStepperContext[T linalg.Float](ctx context.Context, net *ntk.Network[T], x linalg.Matrix[T], y []float64, test linalg.Matrix[T], cfg Config) (*Stepper[T], error) {
	if net == nil {
		return nil, inputErr("nil network")
	}
	if err := checkNetwork(net); err != nil {
		return nil, err
	}
	n := x.Rows
	switch {
	case n < 1:
		return nil, inputErr("no training points")
	case x.Cols != net.D:
		return nil, inputErr("training points have %d features, the network %d", x.Cols, net.D)
	case len(y) != n:
		return nil, inputErr("%d targets for %d training points", len(y), n)
	case test.Rows > 0 && test.Cols != net.D:
		return nil, inputErr("evaluation points have %d features, the network %d", test.Cols, net.D)
	case !cfg.Loss.Valid():
		return nil, inputErr("invalid loss %v", cfg.Loss)
	case !(cfg.Lambda >= 0) || math.IsInf(cfg.Lambda, 0):
		return nil, inputErr("λ = %v; want a finite λ ≥ 0", cfg.Lambda)
	case cfg.Objective > svm.ObjectiveMean:
		return nil, inputErr("invalid objective %d", cfg.Objective)
	case cfg.Reg > RegNone:
		return nil, inputErr("invalid regularisation %d", cfg.Reg)
	case cfg.Batch < 0:
		return nil, inputErr("batch = %d; want ≥ 0 (0: full batch)", cfg.Batch)
	}
	if err := cfg.Loss.CheckTargets(y); err != nil {
		return nil, err
	}
	if err := checkFiniteRows("training point", x); err != nil {
		return nil, err
	}
	if err := checkFiniteRows("evaluation point", test); err != nil {
		return nil, err
	}
	batch := cfg.Batch
	if batch == 0 || batch > n {
		batch = n
	}
	s := &Stepper[T]{net: net, x: x, y: y, test: test, cfg: cfg, batch: batch}
	if test.Rows == 0 {
		s.test = linalg.Matrix[T]{}
	}
	need, what := s.memoryNeed()
	capB := cfg.MemCap
	if capB == 0 {
		capB = DefaultMemCap
	}
	if capB > 0 && need > float64(capB) {
		return nil, inputErr("the network stepper needs about %.0f bytes (%.2f GiB: %s), more than the cap of %d bytes (Config.MemCap)",
			need, need/(1<<30), what, capB)
	}
	s.wmax = make([]float64, net.Depth+1)
	s.st = ntk.Step[T]{Update: make([]bool, net.Depth+1), Beta: make([]T, net.Depth+1), Bound: make([]float64, net.Depth+1)}
	for l, w := range net.W {
		s.wmax[l] = maxAbs(w.Data)
		if math.IsNaN(s.wmax[l]) || math.IsInf(s.wmax[l], 0) {
			return nil, inputErr("layer %d of the network has a non-finite weight", l)
		}
		if net.B != nil && !allFinite(net.B[l]) {
			return nil, inputErr("layer %d of the network has a non-finite bias", l)
		}
	}
	s.zeros = make([]T, finiteChunk)
	s.c = make([]T, batch)
	s.ev.Train = make([]float64, n)
	if s.test.Rows > 0 {
		s.ev.Test = make([]float64, s.test.Rows)
	}
	if cfg.Reg == RegTheory || cfg.Reg == RegLastLayer {
		s.w0 = make([][]T, net.Depth+1)
		if net.B != nil {
			s.b0 = make([][]T, net.Depth+1)
		}
		for l := range net.W {
			if cfg.Reg == RegLastLayer && l < net.Depth {
				continue
			}
			s.w0[l] = slices.Clone(net.W[l].Data)
			if net.B != nil {
				s.b0[l] = slices.Clone(net.B[l])
			}
		}
	}
	if !cfg.KeepF0 {
		s.f0 = make([]float64, n)
		if err := s.outputs(ctx, s.f0, s.x, nil); err != nil {
			return nil, err
		}
		if s.test.Rows > 0 {
			s.f0Test = make([]float64, s.test.Rows)
			if err := s.outputs(ctx, s.f0Test, s.test, nil); err != nil {
				return nil, err
			}
		}
		for i, v := range s.f0 {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, inputErr("f₀ of training point %d is %v", i, v)
			}
		}
		for i, v := range s.f0Test {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, inputErr("f₀ of evaluation point %d is %v", i, v)
			}
		}
	}
	s.hash = s.fingerprint()
	return s, nil
}

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", svm.ErrInput, fmt.Sprintf(format, args...))
}

// checkNetwork checks that net's arrays have the shapes its fields say.
func checkNetwork[T linalg.Float](net *ntk.Network[T]) error {
	if net.Depth < 1 || net.Width < 1 || net.D < 1 || len(net.W) != net.Depth+1 {
		return inputErr("network of depth %d, width %d, %d inputs with %d weight matrices", net.Depth, net.Width, net.D, len(net.W))
	}
	if err := net.Spec().Validate(); err != nil {
		return fmt.Errorf("%w: %v", svm.ErrInput, err)
	}
	if (net.BiasStd != 0) != (net.B != nil) || (net.B != nil && len(net.B) != net.Depth+1) {
		return inputErr("network biases do not match σ_b = %v", net.BiasStd)
	}
	for l, w := range net.W {
		out, in := net.Width, net.Width
		if l == 0 {
			in = net.D
		}
		if l == net.Depth {
			out = 1
		}
		if w.Rows != out || w.Cols != in || w.Stride != in || len(w.Data) != out*in {
			return inputErr("layer %d weight is %d×%d (stride %d), want compact %d×%d", l, w.Rows, w.Cols, w.Stride, out, in)
		}
		if net.B != nil && len(net.B[l]) != out {
			return inputErr("layer %d bias has %d entries, want %d", l, len(net.B[l]), out)
		}
	}
	return nil
}

// checkFiniteRows returns an error naming the first row of x with a NaN or
// ±Inf.
func checkFiniteRows[T linalg.Float](what string, x linalg.Matrix[T]) error {
	for i := range x.Rows {
		for _, v := range x.Row(i) {
			if v-v != 0 {
				return inputErr("%s %d has a non-finite feature %v", what, i, v)
			}
		}
	}
	return nil
}

// memoryNeed estimates the bytes the stepper needs in all, with a breakdown.
func (s *Stepper[T]) memoryNeed() (float64, string) {
	var e T
	sz := float64(sizeOf(e))
	net := s.net
	m, d, L := float64(net.Width), float64(net.D), float64(net.Depth)
	params := m*d + m*m*(L-1) + m
	if net.B != nil {
		params += m*L + 1
	}
	rows := float64(max(s.batch, s.evalRows()))
	// Weights and the last layer's gradient: the others are applied
	// inside the backward pass and never stored (ntk's BackwardStep).
	weights := (params + m + 1) * sz
	switch s.cfg.Reg {
	case RegTheory:
		weights += params * sz // W_0
	case RegLastLayer:
		weights += (m + 1) * sz
	}
	// Pass: A[1…L] and Z[0…L−1] (n×m each), the backward scratch (2n×m),
	// the output; plus the gathered batch (n×d) and its cotangents.
	act := rows*(2*L*m+2*m+1)*sz + float64(s.batch)*(d+1)*sz
	nOut := float64(s.x.Rows + s.test.Rows)
	outs := 2 * nOut * 8 // f₀ and the outputs
	return weights + act + outs, fmt.Sprintf("weights and the last layer's gradient %.0f, activations of %.0f rows %.0f, outputs %.0f", weights, rows, act, outs)
}

// evalRows is the number of rows per evaluation block: those whose
// activations take about 32 MiB (or a quarter of a smaller MemCap), at
// least 1 and at most every point.
func (s *Stepper[T]) evalRows() int {
	var e T
	perRow := float64(2*s.net.Depth*s.net.Width+1) * float64(sizeOf(e))
	target := float64(32 << 20)
	if s.cfg.MemCap > 0 {
		target = min(target, float64(s.cfg.MemCap)/4)
	}
	r := int(min(target/perRow, float64(max(s.x.Rows, s.test.Rows))))
	return max(r, 1)
}

func sizeOf[T linalg.Float](T) int {
	var e T
	if _, ok := any(e).(float32); ok {
		return 4
	}
	return 8
}

// TrainSize returns the number of training points; a train.Driver checks
// it against its batches.
func (s *Stepper[T]) TrainSize() int { return s.x.Rows }

// Network returns the network being trained (its weights are the current
// W_t). It must not be changed while the stepper is used.
func (s *Stepper[T]) Network() *ntk.Network[T] { return s.net }

// SaveWeights writes the current weights with ntk's Network.Save: a .npz
// archive (if path ends in ".npz") or a directory of .npy files, in
// PyTorch's out×in orientation, written atomically. ntk.LoadNetwork reads
// them back; to continue training bit-identically use SaveState instead,
// which also keeps W_last,0 and f₀.
func (s *Stepper[T]) SaveWeights(path string) error { return s.net.Save(path) }

// Steps returns the number of updates applied so far (carried by
// SaveState).
func (s *Stepper[T]) Steps() int { return s.steps }

// F0 returns f(x; W_0) on the training and evaluation points, nil with
// KeepF0. The slices are the stepper's; do not modify them.
func (s *Stepper[T]) F0() (train, test []float64) { return s.f0, s.f0Test }

// Step implements Stepper: one (sub)gradient step with step size eta on the
// training indices batch (see Stepper for the objective). It returns
// an error wrapping svm.ErrInput for a bad eta, an empty batch, an index out of
// range or a batch larger than Config.Batch, without changing
// anything. If an output on the batch is NaN or ±Inf it returns an error
// naming the step and applies nothing; if the update makes a weight NaN or
// ±Inf it returns an error naming the step and layer, and every later Step
// returns it too until LoadState restores a good state.
func (s *Stepper[T]) Step(batch []int, eta float64) error {
	return s.StepContext(context.Background(), batch, eta)
}

// StepContext implements train.ContextStepper: Step, abandoned once ctx is
// done as long as no weight has changed (the forward pass and the
// backward products before the first in-place update stop within a few
// milliseconds, see ntk's BackwardStepContext). It then returns an error
// wrapping ctx's and the stepper is as it was before the call; once the
// update has begun it is applied whole. A step that runs to its end is
// bitwise Step's.
func (s *Stepper[T]) StepContext(ctx context.Context, batch []int, eta float64) error {
	if s.failed != nil {
		return s.failed
	}
	n := s.x.Rows
	switch {
	case !(eta > 0) || math.IsInf(eta, 0):
		return inputErr("step size η = %v; want a finite η > 0", eta)
	case len(batch) == 0:
		return inputErr("empty batch")
	case len(batch) > s.batch:
		return inputErr("batch of %d indices; the stepper was configured for at most %d (Config.Batch)", len(batch), s.batch)
	}
	identity := len(batch) == n
	for j, i := range batch {
		if i < 0 || i >= n {
			return inputErr("batch index %d out of range [0, %d)", i, n)
		}
		identity = identity && i == j
	}
	step := s.steps + 1
	xb := s.x
	if !identity {
		s.xb = compact(s.xb, len(batch), s.x.Cols)
		for j, i := range batch {
			copy(s.xb.Row(j), s.x.Row(i))
		}
		xb = s.xb
	}
	net := s.net
	if err := net.ForwardIntoContext(ctx, &s.pass, xb); err != nil {
		return fmt.Errorf("svm: network step %d: %w", step, err)
	}
	sB := 1 / float64(len(batch))
	if s.cfg.Objective == svm.ObjectiveSum {
		sB = float64(n) / float64(len(batch))
	}
	c := s.c[:len(batch)]
	active := false
	for j, i := range batch {
		f := float64(s.pass.F[j])
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("svm: network step %d: output on training point %d is %v", step, i, f)
		}
		if s.f0 != nil {
			f -= s.f0[i]
		}
		c[j] = T(sB * s.cfg.Loss.Deriv(f, s.y[i]))
		active = active || c[j] != 0
	}
	// Every layer: W ← W − η·(∂loss/∂W + ∂R/∂W), where ∂R/∂W is δ/η·(W − W_0)
	// (toward 0 without W_0) in the layers R penalises.
	L := net.Depth
	lam := s.cfg.Lambda
	decay := func(l int) float64 {
		switch s.cfg.Reg {
		case RegPaper:
			if l == L {
				return eta * lam / float64(net.Width)
			}
		case RegTheory:
			return eta * lam
		case RegLastLayer:
			if l == L {
				return eta * lam
			}
		}
		return 0
	}
	if active {
		// The weights of the hidden and first layers are updated inside the
		// backward pass, W ← (1 − δ)·W − η·∂loss/∂W as the weight-gradient
		// GEMM itself (see ntk's BackwardStep); + δ·W_0 follows below. The
		// last layer (1×m) takes the plain update.
		s.st.Eta = T(eta)
		for l := range s.st.Beta {
			s.st.Update[l] = l < L
			s.st.Beta[l] = 1 - T(decay(l))
		}
		if err := net.BackwardStepContext(ctx, &s.grads, &s.pass, c, &s.st); err != nil {
			return fmt.Errorf("svm: network step %d: %w", step, err)
		}
	}
	for l := 0; l <= L; l++ {
		delta := decay(l)
		var w0, b0 []T
		if s.w0 != nil {
			w0 = s.w0[l]
		}
		if s.b0 != nil {
			b0 = s.b0[l]
		}
		if active && s.st.Update[l] {
			if !s.finishFused(l, w0, T(delta)) {
				return s.fail(step, fmt.Sprintf("layer %d weights", l))
			}
		} else {
			var g []T
			if active {
				g = s.grads.W[l].Data
			}
			if !update(net.W[l].Data, g, w0, T(eta), T(delta), s.zeros) {
				return s.fail(step, fmt.Sprintf("layer %d weights", l))
			}
			if g != nil || delta != 0 {
				s.wmax[l] = math.Inf(1)
			}
		}
		if net.B != nil {
			var gb []T
			if active {
				gb = s.grads.B[l]
			}
			if s.cfg.Reg == RegPaper {
				delta = 0 // the authors' penalty leaves biases alone
			}
			if !update(net.B[l], gb, b0, T(eta), T(delta), s.zeros) {
				return s.fail(step, fmt.Sprintf("layer %d biases", l))
			}
		}
	}
	s.steps = step
	return nil
}

// finishFused completes the update of layer l, whose gradient step
// W ← (1 − δ)·W − η·G ntk's BackwardStep has applied: it adds δ·W_0 (w0
// not nil, δ ≠ 0), checking the weights as update does, or else shows the
// weights finite from the bound on max |W| carried from the last step and
// the one BackwardStep returned on |η·G|, reading them only when that
// bound is too large to prove it. It reports whether every weight is
// finite.
func (s *Stepper[T]) finishFused(l int, w0 []T, delta T) bool {
	w := s.net.W[l].Data
	if w0 != nil && delta != 0 {
		s.wmax[l] = math.Inf(1)
		return addScaled(w, w0, delta, s.zeros)
	}
	// |fl(β·w + Σ)| ≤ (|β|·max|w| + bound)·(1 + O(k·ε)): a quarter of the
	// largest finite T leaves ample room for the rounding.
	b := math.Abs(float64(s.st.Beta[l]))*s.wmax[l] + s.st.Bound[l]
	if !(b <= maxFinite[T]()/4) {
		b = maxAbs(w)
		if math.IsNaN(b) || math.IsInf(b, 0) {
			s.wmax[l] = math.Inf(1)
			return false
		}
	}
	s.wmax[l] = b
	return true
}

// maxFinite returns the largest finite T.
func maxFinite[T linalg.Float]() float64 {
	var e T
	if sizeOf(e) == 4 {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// maxAbs returns max |x[i]| in float64 (0 for an empty x), NaN if x holds
// a NaN, over linalg.Threads() goroutines for long vectors. It compares
// bit patterns: with the sign bit cleared, the patterns of |x| order as
// unsigned integers as the values do, and every NaN's lies above +Inf's,
// so one integer maximum per element finds both, much faster than the
// builtin max with its NaN rules (docs/performance.md, "Small kernels").
func maxAbs[T linalg.Float](x []T) float64 {
	var mu sync.Mutex
	var m float64
	linalg.ParallelFor(len(x), 1<<18, func(lo, hi int) {
		r := maxAbsBits(x[lo:hi])
		mu.Lock()
		if m == m && (r != r || r > m) { // a NaN, once found, stays
			m = r
		}
		mu.Unlock()
	})
	return m
}

// maxAbsBits is maxAbs on one goroutine.
func maxAbsBits[T linalg.Float](x []T) float64 {
	switch x := any(x).(type) {
	case []float32:
		var u0, u1 uint32
		i := 0
		for ; i+2 <= len(x); i += 2 {
			u0 = max(u0, math.Float32bits(x[i])&^(1<<31))
			u1 = max(u1, math.Float32bits(x[i+1])&^(1<<31))
		}
		if i < len(x) {
			u0 = max(u0, math.Float32bits(x[i])&^(1<<31))
		}
		return float64(math.Float32frombits(max(u0, u1))) // a NaN pattern converts to NaN
	case []float64:
		var u0, u1 uint64
		i := 0
		for ; i+2 <= len(x); i += 2 {
			u0 = max(u0, math.Float64bits(x[i])&^(1<<63))
			u1 = max(u1, math.Float64bits(x[i+1])&^(1<<63))
		}
		if i < len(x) {
			u0 = max(u0, math.Float64bits(x[i])&^(1<<63))
		}
		return math.Float64frombits(max(u0, u1))
	}
	panic("unreachable")
}

// addScaled sets w ← w + δ·w0 and checks the result for NaN and ±Inf as
// update does. It reports whether every w is finite.
func addScaled[T linalg.Float](w, w0 []T, delta T, zeros []T) bool {
	var bad atomic.Bool
	linalg.ParallelFor(len(w), 1<<18, func(lo, hi int) {
		for i := lo; i < hi; i += len(zeros) {
			e := min(i+len(zeros), hi)
			linalg.Axpy(delta, w0[i:e], w[i:e])
			if linalg.Dot(w[i:e], zeros[:e-i]) != 0 {
				bad.Store(true)
			}
		}
	})
	return !bad.Load()
}

// fail records that step made the weights named by what non-finite.
func (s *Stepper[T]) fail(step int, what string) error {
	s.failed = fmt.Errorf("svm: network step %d made %s NaN or infinite (η too large?); the weights are unusable: resume from an earlier checkpoint, or start again, with a smaller step size", step, what)
	return s.failed
}

// compact returns m reshaped to a compact rows×cols matrix, reusing its
// storage when large enough.
func compact[T linalg.Float](m linalg.Matrix[T], rows, cols int) linalg.Matrix[T] {
	if cap(m.Data) >= rows*cols {
		return linalg.Matrix[T]{Rows: rows, Cols: cols, Stride: cols, Data: m.Data[:rows*cols]}
	}
	return linalg.New[T](rows, cols)
}

// update sets w ← w − η·g − δ·(w − w0) (g nil: no gradient term; w0
// nil: decay toward 0; δ = 0: no decay) in chunks, each checked for NaN
// and ±Inf while it is in cache (Σ 0·wᵢ is 0 exactly when every wᵢ is
// finite), over linalg.Threads() goroutines for long vectors; each element's
// result does not depend on the split. It reports whether every w is
// finite. With neither a gradient nor a decay it does nothing and reports
// true (w was finite before).
func update[T linalg.Float](w, g, w0 []T, eta, delta T, zeros []T) bool {
	if g == nil && delta == 0 {
		return true
	}
	work := func(lo, hi int) bool {
		ok := true
		for i := lo; i < hi; i += len(zeros) {
			e := min(i+len(zeros), hi)
			updateChunk(w[i:e], g, w0, i, eta, delta)
			if linalg.Dot(w[i:e], zeros[:e-i]) != 0 {
				ok = false
			}
		}
		return ok
	}
	var bad atomic.Bool
	linalg.ParallelFor(len(w), 1<<18, func(lo, hi int) {
		if !work(lo, hi) {
			bad.Store(true)
		}
	})
	return !bad.Load()
}

// updateChunk is update's arithmetic on w = the elements off… of the
// whole vectors g and w0 (either may be nil).
func updateChunk[T linalg.Float](w, g, w0 []T, off int, eta, delta T) {
	switch {
	case delta == 0:
		linalg.Axpy(-eta, g[off:off+len(w)], w)
	case g == nil && w0 == nil:
		linalg.Axpy(-delta, w, w)
	case g == nil:
		w0 := w0[off : off+len(w)]
		for i, v := range w {
			w[i] = v - delta*(v-w0[i])
		}
	case w0 == nil:
		g := g[off : off+len(w)]
		for i, v := range w {
			w[i] = v - (eta*g[i] + delta*v)
		}
	default:
		g, w0 := g[off:off+len(w)], w0[off:off+len(w)]
		for i, v := range w {
			w[i] = v - (eta*g[i] + delta*(v-w0[i]))
		}
	}
}

// allFinite reports whether every element of x is finite.
func allFinite[T linalg.Float](x []T) bool {
	for _, v := range x {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// outputs sets dst[i] = f(x_i; W_t) − f0[i] (f0 nil: no subtraction) for
// the rows of x, in blocks of evalRows rows (or the batch size if larger),
// reusing the step's workspace; ctx stops it (see ForwardIntoContext).
func (s *Stepper[T]) outputs(ctx context.Context, dst []float64, x linalg.Matrix[T], f0 []float64) error {
	block := max(s.evalRows(), s.batch)
	for i0 := 0; i0 < x.Rows; i0 += block {
		i1 := min(i0+block, x.Rows)
		if err := s.net.ForwardIntoContext(ctx, &s.pass, x.Slice(i0, i1, 0, x.Cols)); err != nil {
			return fmt.Errorf("svm: network forward pass: %w", err)
		}
		for j, v := range s.pass.F {
			dst[i0+j] = float64(v)
			if f0 != nil {
				dst[i0+j] -= f0[i0+j]
			}
		}
	}
	return nil
}

// Evaluate implements Stepper: the outputs h = f(x; W_t) − f₀(x) (f with
// KeepF0) on every training and evaluation point, by forward passes in row
// blocks, and the full objective R(W_t) + s·Σᵢ l(h(xᵢ), yᵢ) (s = 1 for svm.ObjectiveSum,
// 1/n for svm.ObjectiveMean) with the penalty R of Config.Reg (see
// Stepper). It returns an error if an output is NaN or ±Inf.
func (s *Stepper[T]) Evaluate() (*train.Eval, error) {
	return s.EvaluateContext(context.Background())
}

// EvaluateContext implements train.ContextStepper: Evaluate, stopped
// within a few milliseconds once ctx is done, with an error wrapping
// ctx's (the weights are only read; the Eval of the last evaluation is no
// longer valid).
func (s *Stepper[T]) EvaluateContext(ctx context.Context) (*train.Eval, error) {
	if s.failed != nil {
		return nil, s.failed
	}
	if err := s.outputs(ctx, s.ev.Train, s.x, s.f0); err != nil {
		return nil, err
	}
	if s.test.Rows > 0 {
		if err := s.outputs(ctx, s.ev.Test, s.test, s.f0Test); err != nil {
			return nil, err
		}
	}
	var loss float64
	for i, h := range s.ev.Train {
		if math.IsNaN(h) || math.IsInf(h, 0) {
			return nil, fmt.Errorf("svm: network after step %d: output on training point %d is %v", s.steps, i, h)
		}
		loss += s.cfg.Loss.Value(h, s.y[i])
	}
	for i, h := range s.ev.Test {
		if math.IsNaN(h) || math.IsInf(h, 0) {
			return nil, fmt.Errorf("svm: network after step %d: output on evaluation point %d is %v", s.steps, i, h)
		}
	}
	if s.cfg.Objective == svm.ObjectiveMean {
		loss /= float64(len(s.y))
	}
	s.ev.Objective = s.penalty() + loss
	return &s.ev, nil
}

// penalty returns R(W_t) of Config.Reg.
func (s *Stepper[T]) penalty() float64 {
	net := s.net
	var r float64
	switch s.cfg.Reg {
	case RegPaper:
		for _, v := range net.W[net.Depth].Data {
			r += float64(v) * float64(v)
		}
		r /= float64(net.Width)
	case RegTheory, RegLastLayer:
		for l := range net.W {
			if s.w0[l] != nil {
				r += sqDist(net.W[l].Data, s.w0[l])
			}
			if s.b0 != nil && s.b0[l] != nil {
				r += sqDist(net.B[l], s.b0[l])
			}
		}
	case RegNone:
		return 0
	}
	return s.cfg.Lambda / 2 * r
}

// sqDist returns ‖a − b‖² in float64.
func sqDist[T linalg.Float](a, b []T) float64 {
	var r float64
	for i, v := range a {
		d := float64(v) - float64(b[i])
		r += d * d
	}
	return r
}
