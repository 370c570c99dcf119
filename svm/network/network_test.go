package network

import (
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/train"

	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

var allLosses = []svm.Loss{svm.Hinge, svm.SquaredHinge, svm.Squared, svm.EpsInsensitiveLoss(0.2), svm.Logistic}

// netData returns n Gaussian points in d dimensions with targets for l:
// labels sign(x·u) for a classification loss, tanh(x·u) otherwise.
func netData(rng *rand.Rand, n, d int, l svm.Loss) (linalg.Matrix[float64], []float64) {
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
func objectiveAt(net *ntk.Network[float64], w0 *ntk.Network[float64], x linalg.Matrix[float64], y, f0 []float64, batch []int, cfg Config) float64 {
	p, err := net.Forward(x)
	if err != nil {
		panic(err)
	}
	n := x.Rows
	sB := 1 / float64(len(batch))
	if cfg.Objective == svm.ObjectiveSum {
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
func nearKink(l svm.Loss, h, y, tol float64) bool {
	switch l.Name() {
	case "hinge", "squared-hinge":
		return math.Abs(y*h-1) < tol
	case "eps-insensitive":
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
			rng := rand.New(rand.NewPCG(3, uint64(loss.Code())))
			const n = 6
			x, y := netData(rng, n, a.d, loss)
			for _, reg := range []Regularization{RegPaper, RegTheory, RegLastLayer, RegNone} {
				for _, obj := range []svm.Objective{svm.ObjectiveSum, svm.ObjectiveMean} {
					for _, batch := range [][]int{{0, 1, 2, 3, 4, 5}, {4, 1, 3}} {
						for _, keep := range []bool{false, true} {
							name := fmt.Sprintf("L=%d,sb=%v/%v/%v/%v/B=%d/keepF0=%v", a.L, a.sb, loss, reg, obj, len(batch), keep)
							t.Run(name, func(t *testing.T) {
								cfg := Config{Loss: loss, Lambda: 0.7, Objective: obj, Reg: reg, KeepF0: keep}
								checkStepGradient(t, a.d, a.m, a.L, a.sw, a.sb, x, y, batch, cfg)
							})
						}
					}
				}
			}
		}
	}
}

func checkStepGradient(t *testing.T, d, m, depth int, sw, sb float64, x linalg.Matrix[float64], y []float64, batch []int, cfg Config) {
	net := mustNet[float64](t, d, m, depth, sw, sb, 21)
	w0 := mustNet[float64](t, d, m, depth, sw, sb, 21)
	s, err := NewStepper(net, x, y, linalg.Matrix[float64]{}, cfg)
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
	x, _ := netData(rng, n, d, svm.Squared)
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
		s, err := NewStepper(net, x, y, linalg.Matrix[float64]{}, Config{Loss: svm.Squared, Lambda: 0.5, Reg: reg, KeepF0: true})
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

func gapRun(t *testing.T, loss svm.Loss, reg Regularization, m, steps int, eta float64) gaps {
	return gapRunBatch(t, loss, reg, svm.ObjectiveMean, 0, m, steps, eta)
}

// gapRunBatch is gapRun with an objective and minibatches of the given
// size (0: full batch) from one seeded stream per side, the kernel
// machine with svm.DecayExact.
func gapRunBatch(t *testing.T, loss svm.Loss, reg Regularization, obj svm.Objective, batch, m, steps int, eta float64) gaps {
	rng := rand.New(rand.NewPCG(17, 4))
	const d, n, nt = 8, 24, 6
	xa, ya := netData(rng, n+nt, d, loss)
	x, y := xa.Slice(0, n, 0, d), ya[:n]
	xt := xa.Slice(n, n+nt, 0, d)
	net := mustNet[float64](t, d, m, 1, 1, 0, 33)
	const lambda = 0.01
	cfg := Config{Loss: loss, Lambda: lambda, Objective: obj, Reg: reg, Batch: batch}
	var stream *train.BatchStream
	if batch > 0 {
		stream, _ = train.NewBatchStream(n, batch, 77)
	}
	kEmp, err := net.EmpiricalNTK(x, x)
	if err != nil {
		t.Fatal(err)
	}
	kEmpT, err := net.EmpiricalNTK(xt, x)
	if err != nil {
		t.Fatal(err)
	}
	kAn, err := ntk.Gram(context.Background(), net.Spec(), x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kAnT, err := ntk.Cross(context.Background(), net.Spec(), xt, x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStepper(net, x, y, xt, cfg)
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
		b := all
		if stream != nil {
			b, _ = stream.Next()
		}
		if err := s.Step(b, eta); err != nil {
			t.Fatal(err)
		}
	}
	km := func(k, kt linalg.Matrix[float64]) [][]float64 {
		var out [][]float64
		cfg := svm.SubgradientConfig{Loss: loss, Lambda: lambda, Objective: obj, LR: eta, Steps: steps, Decay: svm.DecayExact,
			Test: &svm.EvalSet{K: svm.NewDense(kt), Y: make([]float64, nt)}}
		if loss.Classification() {
			for i := range cfg.Test.Y {
				cfg.Test.Y[i] = 1
			}
		}
		cfg.LogAt = make([]int, steps)
		for i := range cfg.LogAt {
			cfg.LogAt[i] = i + 1
		}
		if batch > 0 {
			cfg.Stream, _ = train.NewBatchStream(n, batch, 77)
		}
		cfg.Recorder = train.RecorderFunc(func(r *train.Record) error {
			if r.Event == train.Evaluated {
				out = append(out, append(slices.Clone(r.Evals[0].Train), r.Evals[0].Test...))
			}
			return nil
		})
		res, err := svm.TrainSubgradient(context.Background(), svm.NewDense(k), y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		test := make([]float64, nt)
		if err := res.Machine.Predict(test, svm.NewDense(kt)); err != nil {
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
	sB := 1.0 / n
	if batch > 0 {
		sB = 1 / float64(batch)
	}
	if obj == svm.ObjectiveSum {
		sB *= n
	}
	for i := range n {
		r.kick = max(r.kick, eta*sB*kEmp.At(i, i))
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
			switch loss.Name() {
			case "hinge":
				eta, smooth = 0.25, false
			case "eps-insensitive":
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
			if loss.Name() == "eps-insensitive" {
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
	theory := gapRun(t, svm.Squared, RegTheory, 1<<14, 100, 1)
	last := gapRun(t, svm.Squared, RegLastLayer, 1<<14, 100, 1)
	t.Logf("squared loss, m=2^14, λ=0.01: relative gap %.5f (theory), %.5f (last-layer)", theory.emp, last.emp)
	if last.emp < 10*theory.emp {
		t.Errorf("last-layer penalty gap %.5f, theory %.5f: expected the last-layer one much larger", last.emp, theory.emp)
	}
}

// runSteps takes k steps on stream's batches (nil: full batch).
func runSteps[T linalg.Float](t *testing.T, s *Stepper[T], stream *train.BatchStream, n, k int, eta float64) {
	t.Helper()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for range k {
		b := all
		if stream != nil {
			b, _ = stream.Next()
		}
		if err := s.Step(b, eta); err != nil {
			t.Fatal(err)
		}
	}
}

func stateRoundTrip[T linalg.Float](t *testing.T, sb float64, reg Regularization, batch int) {
	rng := rand.New(rand.NewPCG(7, 7))
	const d, m, n, nt = 5, 48, 20, 4
	xf, y := netData(rng, n+nt, d, svm.Hinge)
	x := linalg.New[T](n+nt, d)
	for i := range xf.Data {
		x.Data[i] = T(xf.Data[i])
	}
	cfg := Config{Loss: svm.Hinge, Lambda: 0.05, Objective: svm.ObjectiveSum, Reg: reg, Batch: batch}
	build := func(seed uint64) *Stepper[T] {
		s, err := NewStepper(mustNet[T](t, d, m, 2, 1, sb, seed), x.Slice(0, n, 0, d), y[:n], x.Slice(n, n+nt, 0, d), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var stream *train.BatchStream
	if batch > 0 {
		stream, _ = train.NewBatchStream(n, batch, 3)
	}
	a := build(1)
	runSteps(t, a, stream, n, 7, 0.05)
	var buf bytes.Buffer
	if err := a.SaveState(&buf); err != nil {
		t.Fatal(err)
	}
	saved := bytes.Clone(buf.Bytes())
	var stream2 *train.BatchStream
	if batch > 0 {
		// The resumed run sees the same batches: a copy of the stream.
		b, err := stream.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		stream2 = new(train.BatchStream)
		if err := stream2.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
	}
	runSteps(t, a, stream, n, 9, 0.05)
	evA, err := a.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	// A stepper built from another initialisation: the state carries W_0
	// and f₀ as well as W_t.
	b := build(2)
	if err := b.LoadState(bytes.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if b.Steps() != 7 {
		t.Fatalf("loaded step count %d, want 7", b.Steps())
	}
	runSteps(t, b, stream2, n, 9, 0.05)
	evB, err := b.Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	for l := range a.net.W {
		if !bitsEqual(a.net.W[l].Data, b.net.W[l].Data) {
			t.Fatalf("layer %d weights differ after resuming", l)
		}
		if sb != 0 && !bitsEqual(a.net.B[l], b.net.B[l]) {
			t.Fatalf("layer %d biases differ after resuming", l)
		}
	}
	if !bitsEqual(evA.Train, evB.Train) || !bitsEqual(evA.Test, evB.Test) ||
		math.Float64bits(evA.Objective) != math.Float64bits(evB.Objective) {
		t.Fatalf("evaluations differ after resuming: %v %v vs %v %v", evA.Objective, evA.Train, evB.Objective, evB.Train)
	}
	if evA.Objective == 0 || slices.Max(evA.Train) == 0 {
		t.Fatal("setup: training did not move")
	}
}

func bitsEqual[T linalg.Float](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if float64(a[i]) != float64(b[i]) && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
		if math.Signbit(float64(a[i])) != math.Signbit(float64(b[i])) {
			return false
		}
	}
	return true
}

// TestNetworkStateRoundTrip: SaveState mid-run, LoadState into a stepper
// built from other weights, and the continuation is bit-identical.
func TestNetworkStateRoundTrip(t *testing.T) {
	for _, reg := range []Regularization{RegPaper, RegTheory, RegLastLayer} {
		for _, batch := range []int{0, 6} {
			t.Run(fmt.Sprintf("float32/%v/B=%d", reg, batch), func(t *testing.T) { stateRoundTrip[float32](t, 0, reg, batch) })
			t.Run(fmt.Sprintf("float64/sb=0.3/%v/B=%d", reg, batch), func(t *testing.T) { stateRoundTrip[float64](t, 0.3, reg, batch) })
		}
	}
}

// TestNetworkStateErrors: states of another configuration, truncated or
// corrupted states are refused, naming the problem.
func TestNetworkStateErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	x, y := netData(rng, 10, 3, svm.Hinge)
	build := func(cfg Config, m int) *Stepper[float64] {
		s, err := NewStepper(mustNet[float64](t, 3, m, 1, 1, 0, 4), x, y, linalg.Matrix[float64]{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cfg := Config{Loss: svm.Hinge, Lambda: 0.1, Reg: RegTheory}
	a := build(cfg, 16)
	runSteps(t, a, nil, 10, 2, 0.1)
	var buf bytes.Buffer
	if err := a.SaveState(&buf); err != nil {
		t.Fatal(err)
	}
	state := buf.Bytes()
	other := cfg
	other.Loss = svm.Logistic
	lam := cfg
	lam.Lambda = 0.2
	for _, tc := range []struct {
		name string
		s    *Stepper[float64]
		data []byte
		want string
	}{
		{"magic", build(cfg, 16), append([]byte("XXXXXXXX"), state[8:]...), "magic"},
		{"loss", build(other, 16), state, "loss is hinge in the state, logistic"},
		{"lambda", build(lam, 16), state, "λ is 0.1 in the state, 0.2"},
		{"width", build(cfg, 8), state, "width is 16 in the state, 8"},
		{"truncated", build(cfg, 16), state[:len(state)-40], "partly overwritten"},
		{"checksum", build(cfg, 16), func() []byte { c := bytes.Clone(state); c[200] ^= 1; return c }(), "checksum"},
		{"empty", build(cfg, 16), nil, "header"},
	} {
		err := tc.s.LoadState(bytes.NewReader(tc.data))
		if !errors.Is(err, train.ErrState) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want train.ErrState mentioning %q", tc.name, err, tc.want)
		}
	}
	// A partly loaded stepper refuses to step until a good state is loaded.
	s := build(cfg, 16)
	if err := s.LoadState(bytes.NewReader(state[:len(state)-40])); err == nil {
		t.Fatal("truncated state accepted")
	}
	if err := s.Step([]int{0}, 0.1); err == nil {
		t.Fatal("Step after a failed load succeeded")
	}
	if err := s.LoadState(bytes.NewReader(state)); err != nil {
		t.Fatal(err)
	}
	if err := s.Step([]int{0}, 0.1); err != nil {
		t.Fatal(err)
	}
	// Different data: the fingerprint.
	x2 := x.Clone()
	x2.Data[0] += 1
	s2, err := NewStepper(mustNet[float64](t, 3, 16, 1, 1, 0, 4), x2, y, linalg.Matrix[float64]{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.LoadState(bytes.NewReader(state)); err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("state of other data: error %v", err)
	}
}

// TestNetworkBadInput: wrong shapes, invalid labels and hyper-parameters
// are errors wrapping svm.ErrInput, at construction and at Step.
func TestNetworkBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const d, n = 3, 8
	x, y := netData(rng, n, d, svm.Hinge)
	net := func() *ntk.Network[float64] { return mustNet[float64](t, d, 8, 1, 1, 0, 1) }
	good := Config{Loss: svm.Hinge, Lambda: 0.1}
	nan := x.Clone()
	nan.Set(3, 1, math.NaN())
	badNet := net()
	badNet.W[0].Data[5] = math.Inf(1)
	shortNet := net()
	shortNet.W = shortNet.W[:1]
	yHalf := slices.Clone(y)
	yHalf[2] = 0.5
	yNaN := slices.Clone(y)
	yNaN[0] = math.NaN()
	with := func(f func(*Config)) Config { c := good; f(&c); return c }
	for _, tc := range []struct {
		name string
		net  *ntk.Network[float64]
		x    linalg.Matrix[float64]
		y    []float64
		test linalg.Matrix[float64]
		cfg  Config
	}{
		{"nil network", nil, x, y, linalg.Matrix[float64]{}, good},
		{"features", net(), linalg.New[float64](n, d+1), y, linalg.Matrix[float64]{}, good},
		{"no points", net(), linalg.Matrix[float64]{Cols: d}, nil, linalg.Matrix[float64]{}, good},
		{"targets", net(), x, y[:n-1], linalg.Matrix[float64]{}, good},
		{"test features", net(), x, y, linalg.New[float64](2, d+1), good},
		{"label 0.5 for hinge", net(), x, yHalf, linalg.Matrix[float64]{}, good},
		{"NaN target", net(), x, yNaN, linalg.Matrix[float64]{}, with(func(c *Config) { c.Loss = svm.Squared })},
		{"NaN feature", net(), nan, y, linalg.Matrix[float64]{}, good},
		{"NaN test feature", net(), x, y, nan, good},
		{"invalid loss", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Loss = svm.Loss{} })},
		{"negative ε", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Loss = svm.EpsInsensitiveLoss(-1) })},
		{"NaN λ", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Lambda = math.NaN() })},
		{"negative λ", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Lambda = -1 })},
		{"infinite λ", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Lambda = math.Inf(1) })},
		{"objective", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Objective = 9 })},
		{"regularisation", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Reg = 9 })},
		{"batch", net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Batch = -2 })},
		{"infinite weight", badNet, x, y, linalg.Matrix[float64]{}, good},
		{"missing layer", shortNet, x, y, linalg.Matrix[float64]{}, good},
	} {
		if _, err := NewStepper(tc.net, tc.x, tc.y, tc.test, tc.cfg); !errors.Is(err, svm.ErrInput) {
			t.Errorf("%s: error %v, want svm.ErrInput", tc.name, err)
		}
	}
	s, err := NewStepper(net(), x, y, linalg.Matrix[float64]{}, with(func(c *Config) { c.Batch = 4 }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		batch []int
		eta   float64
	}{
		{"η = 0", []int{0}, 0},
		{"NaN η", []int{0}, math.NaN()},
		{"infinite η", []int{0}, math.Inf(1)},
		{"negative η", []int{0}, -1},
		{"empty batch", nil, 0.1},
		{"index out of range", []int{0, n}, 0.1},
		{"negative index", []int{-1}, 0.1},
		{"batch too large", []int{0, 1, 2, 3, 4}, 0.1},
	} {
		if err := s.Step(tc.batch, tc.eta); !errors.Is(err, svm.ErrInput) {
			t.Errorf("Step %s: error %v, want svm.ErrInput", tc.name, err)
		}
	}
	if s.Steps() != 0 {
		t.Errorf("rejected steps counted: %d", s.Steps())
	}
	ev, err := s.Evaluate()
	if err != nil || slices.Max(ev.Train) != 0 || slices.Min(ev.Train) != 0 {
		t.Errorf("rejected steps changed the outputs: %v %v", ev, err)
	}
}

// TestNetworkDivergence: a step that makes the weights or outputs NaN or
// infinite is reported with its number, and the stepper refuses to go on
// until a good state is loaded.
func TestNetworkDivergence(t *testing.T) {
	// RegTheory checks the fused layers as it adds δ·W_0, the others from
	// the bound on the step.
	for _, reg := range []Regularization{RegTheory, RegPaper, RegNone} {
		t.Run(reg.String(), func(t *testing.T) { testNetworkDivergence(t, reg) })
	}
}

func testNetworkDivergence(t *testing.T, reg Regularization) {
	rng := rand.New(rand.NewPCG(6, 6))
	x, y := netData(rng, 8, 3, svm.Squared)
	s, err := NewStepper(mustNet[float32](t, 3, 16, 2, 1, 0, 1), to32(x), y, linalg.Matrix[float32]{}, Config{Loss: svm.Squared, Reg: reg, Lambda: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	if err := s.Step(all, 0.01); err != nil {
		t.Fatal(err)
	}
	var good bytes.Buffer
	if err := s.SaveState(&good); err != nil {
		t.Fatal(err)
	}
	// η = 1e30: finite but enormous weights, then outputs overflow to NaN
	// or ±Inf at a later step's forward pass.
	var stepErr error
	for range 5 {
		if stepErr = s.Step(all, 1e30); stepErr != nil {
			break
		}
	}
	if stepErr == nil || !strings.Contains(stepErr.Error(), "step ") {
		t.Fatalf("diverging steps: error %v, want one naming the step", stepErr)
	}
	t.Log(stepErr)
	if err := s.LoadState(bytes.NewReader(good.Bytes())); err != nil {
		t.Fatal(err)
	}
	// η = 1e39 overflows float32 itself: the update makes the weights infinite.
	stepErr = s.Step(all, 1e39)
	if stepErr == nil || !strings.Contains(stepErr.Error(), "step 2 made") {
		t.Fatalf("overflowing step: error %v, want one naming step 2", stepErr)
	}
	t.Log(stepErr)
	if err := s.Step(all, 0.01); err == nil {
		t.Fatal("Step after a diverged step succeeded")
	}
	if _, err := s.Evaluate(); err == nil {
		t.Fatal("Evaluate after a diverged step succeeded")
	}
	if err := s.SaveState(io.Discard); err == nil {
		t.Fatal("SaveState after a diverged step succeeded")
	}
	if err := s.LoadState(&good); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(all, 0.01); err != nil {
		t.Fatal(err)
	}
	if s.Steps() != 2 {
		t.Errorf("steps %d after reloading step 1 and one more, want 2", s.Steps())
	}
}

// TestNetworkMemoryCap: a configuration needing more than MemCap is
// refused with the bytes it needs.
func TestNetworkMemoryCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x, y := netData(rng, 2000, 8, svm.Squared)
	net := mustNet[float64](t, 8, 256, 2, 1, 0, 1)
	_, err := NewStepper(net, x, y, linalg.Matrix[float64]{}, Config{Loss: svm.Squared, MemCap: 8 << 20})
	if !errors.Is(err, svm.ErrInput) || !strings.Contains(err.Error(), "needs about") || !strings.Contains(err.Error(), "MemCap") {
		t.Fatalf("full batch of 2000 at width 256 under 8 MiB: error %v", err)
	}
	t.Log(err)
	// Minibatches of 32 fit, and evaluation runs in blocks under the cap.
	s, err := NewStepper(net, x, y, linalg.Matrix[float64]{}, Config{Loss: svm.Squared, Batch: 32, MemCap: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.evalRows(); r >= 2000 || r < 32 {
		t.Errorf("evaluation block of %d rows", r)
	}
	if _, err := s.Evaluate(); err != nil {
		t.Fatal(err)
	}
}

// TestNetworkStepAllocs: a step allocates no matrices once warm.
func TestNetworkStepAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	rng := rand.New(rand.NewPCG(1, 3))
	x, y := netData(rng, 64, 10, svm.Hinge)
	s, err := NewStepper(mustNet[float32](t, 10, 512, 2, 1, 0, 1), to32(x), y, linalg.Matrix[float32]{}, Config{Loss: svm.Hinge, Reg: RegTheory, Lambda: 0.01, Batch: 16})
	if err != nil {
		t.Fatal(err)
	}
	stream, _ := train.NewBatchStream(64, 16, 1)
	step := func() {
		b, _ := stream.Next()
		if err := s.Step(b, 0.1); err != nil {
			t.Fatal(err)
		}
	}
	step()
	// TotalAlloc counts the whole process, so a goroutine left by an
	// earlier test can add to one round: take the least of three.
	per := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 20 {
			step()
		}
		runtime.ReadMemStats(&after)
		per = min(per, (after.TotalAlloc-before.TotalAlloc)/20)
	}
	// The layers are 512×512 float32 (1 MiB): allocating any matrix per
	// step would be megabytes.
	if per > 16<<10 {
		t.Errorf("%d bytes allocated per step", per)
	}
}

// TestNetworkFloat32: float32 steps follow float64 steps from the same
// seed to float32 accuracy.
func TestNetworkFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	x, y := netData(rng, 12, 6, svm.Logistic)
	cfg := Config{Loss: svm.Logistic, Lambda: 0.05, Reg: RegTheory, Objective: svm.ObjectiveMean}
	s64, err := NewStepper(mustNet[float64](t, 6, 256, 2, 1, 0, 5), x, y, linalg.Matrix[float64]{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s32, err := NewStepper(mustNet[float32](t, 6, 256, 2, 1, 0, 5), to32(x), y, linalg.Matrix[float32]{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, s64, nil, 12, 20, 1)
	runSteps(t, s32, nil, 12, 20, 1)
	e64, _ := s64.Evaluate()
	e32, _ := s32.Evaluate()
	for i := range e64.Train {
		if math.Abs(e64.Train[i]-e32.Train[i]) > 1e-4*max(1, math.Abs(e64.Train[i])) {
			t.Errorf("output %d: float64 %v, float32 %v", i, e64.Train[i], e32.Train[i])
		}
	}
	if relDiff(e64.Objective, e32.Objective) > 1e-4 {
		t.Errorf("objective: float64 %v, float32 %v", e64.Objective, e32.Objective)
	}
}

// TestNetworkSaveWeights: the weights saved as .npz load back with
// ntk.LoadNetwork unchanged.
func TestNetworkSaveWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	x, y := netData(rng, 6, 4, svm.Hinge)
	s, err := NewStepper(mustNet[float32](t, 4, 16, 2, 1, 0, 5), to32(x), y, linalg.Matrix[float32]{}, Config{Loss: svm.Hinge})
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, s, nil, 6, 3, 0.5)
	path := filepath.Join(t.TempDir(), "w.npz")
	if err := s.SaveWeights(path); err != nil {
		t.Fatal(err)
	}
	back, err := ntk.LoadNetwork[float32](path, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for l := range back.W {
		if !bitsEqual(back.W[l].Data, s.Network().W[l].Data) {
			t.Fatalf("layer %d differs after Save and LoadNetwork", l)
		}
	}
}

// TestNetworkMinibatchMatchesKernelMachine: on the same stream of
// minibatches, with the sum objective (scaled n/|B| per batch), the wide
// network follows the kernel machine with svm.DecayExact, and the gap shrinks
// with the width (tolerance as in TestNetworkMatchesKernelMachine).
func TestNetworkMinibatchMatchesKernelMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("wide networks")
	}
	const eta = 0.05 // svm.ObjectiveSum: n/|B| = 3 times the batch mean of 24 points
	w := gapRunBatch(t, svm.Logistic, RegTheory, svm.ObjectiveSum, 8, 1<<14, 100, eta)
	nw := gapRunBatch(t, svm.Logistic, RegTheory, svm.ObjectiveSum, 8, 1<<10, 100, eta)
	tol := 2 / math.Sqrt(1<<14)
	t.Logf("logistic, sum, batches of 8, η=%v, max |g| = %.3f; max |f − g|/max |g|: m=2^14 %.5f (tolerance %.5f), analytic NTK %.5f; m=2^10 %.5f",
		eta, w.scale, w.emp, tol, w.an, nw.emp)
	if w.scale < 0.5 {
		t.Errorf("outputs moved only to %.3f", w.scale)
	}
	if w.emp > tol {
		t.Errorf("m=2^14: gap %.5f > %.5f", w.emp, tol)
	}
	if nw.emp <= 1.5*w.emp {
		t.Errorf("gap does not shrink with width: %.5f at m=2^10, %.5f at m=2^14", nw.emp, w.emp)
	}
}

// TestNetworkUpdateSplit: the update split over goroutines gives the
// serial result bit for bit and finds a non-finite weight in any part.
func TestNetworkUpdateSplit(t *testing.T) {
	const n = 1<<20 + 77
	rng := rand.New(rand.NewPCG(3, 3))
	w, g, w0 := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range w {
		w[i], g[i], w0[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	zeros := make([]float32, finiteChunk)
	for _, tc := range []struct {
		g, w0 []float32
		delta float32
	}{{g, nil, 0}, {g, w0, 0.01}, {g, nil, 0.01}, {nil, w0, 0.01}, {nil, nil, 0.01}} {
		got, want := slices.Clone(w), slices.Clone(w)
		if !update(got, tc.g, tc.w0, 0.1, tc.delta, zeros) {
			t.Fatal("finite update reported non-finite")
		}
		updateChunk(want, tc.g, tc.w0, 0, 0.1, tc.delta)
		if !bitsEqual(got, want) {
			t.Fatalf("split update differs from the serial one (g %v, w0 %v, δ %v)", tc.g != nil, tc.w0 != nil, tc.delta)
		}
	}
	for _, at := range []int{0, n / 2, n - 1} {
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
			v := slices.Clone(w)
			v[at] = bad
			if update(v, g, nil, 0.1, 0, zeros) {
				t.Errorf("%v at %d not found", bad, at)
			}
		}
	}
}

// TestNetworkFusedBound: the bound on the fused layers' weights that
// spares reading them. It holds after steps; when it is too large to show
// the weights finite, the step reads them and replaces it by their
// maximum; LoadState forgets it.
func TestNetworkFusedBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	x, y := netData(rng, 8, 3, svm.Hinge)
	s, err := NewStepper(mustNet[float32](t, 3, 16, 2, 1, 0, 1), to32(x), y, linalg.Matrix[float32]{}, Config{Loss: svm.Hinge, Reg: RegPaper, Lambda: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	check := func(when string) {
		t.Helper()
		for l := range s.net.Depth {
			if m := maxAbs(s.net.W[l].Data); !(s.wmax[l] >= m) {
				t.Fatalf("%s: layer %d bound %v below max |W| = %v", when, l, s.wmax[l], m)
			}
		}
	}
	check("at construction")
	for range 3 {
		if err := s.Step(all, 0.5); err != nil {
			t.Fatal(err)
		}
		check("after a step")
	}
	var state bytes.Buffer
	if err := s.SaveState(&state); err != nil {
		t.Fatal(err)
	}
	s.wmax[0] = math.MaxFloat32
	if err := s.Step(all, 0.5); err != nil {
		t.Fatal(err)
	}
	if m := maxAbs(s.net.W[0].Data); s.wmax[0] != m {
		t.Errorf("after a read: bound %v, want max |W| = %v", s.wmax[0], m)
	}
	if err := s.LoadState(&state); err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(s.wmax[0], 1) {
		t.Errorf("after LoadState: bound %v, want +Inf", s.wmax[0])
	}
	if err := s.Step(all, 0.5); err != nil {
		t.Fatal(err)
	}
	check("after a step from a loaded state")
}

// TestMaxAbs checks maxAbs against a plain loop on both element types:
// empty, odd and even lengths, signs, zeros of both signs, subnormals,
// ±Inf, and a NaN anywhere (the result is NaN, even beside an Inf), on
// lengths that span several ParallelFor chunks.
func TestMaxAbs(t *testing.T) {
	specials := []float64{0, math.Copysign(0, -1), 5e-324, -1e-40, 3, -7.5, math.Inf(1), math.Inf(-1), math.NaN()}
	for _, n := range []int{0, 1, 2, 3, 17, 1<<18 + 5, 3 << 18} {
		for _, sp := range specials {
			for _, at := range []int{0, n / 2, n - 1} {
				if n == 0 && at != 0 {
					continue
				}
				x64 := make([]float64, n)
				for i := range x64 {
					x64[i] = float64(i%13) - 6.25
				}
				if n > 0 {
					x64[at] = sp
				}
				x32 := make([]float32, n)
				for i, v := range x64 {
					x32[i] = float32(v)
				}
				want := func(x []float64) float64 {
					m := 0.0
					for _, v := range x {
						if v != v {
							return math.NaN()
						}
						m = math.Max(m, math.Abs(v))
					}
					return m
				}
				w32 := make([]float64, n)
				for i, v := range x32 {
					w32[i] = float64(v)
				}
				for _, c := range []struct {
					name      string
					got, want float64
				}{{"float64", maxAbs(x64), want(x64)}, {"float32", maxAbs(x32), want(w32)}} {
					if c.got != c.want && !(c.got != c.got && c.want != c.want) {
						t.Errorf("%s n=%d x[%d]=%v: maxAbs = %v, want %v", c.name, n, at, sp, c.got, c.want)
					}
				}
			}
		}
	}
}
