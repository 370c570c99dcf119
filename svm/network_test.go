package svm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

var allLosses = []Loss{Hinge, SquaredHinge, Squared, EpsInsensitiveLoss(0.2), Logistic}

// netData returns n Gaussian points in d dimensions with targets for l:
// labels sign(x·u) for a classification loss, tanh(x·u) otherwise.
func netData(rng *rand.Rand, n, d int, l Loss) (linalg.Matrix[float64], []float64) {
	u := make([]float64, d)
	for i := range u {
		u[i] = rng.NormFloat64() / math.Sqrt(float64(d))
	}
	x := linalg.New[float64](n, d)
	y := make([]float64, n)
	for i := range n {
		var s float64
		for j := range d {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			s += v * u[j]
		}
		y[i] = math.Tanh(s)
		if l.Classification() {
			y[i] = 1
			if s < 0 {
				y[i] = -1
			}
		}
	}
	return x, y
}

func mustNet[T linalg.Float](t testing.TB, d, m, depth int, sw, sb float64, seed uint64) *ntk.Network[T] {
	t.Helper()
	net, err := ntk.NewNetwork[T](d, m, depth, sw, sb, seed)
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// objectiveAt is the batch objective R(w) + s_B·Σ_{i∈B} l(f(xᵢ; w) − f0ᵢ, yᵢ)
// computed from scratch (f0 nil: no subtraction).
func objectiveAt(net *ntk.Network[float64], w0 *ntk.Network[float64], x linalg.Matrix[float64], y, f0 []float64, batch []int, cfg NetworkConfig) float64 {
	p, err := net.Forward(x)
	if err != nil {
		panic(err)
	}
	n := x.Rows
	sB := 1 / float64(len(batch))
	if cfg.Objective == Sum {
		sB = float64(n) / float64(len(batch))
	}
	var loss float64
	for _, i := range batch {
		h := p.F[i]
		if f0 != nil {
			h -= f0[i]
		}
		loss += cfg.Loss.Value(h, y[i])
	}
	L := net.Depth
	var r float64
	switch cfg.Reg {
	case RegPaper:
		for _, v := range net.W[L].Data {
			r += v * v / float64(net.Width)
		}
	case RegTheory, RegLastLayer:
		for l := range net.W {
			if cfg.Reg == RegLastLayer && l < L {
				continue
			}
			for j, v := range net.W[l].Data {
				d := v - w0.W[l].Data[j]
				r += d * d
			}
			if net.B != nil {
				for j, v := range net.B[l] {
					d := v - w0.B[l][j]
					r += d * d
				}
			}
		}
	}
	return cfg.Lambda/2*r + sB*loss
}

// nearKink reports whether output h with target y is within tol of a kink
// of the loss, where a finite difference is meaningless.
func nearKink(l Loss, h, y, tol float64) bool {
	switch l.kind {
	case lossHinge, lossSquaredHinge:
		return math.Abs(y*h-1) < tol
	case lossEpsInsensitive:
		return math.Abs(math.Abs(y-h)-l.Epsilon) < tol
	}
	return false
}

// TestNetworkStepGradient: one step is W ← W − η∇J with ∇J the central
// finite difference of the batch objective J (loss and penalty), for every
// loss, penalty, objective, full and minibatch, with and without f₀
// subtraction and biases.
func TestNetworkStepGradient(t *testing.T) {
	type arch struct {
		d, m, L int
		sw, sb  float64
	}
	for _, a := range []arch{{3, 5, 2, 1.2, 0}, {3, 4, 1, 1, 0.5}} {
		for _, loss := range allLosses {
			rng := rand.New(rand.NewPCG(3, uint64(loss.kind)))
			const n = 6
			x, y := netData(rng, n, a.d, loss)
			for _, reg := range []Regularization{RegPaper, RegTheory, RegLastLayer, RegNone} {
				for _, obj := range []Objective{Sum, Mean} {
					for _, batch := range [][]int{{0, 1, 2, 3, 4, 5}, {4, 1, 3}} {
						for _, keep := range []bool{false, true} {
							name := fmt.Sprintf("L=%d,sb=%v/%v/%v/%v/B=%d/keepF0=%v", a.L, a.sb, loss, reg, obj, len(batch), keep)
							t.Run(name, func(t *testing.T) {
								cfg := NetworkConfig{Loss: loss, Lambda: 0.7, Objective: obj, Reg: reg, KeepF0: keep}
								checkStepGradient(t, a.d, a.m, a.L, a.sw, a.sb, x, y, batch, cfg)
							})
						}
					}
				}
			}
		}
	}
}

func checkStepGradient(t *testing.T, d, m, depth int, sw, sb float64, x linalg.Matrix[float64], y []float64, batch []int, cfg NetworkConfig) {
	net := mustNet[float64](t, d, m, depth, sw, sb, 21)
	w0 := mustNet[float64](t, d, m, depth, sw, sb, 21)
	s, err := NewNetworkStepper(net, x, y, linalg.Matrix[float64]{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var f0 []float64
	if !cfg.KeepF0 {
		p, err := w0.Forward(x)
		if err != nil {
			t.Fatal(err)
		}
		f0 = p.F
		if got, _ := s.F0(); !slices.Equal(got, f0) {
			t.Fatalf("stored f₀ %v, want %v", got, f0)
		}
	}
	// Move away from the initial state so that the losses sit in various
	// regimes (f₀ subtraction starts every output at 0).
	all := []int{0, 1, 2, 3, 4, 5}
	for range 3 {
		if err := s.Step(all, 0.2); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := s.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range batch {
		if nearKink(cfg.Loss, ev.Train[i], y[i], 1e-3) {
			t.Fatalf("setup: point %d is at a kink of the loss (output %v, target %v)", i, ev.Train[i], y[i])
		}
	}
	if want := objectiveAt(net, w0, x, y, f0, all, cfg); math.Abs(ev.Objective-want) > 1e-12*max(1, math.Abs(want)) {
		t.Fatalf("Evaluate objective %v, want %v", ev.Objective, want)
	}
	before := cloneNet(net)
	const eta = 1e-3
	if err := s.Step(batch, eta); err != nil {
		t.Fatal(err)
	}
	const h = 1e-6
	check := func(what string, w, wb, wa []float64) {
		for i := range w {
			old := w[i]
			w[i] = old + h
			up := objectiveAt(before, w0, x, y, f0, batch, cfg)
			w[i] = old - h
			down := objectiveAt(before, w0, x, y, f0, batch, cfg)
			w[i] = old
			fd := (up - down) / (2 * h)
			got := (wb[i] - wa[i]) / eta
			// Central differences: O(h²) truncation, and J's rounding
			// amplified by 1/h.
			if math.Abs(fd-got) > 2e-6*max(1, math.Abs(fd))+1e-9*math.Abs(up) {
				t.Fatalf("%s[%d]: step gives gradient %.9g, finite difference %.9g", what, i, got, fd)
			}
		}
	}
	for l := range net.W {
		check(fmt.Sprintf("W[%d]", l), before.W[l].Data, slices.Clone(before.W[l].Data), net.W[l].Data)
		if net.B != nil {
			check(fmt.Sprintf("B[%d]", l), before.B[l], slices.Clone(before.B[l]), net.B[l])
		}
	}
}

func cloneNet[T linalg.Float](net *ntk.Network[T]) *ntk.Network[T] {
	c := *net
	c.W = make([]linalg.Matrix[T], len(net.W))
	for l, w := range net.W {
		c.W[l] = w.Clone()
	}
	if net.B != nil {
		c.B = make([][]T, len(net.B))
		for l, b := range net.B {
			c.B[l] = slices.Clone(b)
		}
	}
	return &c
}

// TestNetworkPenaltyFunctionSpace: with the loss gradient switched off
// (squared loss at its targets) and the hidden layers at W_0, one step of
// the theory and last-layer penalties moves the outputs by exactly
// −ηλ(f − f₀), and the paper penalty by −(ηλ/m)·f.
func TestNetworkPenaltyFunctionSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const d, m, n = 4, 64, 5
	x, _ := netData(rng, n, d, Squared)
	for _, reg := range []Regularization{RegTheory, RegLastLayer, RegPaper} {
		net := mustNet[float64](t, d, m, 1, 1, 0, 9)
		// Move the last layer off W_last,0, then make the targets the
		// current outputs so that l' = 0 and only the penalty acts.
		for j := range net.W[1].Data {
			net.W[1].Data[j] += 0.3 * rng.NormFloat64()
		}
		w0 := mustNet[float64](t, d, m, 1, 1, 0, 9)
		p0, _ := w0.Forward(x)
		p1, _ := net.Forward(x)
		y := make([]float64, n)
		for i := range y {
			y[i] = p1.F[i] - p0.F[i]
		}
		s, err := NewNetworkStepper(net, x, y, linalg.Matrix[float64]{}, NetworkConfig{Loss: Squared, Lambda: 0.5, Reg: reg, KeepF0: true})
		if err != nil {
			t.Fatal(err)
		}
		// The stepper took the moved net as W_0; give it the true W_last,0.
		if s.w0 != nil {
			copy(s.w0[1], w0.W[1].Data)
		}
		s.f0 = p0.F
		const eta = 0.1
		if err := s.Step([]int{0, 1, 2, 3, 4}, eta); err != nil {
			t.Fatal(err)
		}
		p2, _ := net.Forward(x)
		for i := range n {
			var want float64
			if reg != RegPaper {
				want = p1.F[i] - eta*0.5*(p1.F[i]-p0.F[i])
			} else {
				want = p1.F[i] - eta*0.5/m*p1.F[i]
			}
			if math.Abs(p2.F[i]-want) > 1e-12 {
				t.Errorf("%v: f after the step %.15g, want %.15g", reg, p2.F[i], want)
			}
		}
	}
}

// gapRun trains a width-m network (theory penalty, f₀ subtracted, full
// batch) and the kernel machine of Train on its empirical NTK at W_0, and
// on the analytic NTK, for steps steps, and returns the largest output
// difference over the steps and all training and evaluation points,
// relative to the largest kernel-machine output.
type gaps struct {
	emp, an float64 // max |f − g| over steps and points / scale, for Θ̂(W_0) and Θ
	scale   float64 // max |g| over steps and points
	kick    float64 // η·s·max Θ̂ᵢᵢ: one training point's step on the outputs
}

func gapRun(t *testing.T, loss Loss, reg Regularization, m, steps int, eta float64) gaps {
	rng := rand.New(rand.NewPCG(17, 4))
	const d, n, nt = 8, 24, 6
	xa, ya := netData(rng, n+nt, d, loss)
	x, y := xa.Slice(0, n, 0, d), ya[:n]
	xt := xa.Slice(n, n+nt, 0, d)
	net := mustNet[float64](t, d, m, 1, 1, 0, 33)
	const lambda = 0.01
	cfg := NetworkConfig{Loss: loss, Lambda: lambda, Objective: Mean, Reg: reg}
	kEmp, err := net.EmpiricalNTK(x, x)
	if err != nil {
		t.Fatal(err)
	}
	kEmpT, err := net.EmpiricalNTK(xt, x)
	if err != nil {
		t.Fatal(err)
	}
	kAn, err := ntk.NTK(x, net.Params())
	if err != nil {
		t.Fatal(err)
	}
	kAnT, err := ntk.CrossNTK(xt, x, net.Params())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewNetworkStepper(net, x, y, xt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	nnOut := make([][]float64, 0, steps+1)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for step := 0; ; step++ {
		ev, err := s.Evaluate()
		if err != nil {
			t.Fatal(err)
		}
		nnOut = append(nnOut, append(slices.Clone(ev.Train), ev.Test...))
		if step == steps {
			break
		}
		if err := s.Step(all, eta); err != nil {
			t.Fatal(err)
		}
	}
	km := func(k, kt linalg.Matrix[float64]) [][]float64 {
		var out [][]float64
		cfg := Config{Loss: loss, Lambda: lambda, Objective: Mean, LR: eta, Steps: steps,
			Test: &EvalSet{K: NewDense(kt), Y: make([]float64, nt)}, TrackTrain: all, TrackTest: []int{0, 1, 2, 3, 4, 5}}
		if loss.Classification() {
			for i := range cfg.Test.Y {
				cfg.Test.Y[i] = 1
			}
		}
		cfg.LogAt = make([]int, steps)
		for i := range cfg.LogAt {
			cfg.LogAt[i] = i + 1
		}
		cfg.Log = func(p *Progress) error {
			out = append(out, append(slices.Clone(p.TrainOut), p.TestOut...))
			return nil
		}
		res, err := Train(context.Background(), NewDense(k), y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		test := make([]float64, nt)
		if err := res.Machine.Predict(test, NewDense(kt)); err != nil {
			t.Fatal(err)
		}
		return append(out, append(slices.Clone(res.Outputs), test...))
	}
	gEmp, gAn := km(kEmp, kEmpT), km(kAn, kAnT)
	var r gaps
	for k := range nnOut {
		for i, v := range nnOut[k] {
			r.emp = max(r.emp, math.Abs(v-gEmp[k][i]))
			r.an = max(r.an, math.Abs(v-gAn[k][i]))
			r.scale = max(r.scale, math.Abs(gEmp[k][i]))
		}
	}
	r.emp /= r.scale
	r.an /= r.scale
	for i := range n {
		r.kick = max(r.kick, eta/n*kEmp.At(i, i))
	}
	return r
}

// TestNetworkMatchesKernelMachine: a wide network trained with the theory
// penalty follows the kernel machine on its empirical NTK at W_0 (paper
// eqs. 8–9 with Θ̂(W_t) ≈ Θ̂(W_0)) for every loss, and the gap shrinks
// with the width.
//
// Tolerances. For the smooth losses (squared, squared hinge, logistic;
// paper Theorem 3.5 assumes a β-smooth loss) the gap comes from Θ̂(W_t) −
// Θ̂(W_0) and ⟨∇f(W_t) − ∇f(W_0), W_t − W_0⟩, both O(1/√m) = 0.0078 at
// m = 2¹⁴; with η = 1 for 100 steps (t = 100, outputs of size 1–2.5) it
// is measured at 0.0013–0.0052 relative (0.006–0.043 at m = 2¹⁰), so 2/√m
// leaves a factor 3. For hinge and ε-insensitive the derivative jumps at a
// kink: when one output crosses it a step earlier or later in the network
// than in the machine, the two differ by one kick η·s·Θ̂ᵢᵢ, whatever the
// width. Their bound is 2/√m plus three kicks (measured: 2.8 kicks for
// ε-insensitive at η = 0.25, m-independent; hence η = 0.1 for it and
// 0.25 for hinge, where the width effect still shows).
func TestNetworkMatchesKernelMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("wide networks")
	}
	const steps = 100
	const mWide, mNarrow = 1 << 14, 1 << 10
	for _, loss := range allLosses {
		t.Run(loss.String(), func(t *testing.T) {
			eta, smooth := 1.0, true
			switch loss.kind {
			case lossHinge:
				eta, smooth = 0.25, false
			case lossEpsInsensitive:
				eta, smooth = 0.1, false
			}
			w := gapRun(t, loss, RegTheory, mWide, steps, eta)
			nw := gapRun(t, loss, RegTheory, mNarrow, steps, eta)
			tol := 2 / math.Sqrt(mWide)
			if !smooth {
				tol += 3 * w.kick / w.scale
			}
			t.Logf("η=%v, max |g| = %.3f; max |f − g|/max |g| at m=2^14: empirical NTK %.5f (tolerance %.5f), analytic NTK %.5f; at m=2^10: empirical %.5f, analytic %.5f",
				eta, w.scale, w.emp, tol, w.an, nw.emp, nw.an)
			if w.scale < 0.5 {
				t.Errorf("outputs moved only to %.3f", w.scale)
			}
			if w.emp > tol {
				t.Errorf("m=2^14: gap %.5f > %.5f", w.emp, tol)
			}
			if loss.kind == lossEpsInsensitive {
				// The kicks dominate at both widths; the network's
				// approach to the infinite-width machine still shows.
				if nw.an <= 2*w.an {
					t.Errorf("gap to the analytic-NTK machine does not shrink with width: %.5f at m=2^10, %.5f at m=2^14", nw.an, w.an)
				}
			} else if nw.emp <= 1.5*w.emp {
				t.Errorf("gap does not shrink with width: %.5f at m=2^10, %.5f at m=2^14", nw.emp, w.emp)
			}
		})
	}
}

// TestNetworkLastLayerPenaltyMismatch: penalising only the last layer's
// distance to W_last,0 does not give the machine's decay λ(f − f₀), at any
// width: the gap stays O(1) relative where the theory penalty's is 0.001.
func TestNetworkLastLayerPenaltyMismatch(t *testing.T) {
	if testing.Short() {
		t.Skip("wide network")
	}
	theory := gapRun(t, Squared, RegTheory, 1<<14, 100, 1)
	last := gapRun(t, Squared, RegLastLayer, 1<<14, 100, 1)
	t.Logf("squared loss, m=2^14, λ=0.01: relative gap %.5f (theory), %.5f (last-layer)", theory.emp, last.emp)
	if last.emp < 10*theory.emp {
		t.Errorf("last-layer penalty gap %.5f, theory %.5f: expected the last-layer one much larger", last.emp, theory.emp)
	}
}
