package extract

import (
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// This file is Theorem 4.1 of the paper (Appendix G, eqs. 57–62): a finite
// network trained by (sub)gradient descent on an l2-regularised loss is a
// kernel machine whose kernel is accumulated along the training run,
//
//	f_T(x) = Σᵢ aᵢ K_T(x, xᵢ) + b(x),
//	K_T(x, xᵢ) = e^{−λT} ∫₀ᵀ s·|l'(f_t(xᵢ), yᵢ)|·Θ̂(w_t; x, xᵢ)·e^{λt} dt,
//	aᵢ = −sign(l'(f₀(xᵢ), yᵢ)),
//
// s being the objective's scale (1 for svm.ObjectiveSum, 1/n or 1/|batch| for svm.ObjectiveMean): the
// loss term of the function-space dynamics (eq. 58) is −s·Σᵢ l'ᵢ Θ̂(x, xᵢ).

// DecayTarget says what the regulariser pulls the network's raw output
// toward, in function space.
type DecayTarget uint8

const (
	// DecayToZero: a penalty on the raw last-layer weights. The paper's
	// λ/2‖W_last/√m‖² (the authors' code) adds −(λ/m)·f to df/dt exactly,
	// since f is linear in W_last and has no bias: it decays the raw f,
	// f₀ included, toward 0. (Both targets need a network without biases
	// when Decay > 0: a bias term of f would not decay; Observe refuses it.)
	DecayToZero DecayTarget = iota
	// DecayToInit: the penalty λ/2‖W_last − W_last,0‖², which adds
	// −λ·σ_w(W_last − W_last,0)·h_t/√m = −λ·(f − f₀) + λ·c_t to df/dt,
	// where c_t(x) = σ_w·W_last,0·(h_t(x) − h₀(x))/√m is the change of
	// the hidden features h seen through the initial output weights. That
	// term is not small: in the NTK parameterisation the hidden layers
	// carry about half of f − f₀ at any width, and the penalty does not
	// decay their part. So this is not the decay toward f₀ that the
	// theorem's form needs; the Extractor integrates the extra term into
	// b (see Offset), which then depends on the training run. This is
	// network.Stepper's network.RegLastLayer.
	DecayToInit
	// DecayToInitAll: the penalty λ/2·Σ_l (‖W_l − W_l,0‖² + ‖b_l − b_l,0‖²)
	// on every layer (network.Stepper's network.RegTheory), which adds
	// −λ·⟨∇_W f(W_t; x), W_t − W_0⟩ to df/dt. That is −λ·(f − f₀) + λ·ρ_t
	// with ρ_t(x) = (f_t − f₀)(x) − ⟨∇_W f(W_t; x), W_t − W_0⟩, the
	// network's departure from its linearisation along the run, which is
	// O(1/√m) in the NTK regime (it vanishes for the linearised network).
	// The Extractor computes ⟨∇_W f(W_t; x), W_t − W_0⟩ exactly, by one
	// forward-mode (tangent) pass per observation, and integrates λ·ρ_t
	// into b as for DecayToInit; Report.DriftMaxAbs says how large
	// that part of b is. Biases are allowed: the penalty decays them too.
	DecayToInitAll
)

// Quadrature is the rule that integrates the kernel over the observed times.
type Quadrature uint8

const (
	// Trapezoid (the default) integrates between consecutive observations
	// by the trapezoid rule, second order in the spacing for gradient flow.
	Trapezoid Quadrature = iota
	// Left is the left-endpoint rule: the interval [t_k, t_{k+1}] gets the
	// integrand at t_k, as one (sub)gradient step does (forward Euler);
	// with a minibatch it uses exactly the batch of that step. Observing
	// every step of a discrete GD run, both rules are first order in η
	// against the network (GD is not gradient flow), Left with the smaller
	// constant (about 10× in the tests); Trapezoid is the rule for coarse
	// observations of a nearly continuous run, and is wrong for SGD.
	Left
)

// DecayRate returns the function-space decay rate λ_f of a regularisation
// mode, the λ of Theorem 4.1 to pass as Config.Decay:
//
//	"paper":      λ/2‖W_last/√m‖² → λ_f = λ/m (DecayToZero; the authors' network)
//	"theory":     λ/2 Σ_l ‖W_l − W_l,0‖² → λ_f = λ (DecayToInitAll: toward f₀
//	              up to the O(1/√m) term the Extractor integrates into b)
//	"last-layer": λ/2‖W_last − W_last,0‖² → λ_f = λ (DecayToInit: toward f₀
//	              for the output layer's share of f − f₀ only)
//	"none":       λ_f = 0
//
// These are the names of network.Stepper's network.Regularization modes;
// ConfigFor maps a whole network.Config. width is m. The rate does
// not depend on the svm.ObjectiveSum/svm.ObjectiveMean scale of the loss, because the penalty is
// not scaled with it.
func DecayRate(mode string, lambda float64, width int) (float64, error) {
	if !(lambda >= 0) || math.IsInf(lambda, 1) {
		return 0, fmt.Errorf("%w: λ = %g must be finite and ≥ 0", svm.ErrInput, lambda)
	}
	switch mode {
	case "paper":
		if width < 1 {
			return 0, fmt.Errorf("%w: width %d < 1", svm.ErrInput, width)
		}
		return lambda / float64(width), nil
	case "theory", "last-layer":
		return lambda, nil
	case "none":
		return 0, nil
	}
	return 0, fmt.Errorf("%w: unknown regularisation mode %q (want paper, theory, last-layer or none)", svm.ErrInput, mode)
}

// Config describes the training run an Extractor observes.
type Config struct {
	Loss svm.Loss // the training loss of paper Table 1
	// Objective is svm.ObjectiveSum or svm.ObjectiveMean: s = 1 or 1/n for the full batch, and
	// n/|batch| or 1/|batch| for a minibatch (the scales of network.Stepper
	// and svm.KernelStepper).
	Objective svm.Objective
	// Decay is the function-space decay rate λ_f ≥ 0 of the regulariser
	// (see DecayRate): λ/m for the paper's penalty, λ for the theory's.
	Decay float64
	// Target is what the regulariser pulls the raw output toward.
	Target DecayTarget
	// SubtractInit says the trainer's outputs, and the loss's inputs, are
	// f(x; w_t) − f(x; w_0) (the authors' convention). All outputs the
	// Extractor reports are then in those units.
	SubtractInit bool
	// Rule is the quadrature over observations (Trapezoid by default).
	Rule Quadrature
	// AuthorsCode reproduces generalization.py: every |l'| is taken as 1
	// (its mask on l' never fires, so g_j = −y_j always), aⱼ = yⱼ, and
	// b = 0 (its kernel machine is K a, f₀ being subtracted). Its kernel
	// used the penalty's λ itself as the decay rate; pass that as Decay
	// to reproduce it.
	AuthorsCode bool
}

// SignBreak records a training point at which the assumption of
// Theorem 4.1 first failed: the sign of l'(f_t(xᵢ), yᵢ) differs from
// its sign at initialisation. A zero derivative contributes nothing to
// the integral and breaks nothing; a break is a flip between nonzero
// values, or a point with l'₀ = 0 (so aᵢ = 0) getting a nonzero l' later.
// In AuthorsCode mode, where every |l'| is kept at 1, a derivative
// becoming 0 (a hinge point past the margin) is a break too.
type SignBreak struct {
	Index   int     // training index
	Step    int     // observation number (0 is the initialisation)
	T       float64 // time of that observation
	Initial float64 // l'(f₀(xᵢ), yᵢ)
	Now     float64 // l'(f_t(xᵢ), yᵢ) at the break
}

// Report compares the network with its kernel machine K_T a + b at
// the last observation.
type Report struct {
	Step int     // observation number (0 is the initialisation)
	T    float64 // time since the first observation
	// Network and kernel-machine outputs on the training and test points
	// (test nil without a test set), in the units of Config.SubtractInit.
	TrainNN, TrainKM, TestNN, TestKM []float64
	// ‖f_T − (K_T a + b)‖∞ and its root mean square.
	TrainMaxAbs, TrainRMS, TestMaxAbs, TestRMS float64
	// DriftMaxAbs is max over the training points of the part of b that
	// depends on the run (the integral of λ·c_t for DecayToInit, of λ·ρ_t
	// for DecayToInitAll; 0 for the other targets): how far the network's
	// decay is from the decay toward f₀ of the theorem's form.
	DriftMaxAbs float64
	// SignBreaks lists every point whose l' sign changed, in the order
	// found; the representation is not exact for them (empty: it holds).
	SignBreaks []SignBreak
}

// Extractor accumulates the kernel of Theorem 4.1 along a training run.
// It holds O(n²) numbers (O(n*·n) more with a test set) and never forms a
// per-sample gradient: the running kernel (float64); the last integrand,
// on training×training as the last Θ̂ (of T: Θ̂ is symmetric, the
// integrand is not) and the n weights of its columns, on test×training
// in float64; the constant input Gram X·Xᵀ of the first layer and two
// Gram scratch matrices (of T), one more n×n of T for a network with
// several hidden layers, O(n·m) for DecayToInit, and for DecayToInitAll a
// copy of W_0 (the network's parameters once more) and two tangent
// buffers of (n or n*)×m. One Observe costs a forward pass (and, for
// DecayToInitAll, a tangent pass of the same cost) and, per layer, two
// n×n×m Gram products and a pass over the n² numbers; for n = 1000,
// d = 784, one hidden layer of 100, that is about twice a full-batch
// training step. On training×training, where Θ̂ is symmetric, the Gram
// products and the elementwise assembly of Θ̂ cover the lower triangle
// only, and Θ̂ is mirrored once before the accumulation; the running
// kernel is not symmetric (column j carries the weight |l'ⱼ|) and is
// accumulated in full. Θ̂ is the per-layer GEMM identity of
// ntk.Network.EmpiricalNTK,
//
//	Θ̂ = Σ_l (σ_w²/fan_in_l)·(Δ_l Δ_lᵀ) ⊙ (A_l A_lᵀ) + σ_b²·Δ_l Δ_lᵀ,
//
// with A_0 A_0ᵀ = X·Xᵀ computed once. The kernel is accumulated in float64
// for a float32 or float64 network. An Extractor is not safe for
// concurrent use.
type Extractor[T linalg.Float] struct {
	cfg        Config
	x, xt      linalg.Matrix[T]
	y          []float64
	n, nt      int
	xx, xtx    linalg.Matrix[T] // X·Xᵀ (its lower triangle), X*·Xᵀ
	acc, accT  []float64        // K_T at the last observation (n×n, n*×n)
	prvT       []float64        // last integrand on test×training
	thp        linalg.Matrix[T] // Θ̂ on training×training at the last observation
	wprev      []float64        // the column weights w at the last observation
	th, thT    linalg.Matrix[T] // Θ̂ scratch
	dd, aa     linalg.Matrix[T] // Gram scratch
	ddT, aaT   linalg.Matrix[T]
	pass, pT   *ntk.Pass[T]
	dbuf       [2][]linalg.Matrix[T] // Δ buffers, reused between observations
	f0, f0t    []float64             // raw f₀ on train, test
	g, gt      []float64             // current outputs in reported units
	g0, g0t    []float64             // initial outputs in reported units
	d0         []float64             // l' at initialisation
	a          []float64
	w          []float64     // current column weights s·|l'ⱼ|
	wl0        []float64     // W_last at initialisation (DecayToInit)
	h0, h0t    []float64     // hidden features h₀ on train, test (n×m)
	c, ct      []float64     // drift term c_t at the last observation
	cacc, cacT []float64     // its integral e^{−λT}∫λ e^{λt} c_t dt
	lin        extractLin[T] // DecayToInitAll: W_0 and the tangent pass
	breaks     []SignBreak
	broken     []bool
	step       int
	width, dep int // the network's shape, fixed at the first observation
	t0, t      float64
	started    bool
}

// NewExtractor returns an Extractor for the training inputs x (n×d) with
// targets y and, if test.Rows > 0, the test inputs (the zero Matrix for
// none). It returns an error for an invalid configuration or mismatched
// shapes.
func NewExtractor[T linalg.Float](x linalg.Matrix[T], y []float64, test linalg.Matrix[T], cfg Config) (*Extractor[T], error) {
	if !cfg.Loss.Valid() {
		return nil, fmt.Errorf("%w: invalid loss", svm.ErrInput)
	}
	if cfg.Objective != svm.ObjectiveSum && cfg.Objective != svm.ObjectiveMean {
		return nil, fmt.Errorf("%w: invalid objective %d", svm.ErrInput, cfg.Objective)
	}
	if !(cfg.Decay >= 0) || math.IsInf(cfg.Decay, 1) {
		return nil, fmt.Errorf("%w: decay rate %g must be finite and ≥ 0", svm.ErrInput, cfg.Decay)
	}
	if cfg.Target > DecayToInitAll || cfg.Rule > Left {
		return nil, fmt.Errorf("%w: invalid decay target or quadrature", svm.ErrInput)
	}
	n := x.Rows
	if n == 0 || len(y) != n {
		return nil, fmt.Errorf("%w: %d training rows and %d targets", svm.ErrInput, n, len(y))
	}
	if test.Rows > 0 && test.Cols != x.Cols {
		return nil, fmt.Errorf("%w: test inputs have %d columns, training %d", svm.ErrInput, test.Cols, x.Cols)
	}
	e := &Extractor[T]{cfg: cfg, x: x, xt: test, y: append([]float64(nil), y...), n: n, nt: test.Rows}
	e.xx = linalg.New[T](n, n)
	if err := linalg.SyrkLower(1, x, 0, e.xx); err != nil { // grams reads its lower triangle only
		return nil, err
	}
	e.acc, e.wprev = make([]float64, n*n), make([]float64, n)
	e.dd, e.aa = linalg.New[T](n, n), linalg.New[T](n, n) // th: on the first Observe of a deep network
	e.thp = linalg.New[T](n, n)
	if e.nt > 0 {
		nt := e.nt
		e.xtx = linalg.New[T](nt, n)
		if err := linalg.CrossGram(test, x, e.xtx); err != nil {
			return nil, err
		}
		e.accT, e.prvT = make([]float64, nt*n), make([]float64, nt*n)
		e.ddT, e.aaT = linalg.New[T](nt, n), linalg.New[T](nt, n)
	}
	e.w = make([]float64, n)
	e.g, e.g0, e.f0 = make([]float64, n), make([]float64, n), make([]float64, n)
	e.gt, e.g0t, e.f0t = make([]float64, e.nt), make([]float64, e.nt), make([]float64, e.nt)
	e.d0, e.a, e.broken = make([]float64, n), make([]float64, n), make([]bool, n)
	return e, nil
}

// Observe shows the extractor the network's weights at time t (the
// continuous time of the run, t = Σ η over the steps taken; paper notation
// t = k·η̂ for a constant step): once before the first update (t = 0, the
// initialisation), then after every update (or every few updates). batch
// lists the training indices whose losses drive the next update from this
// state; nil means all of them (full batch). The network and batch are
// only read during the call; Watch makes a train.Observer of it.
//
// It evaluates the network on the
// training (and test) points, checks the sign assumption, computes Θ̂ and
// adds the interval since the previous observation to the kernel. The
// first call fixes f₀, a and the time origin. Times must increase
// strictly. For a minibatch, the integrand's column j is s·|l'ⱼ|·Θ̂(·, xⱼ)
// for j in batch (s = 1/|batch| for svm.ObjectiveMean) and 0 otherwise; with the Left
// rule this is exactly the first-order update of the step taken with that
// batch, while the Trapezoid rule averages the integrands of consecutive
// batches (exact only in expectation).
func (e *Extractor[T]) Observe(net *ntk.Network[T], t float64, batch []int) error {
	if net == nil || net.D != e.x.Cols || net.Depth < 1 || len(net.W) != net.Depth+1 {
		return fmt.Errorf("%w: network input dimension does not match the data", svm.ErrInput)
	}
	if e.cfg.Decay > 0 && net.B != nil && e.cfg.Target != DecayToInitAll {
		return fmt.Errorf("%w: with Decay > 0 the network must have no biases (the penalty on W_last does not decay them)", svm.ErrInput)
	}
	if e.started && (net.Width != e.width || net.Depth != e.dep) {
		return fmt.Errorf("%w: network shape changed from width %d, depth %d to %d, %d", svm.ErrInput, e.width, e.dep, net.Width, net.Depth)
	}
	if math.IsNaN(t) || math.IsInf(t, 0) || (e.started && t <= e.t) {
		return fmt.Errorf("%w: observation time %g must be finite and after %g", svm.ErrInput, t, e.t)
	}
	if batch != nil {
		if len(batch) == 0 {
			return fmt.Errorf("%w: empty batch", svm.ErrInput)
		}
		for _, j := range batch {
			if j < 0 || j >= e.n {
				return fmt.Errorf("%w: batch index %d out of range [0, %d)", svm.ErrInput, j, e.n)
			}
		}
	}
	var err error
	if e.pass, err = extractForward(net, e.pass, e.x); err != nil {
		return err
	}
	if e.nt > 0 {
		if e.pT, err = extractForward(net, e.pT, e.xt); err != nil {
			return err
		}
	}
	first := !e.started
	if first {
		for i, v := range e.pass.F {
			e.f0[i] = float64(v)
		}
		if e.nt > 0 {
			for i, v := range e.pT.F {
				e.f0t[i] = float64(v)
			}
		}
	}
	sub := 0.0
	if e.cfg.SubtractInit {
		sub = 1
	}
	for i, v := range e.pass.F {
		e.g[i] = float64(v) - sub*e.f0[i]
	}
	if e.nt > 0 {
		for i, v := range e.pT.F {
			e.gt[i] = float64(v) - sub*e.f0t[i]
		}
	}
	if err := e.weights(batch, first, t); err != nil {
		return err
	}
	if first {
		copy(e.g0, e.g)
		copy(e.g0t, e.gt)
	}
	switch e.cfg.Target {
	case DecayToInit:
		e.drift(net, first, t-e.t)
	case DecayToInitAll:
		if err := e.driftAll(net, first, t-e.t); err != nil {
			return err
		}
	}
	// The integrand at t (without the e^{λt} factor, which is carried by
	// rescaling the running sum: acc holds K at the last observation).
	if net.Depth > 1 && e.th.Rows == 0 {
		e.th = linalg.New[T](e.n, e.n)
		if e.nt > 0 {
			e.thT = linalg.New[T](e.nt, e.n)
		}
	}
	tp, err := e.grams(net, e.pass, e.pass, e.xx, e.dd, e.aa, e.th)
	if err != nil {
		return err
	}
	h := t - e.t
	e.advanceSym(tp.symmetric(), first, h)
	// The Θ̂ just assembled is the next observation's previous one; its
	// matrix (dd or th) is the next grams' scratch.
	if net.Depth == 1 {
		e.dd, e.thp = e.thp, e.dd
	} else {
		e.th, e.thp = e.thp, e.th
	}
	if e.nt > 0 {
		if tp, err = e.grams(net, e.pT, e.pass, e.xtx, e.ddT, e.aaT, e.thT); err != nil {
			return err
		}
		e.advance(e.accT, e.prvT, tp, first, h)
	}
	if first {
		e.t0 = t
		e.width, e.dep = net.Width, net.Depth
		e.started = true
	} else {
		e.step++
	}
	e.t = t
	return nil
}

// drift integrates the DecayToInit term λ·c_t, c_t(x) = σ_w·W_last,0·
// (h_t(x) − h₀(x))/√m, by the same quadrature as the kernel.
func (e *Extractor[T]) drift(net *ntk.Network[T], first bool, h float64) {
	m := net.Width
	sc := net.WeightStd / math.Sqrt(float64(m))
	if first {
		e.wl0 = make([]float64, m)
		for i, v := range net.W[net.Depth].Data[:m] {
			e.wl0[i] = float64(v)
		}
		e.h0, e.c, e.cacc = make([]float64, e.n*m), make([]float64, e.n), make([]float64, e.n)
		e.h0t, e.ct, e.cacT = make([]float64, e.nt*m), make([]float64, e.nt), make([]float64, e.nt)
	}
	decay := math.Exp(-e.cfg.Decay * h)
	wp, wc := h/2, h/2
	if e.cfg.Rule == Left {
		wp, wc = h, 0
	}
	lam := e.cfg.Decay
	one := func(p *ntk.Pass[T], h0, c, acc []float64) {
		a := p.A[net.Depth]
		for i := range c {
			row := a.Data[i*a.Stride : i*a.Stride+m]
			h0r := h0[i*m : (i+1)*m]
			var s float64
			for j, v := range row {
				if first {
					h0r[j] = float64(v)
				}
				s += e.wl0[j] * (float64(v) - h0r[j])
			}
			s *= sc
			if !first {
				acc[i] = decay*(acc[i]+wp*lam*c[i]) + wc*lam*s
			}
			c[i] = s
		}
	}
	one(e.pass, e.h0, e.c, e.cacc)
	if e.nt > 0 {
		one(e.pT, e.h0t, e.ct, e.cacT)
	}
}

// forwardInto runs the network on x, reusing p's buffers.
func extractForward[T linalg.Float](net *ntk.Network[T], p *ntk.Pass[T], x linalg.Matrix[T]) (*ntk.Pass[T], error) {
	if p == nil {
		return net.Forward(x)
	}
	return p, net.ForwardInto(p, x)
}

// weights sets the column weights s·|l'ⱼ| of the integrand at this state,
// the signs a at the first observation, and records sign breaks. batch
// has been checked.
func (e *Extractor[T]) weights(batch []int, first bool, t float64) error {
	s := 1.0
	for j := range e.w {
		e.w[j] = 0
	}
	mark := func(j int) {
		d := e.cfg.Loss.Deriv(e.g[j], e.y[j])
		if first {
			e.d0[j] = d
			switch {
			case e.cfg.AuthorsCode:
				e.a[j] = math.Copysign(1, e.y[j])
				if e.y[j] == 0 {
					e.a[j] = 0
				}
			case d > 0:
				e.a[j] = -1
			case d < 0:
				e.a[j] = 1
			}
		} else if !e.broken[j] && signBreak(e.d0[j], d, e.cfg.AuthorsCode) {
			e.broken[j] = true
			e.breaks = append(e.breaks, SignBreak{Index: j, Step: e.step + 1, T: t - e.t0, Initial: e.d0[j], Now: d})
		}
		if e.cfg.AuthorsCode {
			d = 1
		}
		e.w[j] = math.Abs(d)
	}
	// Every point's sign is checked, whether or not it is in the batch.
	for j := range e.n {
		mark(j)
	}
	if batch == nil {
		if e.cfg.Objective == svm.ObjectiveMean {
			s = 1 / float64(e.n)
		}
		for j := range e.w {
			e.w[j] *= s
		}
		return nil
	}
	if e.cfg.Objective == svm.ObjectiveMean {
		s = 1 / float64(len(batch))
	} else {
		s = float64(e.n) / float64(len(batch))
	}
	in := make([]float64, e.n)
	for _, j := range batch {
		in[j] += s // a repeated index counts twice, as in the step
	}
	for j := range e.w {
		e.w[j] *= in[j]
	}
	return nil
}

// signBreak reports whether the derivative d breaks the representation
// fixed by the initial derivative d0: a sign flip between nonzero values,
// or d ≠ 0 after d0 = 0. In AuthorsCode mode, where every |l'| is taken
// as 1, a derivative that becomes 0 (a point past the margin) breaks it too.
func signBreak(d0, d float64, authors bool) bool {
	if authors {
		return extractSign(d) != extractSign(d0)
	}
	return d != 0 && extractSign(d) != extractSign(d0)
}

func extractSign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// rule returns the factors of one interval of the quadrature, h long:
// the decay e^{−λh} and the weights of the previous and the current
// integrand.
func (e *Extractor[T]) rule(h float64) (decay, wp, wc float64) {
	decay = math.Exp(-e.cfg.Decay * h)
	wp, wc = h/2, h/2
	if e.cfg.Rule == Left {
		wp, wc = h, 0
	}
	return decay, wp, wc
}

// advance moves the running kernel acc from the last observation to this
// one, h later: acc ← e^{−λh}·(acc + h/2·prev) + h/2·cur (Trapezoid) or
// e^{−λh}·(acc + h·prev) (Left), where cur = Θ̂ with its columns scaled by
// the current weights; prev ← cur. Θ̂ is assembled here from the parts
// grams left (see thetaParts), in the same pass over memory. It serves
// the test×training block; advanceSym the training×training one.
func (e *Extractor[T]) advance(acc, prev []float64, tp thetaParts[T], first bool, h float64) {
	cols := e.n
	decay, wp, wc := e.rule(h)
	row := make([]T, cols)
	for i := range acc[:len(acc)/cols] {
		tp.row(row, i)
		a, p := acc[i*cols:(i+1)*cols], prev[i*cols:(i+1)*cols]
		for j, v := range row {
			c := float64(v) * e.w[j]
			if !first {
				a[j] = decay*(a[j]+wp*p[j]) + wc*c
			}
			p[j] = c
		}
	}
}

// thetaParts holds Θ̂ as grams leaves it: the output layer's term
// s²_L·A_L A_Lᵀ + σ_b² (its Δ is 1), plus either the first layer's
// s²_0·(Δ_0Δ_0ᵀ) ⊙ (X Xᵀ) + σ_b²·Δ_0Δ_0ᵀ (one hidden layer) or the sum
// of all hidden layers' terms in th (several).
type thetaParts[T linalg.Float] struct {
	oneHidden   bool
	dd, x12, aa linalg.Matrix[T]
	th          linalg.Matrix[T]
	s0, sL, sb2 T
}

// advanceSym is advance on training×training, e.acc, for the symmetric Θ̂
// th (from thetaParts.symmetric). The previous integrand is not stored:
// its element (i, j) is recomputed as Θ̂_prev(i, j)·w_prev[j] from e.thp
// and e.wprev, the same product advance stores, so the running kernel is
// bitwise the same while the pass reads a symmetric matrix of T instead
// of reading and writing an n×n of float64. The caller makes th the next
// e.thp; here e.wprev ← w.
func (e *Extractor[T]) advanceSym(th linalg.Matrix[T], first bool, h float64) {
	n := e.n
	decay, wp, wc := e.rule(h)
	if !first {
		for i := range n {
			row := th.Data[i*th.Stride : i*th.Stride+n]
			pr := e.thp.Data[i*e.thp.Stride : i*e.thp.Stride+n]
			a, w, wv := e.acc[i*n:(i+1)*n], e.w[:n], e.wprev[:n]
			for j, v := range row {
				c := float64(v) * w[j]
				p := float64(pr[j]) * wv[j]
				a[j] = decay*(a[j]+wp*p) + wc*c
			}
		}
	}
	copy(e.wprev, e.w)
}

// symRows is how many rows of Θ̂ symmetric assembles before it mirrors
// them (linalg.MirrorLower, whose tiles are as tall), while they are in
// cache.
const symRows = 256

// symmetric assembles Θ̂ on training×training from the lower triangles
// grams left, into the lower triangle of dd (one hidden layer) or th
// (several), each element being read before it is written, and mirrors it
// onto the upper triangle once, a block of symRows rows at a time while
// the block is in cache. It returns that matrix.
func (tp thetaParts[T]) symmetric() linalg.Matrix[T] {
	dst := tp.th
	if tp.oneHidden {
		dst = tp.dd
	}
	n, ld := dst.Rows, dst.Stride
	for i0 := 0; i0 < n; i0 += symRows {
		i1 := min(i0+symRows, n)
		for i := i0; i < i1; i++ {
			tp.row(dst.Data[i*ld:i*ld+i+1], i)
		}
		linalg.MirrorLower(dst, i0, i1, 0, i1)
	}
	return dst
}

// row writes the first len(dst) elements of row i of Θ̂ into dst, which
// may be those of row i of dd or th (each element is read before it is
// written).
func (tp thetaParts[T]) row(dst []T, i int) {
	n := len(dst)
	ar := tp.aa.Data[i*tp.aa.Stride : i*tp.aa.Stride+n]
	if tp.oneHidden {
		dr := tp.dd.Data[i*tp.dd.Stride : i*tp.dd.Stride+n]
		xr := tp.x12.Data[i*tp.x12.Stride : i*tp.x12.Stride+n]
		for j := range dst {
			dst[j] = tp.s0*dr[j]*xr[j] + tp.sb2*dr[j] + tp.sL*ar[j] + tp.sb2
		}
		return
	}
	tr := tp.th.Data[i*tp.th.Stride : i*tp.th.Stride+n]
	for j := range dst {
		dst[j] = tr[j] + tp.sL*ar[j] + tp.sb2
	}
}

// theta writes Θ̂(X1, X2) into th for the passes p1 (rows) and p2
// (columns); see grams. When p1 is p2 it assembles the lower triangle
// and mirrors it onto the upper one.
func (e *Extractor[T]) theta(net *ntk.Network[T], p1, p2 *ntk.Pass[T], x12, dd, aa, th linalg.Matrix[T]) error {
	tp, err := e.grams(net, p1, p2, x12, dd, aa, th)
	if err != nil {
		return err
	}
	same := p1 == p2
	for i := range th.Rows {
		cols := th.Cols
		if same {
			cols = i + 1
		}
		tp.row(th.Data[i*th.Stride:i*th.Stride+cols], i)
	}
	if same {
		linalg.MirrorLower(th, 0, th.Rows, 0, th.Rows)
	}
	return nil
}

// grams computes the per-layer products of Θ̂(X1, X2) for the passes p1
// (rows) and p2 (columns) by the identity
//
//	Θ̂ = Σ_l (σ_w²/fan_in_l)·(Δ_l Δ_lᵀ) ⊙ (A_l A_lᵀ) + σ_b²·Δ_l Δ_lᵀ,
//
// using the precomputed input product x12 = X1·X2ᵀ for layer 0, the Gram
// (symmetric) products when p1 is p2, and Δ = 1 for the output layer. With
// several hidden layers their terms are summed into th; dd and aa are
// scratch. When p1 is p2 everything is symmetric and only the lower
// triangles (j ≤ i) of dd, aa and th are computed, and only that of x12
// is read: thetaParts.symmetric (or theta) assembles Θ̂ from them.
func (e *Extractor[T]) grams(net *ntk.Network[T], p1, p2 *ntk.Pass[T], x12, dd, aa, th linalg.Matrix[T]) (thetaParts[T], error) {
	same := p1 == p2
	d1, err := extractDeltas(net, p1, &e.dbuf[0])
	if err != nil {
		return thetaParts[T]{}, err
	}
	d2 := d1
	if !same {
		if d2, err = extractDeltas(net, p2, &e.dbuf[1]); err != nil {
			return thetaParts[T]{}, err
		}
	}
	scale := func(l int) T {
		fan := net.Width
		if l == 0 {
			fan = net.D
		}
		return T(net.WeightStd * net.WeightStd / float64(fan))
	}
	tp := thetaParts[T]{oneHidden: net.Depth == 1, dd: dd, x12: x12, aa: aa, th: th,
		s0: scale(0), sL: scale(net.Depth), sb2: T(net.BiasStd * net.BiasStd)}
	for l := 0; l < net.Depth; l++ {
		if err := extractGram(d1[l], d2[l], dd, same); err != nil {
			return tp, err
		}
		if tp.oneHidden {
			break
		}
		prod := x12
		if l > 0 {
			if err := extractGram(p1.A[l], p2.A[l], aa, same); err != nil {
				return tp, err
			}
			prod = aa
		}
		s2 := scale(l)
		for i := range th.Rows {
			cols := th.Cols
			if same {
				cols = i + 1 // the lower triangle
			}
			tr := th.Data[i*th.Stride : i*th.Stride+cols]
			pr := prod.Data[i*prod.Stride : i*prod.Stride+cols]
			dr := dd.Data[i*dd.Stride : i*dd.Stride+cols]
			if l == 0 { // the first layer writes, the others add
				for j := range tr {
					tr[j] = s2*dr[j]*pr[j] + tp.sb2*dr[j]
				}
				continue
			}
			for j := range tr {
				tr[j] += s2*dr[j]*pr[j] + tp.sb2*dr[j]
			}
		}
	}
	err = extractGram(p1.A[net.Depth], p2.A[net.Depth], aa, same)
	return tp, err
}

// extractGram sets c = a·bᵀ; when a is b (same), only the lower triangle
// of the symmetric product (linalg.SyrkLower), which is all grams reads of
// it. The upper triangle is left as it was.
func extractGram[T linalg.Float](a, b, c linalg.Matrix[T], same bool) error {
	if same {
		return linalg.SyrkLower(1, a, 0, c)
	}
	return linalg.CrossGram(a, b, c)
}

// deltas returns Δ_l = ∂f/∂z^{l+1} for every sample (n × out_l) for the
// hidden layers l = 0…Depth−1 (the output layer's is 1), by
// back-propagating a cotangent of 1 per sample without summing. *buf
// holds the matrices between calls.
func extractDeltas[T linalg.Float](net *ntk.Network[T], p *ntk.Pass[T], buf *[]linalg.Matrix[T]) ([]linalg.Matrix[T], error) {
	n := len(p.F)
	if len(*buf) != net.Depth+1 || (*buf)[net.Depth].Rows != n || (net.Depth > 0 && (*buf)[0].Cols != net.Width) {
		*buf = make([]linalg.Matrix[T], net.Depth+1)
		for l := range net.Depth {
			(*buf)[l] = linalg.New[T](n, net.W[l+1].Cols)
		}
		ones := linalg.New[T](n, 1)
		for i := range ones.Data {
			ones.Data[i] = 1
		}
		(*buf)[net.Depth] = ones
	}
	d := *buf
	for l := net.Depth; l >= 1; l-- {
		in := net.W[l].Cols
		ga := d[l-1]
		sc := T(net.WeightStd / math.Sqrt(float64(net.Width)))
		if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, sc, d[l], net.W[l], 0, ga); err != nil {
			return nil, err
		}
		z := p.Z[l-1]
		for i := range n {
			gr := ga.Data[i*ga.Stride : i*ga.Stride+in]
			zr := z.Data[i*z.Stride : i*z.Stride+in]
			for j, v := range zr {
				if !(v > 0) {
					gr[j] = 0
				}
			}
		}
	}
	return d, nil
}

// Weights returns a, aᵢ = −sign(l'(f₀(xᵢ), yᵢ)) (yᵢ in AuthorsCode mode;
// 0 where l'₀ = 0). The slice is the Extractor's; do not modify it.
func (e *Extractor[T]) Weights() []float64 { return e.a }

// Time returns the time T of the last observation since the first.
func (e *Extractor[T]) Time() float64 { return e.t - e.t0 }

// Kernel returns copies of K_T on training×training (n×n, row i is
// K_T(xᵢ, ·)) and test×training (n*×n; the zero Matrix without a test set).
// K_T includes the objective scale s and the weights |l'|, so the kernel
// machine is K_T·a + b.
func (e *Extractor[T]) Kernel() (train, test linalg.Matrix[float64]) {
	train, _ = linalg.FromSlice(e.n, e.n, append([]float64(nil), e.acc...))
	if e.nt > 0 {
		test, _ = linalg.FromSlice(e.nt, e.n, append([]float64(nil), e.accT...))
	}
	return train, test
}

// Offset returns b on the training and test points in the reported units:
// with g = f − c·f₀ the reported output (c = 1 with SubtractInit) and u the
// decay target in those units (f₀ − c·f₀ for DecayToInit, −c·f₀ for
// DecayToZero), the dynamics dg/dt = −λ(g − u) − s·Σ l'Θ̂ integrate to
//
//	b = e^{−λT}·g₀ + (1 − e^{−λT})·u.
//
// (b = 0 in AuthorsCode mode.) On raw outputs with DecayToZero this is
// the theorem's b = e^{−λT}f₀;
// with f₀ subtracted and the paper's penalty (DecayToZero) it is
// b = −(1 − e^{−λT})·f₀.
//
// With DecayToInit, b also holds the integral of the hidden-feature term,
// e^{−λT}∫₀ᵀ λ·c_t(x)·e^{λt} dt (see DecayToInit), and with DecayToInitAll
// that of the linearisation residual ρ_t (see DecayToInitAll): with f₀ subtracted b is
// that term alone, not 0, and it depends on the run (so the bound's
// argument that b is a fixed function does not apply). It is known on
// the training and test points only.
func (e *Extractor[T]) Offset() (train, test []float64) {
	return e.offset(e.g0, e.f0, e.cacc), e.offset(e.g0t, e.f0t, e.cacT)
}

func (e *Extractor[T]) offset(g0, f0, drift []float64) []float64 {
	q := math.Exp(-e.cfg.Decay * (e.t - e.t0))
	b := make([]float64, len(g0))
	if e.cfg.AuthorsCode {
		return b
	}
	for i := range b {
		var u float64
		if e.cfg.Target != DecayToZero {
			u = f0[i]
		}
		if e.cfg.SubtractInit {
			u -= f0[i]
		}
		b[i] = q*g0[i] + (1-q)*u
		if drift != nil {
			b[i] += drift[i]
		}
	}
	return b
}

// Report returns the network's outputs at the last observation, the
// kernel machine's K_T a + b beside them, their differences and the sign
// breaks so far. It returns an error before the first observation.
func (e *Extractor[T]) Report() (*Report, error) {
	if !e.started {
		return nil, fmt.Errorf("%w: no observation yet", svm.ErrInput)
	}
	bt, bs := e.Offset()
	r := &Report{Step: e.step, T: e.t - e.t0,
		TrainNN: append([]float64(nil), e.g...), TrainKM: e.machine(e.acc, e.n, bt)}
	r.TrainMaxAbs, r.TrainRMS = extractDiff(r.TrainNN, r.TrainKM)
	for _, v := range e.cacc {
		r.DriftMaxAbs = max(r.DriftMaxAbs, math.Abs(v))
	}
	if e.nt > 0 {
		r.TestNN, r.TestKM = append([]float64(nil), e.gt...), e.machine(e.accT, e.nt, bs)
		r.TestMaxAbs, r.TestRMS = extractDiff(r.TestNN, r.TestKM)
	}
	r.SignBreaks = append([]SignBreak(nil), e.breaks...)
	return r, nil
}

// machine returns K a + b for the rows of the running kernel k.
func (e *Extractor[T]) machine(k []float64, rows int, b []float64) []float64 {
	out := make([]float64, rows)
	for i := range rows {
		s := b[i]
		for j, v := range k[i*e.n : (i+1)*e.n] {
			s += v * e.a[j]
		}
		out[i] = s
	}
	return out
}

// diffStats returns max |a − b| and the root mean square of a − b.
func extractDiff(a, b []float64) (maxAbs, rms float64) {
	if len(a) == 0 {
		return 0, 0
	}
	var ss float64
	for i := range a {
		d := a[i] - b[i]
		maxAbs = max(maxAbs, math.Abs(d))
		ss += d * d
	}
	return maxAbs, math.Sqrt(ss / float64(len(a)))
}
