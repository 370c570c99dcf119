package svm

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"

	"github.com/ntksvm/ntksvm/internal/frame"
	"github.com/ntksvm/ntksvm/svm/train"
)

// KernelStepperConfig holds the hyper-parameters of a KernelStepper. The
// step size, the batches and the number of steps belong to the Driver.
type KernelStepperConfig struct {
	Loss      Loss
	Lambda    float64   // λ ≥ 0
	Objective Objective // ObjectiveSum or ObjectiveMean
	Decay     Decay     // minibatch decay; a full-batch step decays every entry
	// Test, if not nil, is the held-out set whose outputs Evaluate reports.
	Test *EvalSet
	// Init is the starting α (copied); nil starts from α = 0 (g₀ = 0).
	Init []float64
}

// KernelStepper is the kernel machine g(x) = Σᵢ αᵢ K(x, xᵢ) trained by
// subgradient descent in α (paper App. A.1) as a train.Stepper:
//
// Full batch (paper eq. 16 for any loss), the batch 0…n−1 in order:
// α ← (1 − ηλ)α − η·s·l'(Kα, y), with s = 1 for ObjectiveSum and 1/n for ObjectiveMean.
//
// Minibatch B (any other batch): the gradient of the batch losses is scaled
// by s_B = 1/|B| for ObjectiveMean (the authors' per-batch mean, train_sgd.py) and
// n/|B| for ObjectiveSum (an unbiased estimate of the sum); DecayLazy (the SGD update
// after eq. 16): αᵢ ← (1 − ηλ)αᵢ − η·s_B·l'(gᵢ) for i ∈ B only; DecayExact:
// every α decays and the batch entries get the gradient step.
//
// g = Kα on the training points is kept incrementally: after a step only
// the changed α entries matter, g += K[:, changed]·Δα (rows, by symmetry),
// so a minibatch step costs |B|·n. A full-batch step with more than n/8
// nonzero derivatives streams K once (g += K·u) instead of row by row.
type KernelStepper struct {
	k     KernelMatrix
	y     []float64
	cfg   KernelStepperConfig
	scale float64 // s of the full-batch step
	alpha []float64
	g     []float64
	// minibatchOnly makes a batch 0…n−1 a minibatch step too
	// (TrainSubgradient with a BatchStream of B ≥ n, whose permutation may
	// be the identity).
	minibatchOnly bool

	idx   []int
	w     []float64
	u, ku []float64
	ev    train.Eval
	testG []float64
	yHash uint64
}

// NewKernelStepper returns the stepper of the kernel machine on the
// training Gram k (n×n, symmetric; not copied) with targets y (not
// copied), starting from cfg.Init or α = 0. It returns an error wrapping
// ErrInput for inconsistent shapes, labels or hyper-parameters.
func NewKernelStepper(k KernelMatrix, y []float64, cfg KernelStepperConfig) (*KernelStepper, error) {
	n, c := k.Dims()
	if n != c {
		return nil, inputErr("training Gram is %d×%d, not square", n, c)
	}
	if err := cfg.check(n, y); err != nil {
		return nil, err
	}
	s := &KernelStepper{k: k, y: y, cfg: cfg, scale: 1, alpha: make([]float64, n), g: make([]float64, n)}
	if cfg.Objective == ObjectiveMean {
		s.scale = 1 / float64(n)
	}
	if cfg.Init != nil {
		copy(s.alpha, cfg.Init)
		k.MulVec(s.g, s.alpha)
	}
	if cfg.Test != nil {
		r, _ := cfg.Test.K.Dims()
		s.testG = make([]float64, r)
	}
	s.yHash = hashFloats(y)
	return s, nil
}

func (cfg *KernelStepperConfig) check(n int, y []float64) error {
	switch {
	case !cfg.Loss.Valid():
		return inputErr("invalid loss %v", cfg.Loss)
	case len(y) != n:
		return inputErr("%d targets for a Gram of %d points", len(y), n)
	case !(cfg.Lambda >= 0) || math.IsInf(cfg.Lambda, 0):
		return inputErr("λ = %v; want a finite λ ≥ 0", cfg.Lambda)
	case cfg.Objective > ObjectiveMean:
		return inputErr("invalid objective %d", cfg.Objective)
	case cfg.Decay > DecayExact:
		return inputErr("invalid decay %d", cfg.Decay)
	case cfg.Init != nil && len(cfg.Init) != n:
		return inputErr("initial α has %d entries, want %d", len(cfg.Init), n)
	}
	if err := checkLabels(cfg.Loss, y); err != nil {
		return err
	}
	if cfg.Test != nil {
		r, c := cfg.Test.K.Dims()
		if c != n || len(cfg.Test.Y) != r {
			return inputErr("evaluation set: %d×%d kernel and %d targets for %d training points", r, c, len(cfg.Test.Y), n)
		}
		if err := checkLabels(cfg.Loss, cfg.Test.Y); err != nil {
			return fmt.Errorf("evaluation set: %w", err)
		}
	}
	return nil
}

// Machine returns the kernel machine with the current α (shared with the
// stepper: read-only, and changed by the next Step or LoadState).
func (s *KernelStepper) Machine() KernelMachine { return KernelMachine{Alpha: s.alpha} }

// TrainSize returns n, the number of training points; the Driver checks it
// against its batches.
func (s *KernelStepper) TrainSize() int { return len(s.alpha) }

// Outputs returns g = Kα on the training points, kept incrementally
// (shared with the stepper like Machine's α).
func (s *KernelStepper) Outputs() []float64 { return s.g }

// Objective returns the training objective of the current state (see
// Primal); it implements ObjectiveStepper and never fails.
func (s *KernelStepper) Objective() (float64, error) {
	return Primal(s.cfg.Loss, s.cfg.Lambda, s.cfg.Objective, s.alpha, s.g, s.y), nil
}

// Step implements train.Stepper: one subgradient step of size eta on batch (see
// KernelStepper for the rules). It returns an error wrapping ErrInput for
// a step size that is not finite and positive, an empty batch or an index
// out of range, before changing anything.
func (s *KernelStepper) Step(batch []int, eta float64) error {
	n := len(s.alpha)
	if !(eta > 0) || math.IsInf(eta, 0) {
		return inputErr("step size η = %v; want a finite η > 0", eta)
	}
	if len(batch) == 0 {
		return inputErr("empty batch")
	}
	full := !s.minibatchOnly && len(batch) == n
	for j, i := range batch {
		if i < 0 || i >= n {
			return inputErr("batch index %d out of range [0, %d)", i, n)
		}
		full = full && i == j
	}
	if full {
		s.fullStep(eta)
	} else {
		s.miniStep(batch, eta)
	}
	return s.checkFinite(eta)
}

// checkFinite returns an error wrapping ErrDiverged, naming the first
// non-finite αᵢ or gᵢ, or the objective, if the step of size eta just
// taken made it so.
func (s *KernelStepper) checkFinite(eta float64) error {
	for _, v := range [...]struct {
		name string
		x    []float64
	}{{"α", s.alpha}, {"g = Kα", s.g}} {
		for i, x := range v.x {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: %s[%d] is %v after a step of size η = %g (η too large for this kernel and λ)", ErrDiverged, v.name, i, x, eta)
			}
		}
	}
	if obj, _ := s.Objective(); math.IsNaN(obj) || math.IsInf(obj, 0) {
		return fmt.Errorf("%w: the objective is %v after a step of size η = %g (η too large for this kernel and λ)", ErrDiverged, obj, eta)
	}
	return nil
}

// fullStep is α ← decay·α + u, g ← decay·g + K·u with u = −η·s·l'(g).
func (s *KernelStepper) fullStep(eta float64) {
	alpha, g, y, n := s.alpha, s.g, s.y, len(s.alpha)
	decay := 1 - eta*s.cfg.Lambda
	idx, w := s.idx[:0], s.w[:0]
	for i := range alpha {
		alpha[i] *= decay
		if d := s.cfg.Loss.Deriv(g[i], y[i]); d != 0 {
			u := -eta * s.scale * d
			alpha[i] += u
			idx = append(idx, i)
			w = append(w, u)
		}
	}
	s.idx, s.w = idx, w
	for i := range g {
		g[i] *= decay
	}
	if len(idx) > n/8 {
		// Most losses have a nonzero derivative: one product K·u (K is
		// symmetric) streams K once instead of row by row.
		if s.u == nil {
			s.u, s.ku = make([]float64, n), make([]float64, n)
		}
		u, ku := s.u, s.ku
		clear(u)
		for j, i := range idx {
			u[i] = w[j]
		}
		s.k.MulVec(ku, u)
		for i, v := range ku {
			g[i] += v
		}
	} else {
		s.k.AddRows(g, idx, w)
	}
}

// miniStep is the minibatch step with the configured decay.
func (s *KernelStepper) miniStep(batch []int, eta float64) {
	alpha, g, y, n := s.alpha, s.g, s.y, len(s.alpha)
	lambda, loss := s.cfg.Lambda, s.cfg.Loss
	sB := 1 / float64(len(batch))
	if s.cfg.Objective == ObjectiveSum {
		sB = float64(n) / float64(len(batch))
	}
	w := slices.Grow(s.w[:0], len(batch))[:len(batch)]
	s.w = w
	if s.cfg.Decay == DecayLazy {
		for j, i := range batch {
			da := -eta*lambda*alpha[i] - eta*sB*loss.Deriv(g[i], y[i])
			alpha[i] += da
			w[j] = da
		}
	} else {
		decay := 1 - eta*lambda
		for j, i := range batch {
			w[j] = -eta * sB * loss.Deriv(g[i], y[i])
		}
		for i := range alpha {
			alpha[i] *= decay
			g[i] *= decay
		}
		for j, i := range batch {
			alpha[i] += w[j]
		}
	}
	s.k.AddRows(g, batch, w)
}

// Evaluate implements train.Stepper: the objective (see Primal), g = Kα on the
// training points (the kept outputs, not recomputed) and, with an
// EvalSet, K(A, X)·α on its points. The Eval and its slices are owned by
// the stepper and valid until the next Step, Evaluate or LoadState.
func (s *KernelStepper) Evaluate() (*train.Eval, error) {
	s.ev.Objective, _ = s.Objective()
	s.ev.Train = s.g
	s.ev.Test = nil
	if s.cfg.Test != nil {
		s.cfg.Test.K.MulVec(s.testG, s.alpha)
		s.ev.Test = s.testG
	}
	return &s.ev, nil
}

// The state written by SaveState is a frame with magic "NTKSVMKS" whose
// payload is (integers uint64, floats IEEE-754 bits, little-endian):
//
//	n; the loss's name (length, bytes) and ε; λ; objective; decay;
//	an FNV-1a hash of the targets' bits; then α (n floats) and g (n floats)
//
// g is saved rather than recomputed from α, so that a restored stepper
// continues bit-identically.

// SaveState implements train.Stepper.
func (s *KernelStepper) SaveState(w io.Writer) error {
	n := len(s.alpha)
	var e frame.Enc
	e.B = make([]byte, 0, 96+16*n)
	e.Int(n)
	e.Bytes([]byte(s.cfg.Loss.Name()))
	e.F64(s.cfg.Loss.Epsilon)
	e.F64(s.cfg.Lambda)
	e.Int(int(s.cfg.Objective))
	e.Int(int(s.cfg.Decay))
	e.U64(s.yHash)
	e.F64s(s.alpha)
	e.F64s(s.g)
	return frame.Write(w, frame.StepperMagic, e.B)
}

// LoadState implements train.Stepper: it restores α and g from a state written
// by SaveState of a stepper with the same n, loss, λ, objective, decay and
// targets (Init and the EvalSet may differ). Any other state is rejected
// with an error wrapping train.ErrState that names the mismatch, and the stepper
// is left as it was. It reads exactly the state's bytes from r.
func (s *KernelStepper) LoadState(r io.Reader) error {
	payload, err := frame.Read(r, frame.StepperMagic)
	if err != nil {
		return err
	}
	d := frame.Dec{B: payload, What: frame.Name(frame.StepperMagic)}
	n := d.Int()
	loss := string(d.Bytes())
	eps, lambda := d.F64(), d.F64()
	obj, decay := d.Int(), d.Int()
	yHash := d.U64()
	if d.Err != nil {
		return d.Err
	}
	c := &s.cfg
	switch {
	case n != len(s.alpha):
		return frame.Errorf("kernel-machine state of %d training points, this machine has %d", n, len(s.alpha))
	case loss != c.Loss.Name() || math.Float64bits(eps) != math.Float64bits(c.Loss.Epsilon):
		return frame.Errorf("kernel-machine state with the %s loss (ε = %v), this machine has %v", loss, eps, c.Loss)
	case math.Float64bits(lambda) != math.Float64bits(c.Lambda):
		return frame.Errorf("kernel-machine state with λ = %v, this machine has λ = %v", lambda, c.Lambda)
	case obj != int(c.Objective):
		return frame.Errorf("kernel-machine state with objective %v, this machine has %v", Objective(obj), c.Objective)
	case decay != int(c.Decay):
		return frame.Errorf("kernel-machine state with %v decay, this machine has %v", Decay(decay), c.Decay)
	case yHash != s.yHash:
		return frame.Errorf("kernel-machine state written with other training targets")
	}
	alpha, g := d.F64s(n), d.F64s(n)
	if err := d.Done(); err != nil {
		return err
	}
	copy(s.alpha, alpha)
	copy(s.g, g)
	return nil
}

// hashFloats returns the FNV-1a hash of the little-endian bits of v.
func hashFloats(v []float64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	return h.Sum64()
}
