package extract

import (
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/train"

	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// extractData returns n points in R^d with ±1 labels (alternating) and a
// test set of nt points.
func extractData(seed uint64, n, nt, d int) (x linalg.Matrix[float64], y []float64, xt linalg.Matrix[float64]) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x, xt = linalg.New[float64](n, d), linalg.New[float64](nt, d)
	y = make([]float64, n)
	for i := range n {
		y[i] = float64(1 - 2*(i%2))
		for j := range d {
			x.Set(i, j, rng.NormFloat64()+0.5*y[i])
		}
	}
	for i := range nt {
		for j := range d {
			xt.Set(i, j, rng.NormFloat64())
		}
	}
	return x, y, xt
}

// TestExtractThetaMatchesEmpiricalNTK checks the Extractor's Θ̂ (cached
// X·Xᵀ, skipped output-layer Gram) against ntk's EmpiricalNTK, with biases
// and two hidden layers, train×train and test×train.
func TestExtractThetaMatchesEmpiricalNTK(t *testing.T) {
	x, y, xt := extractData(1, 7, 5, 4)
	net, err := ntk.NewNetwork[float64](4, 16, 2, 1.3, 0.4, 3)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExtractor(x, y, xt, Config{Loss: svm.Squared, Objective: svm.ObjectiveSum})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := net.Forward(x)
	pt, _ := net.Forward(xt)
	e.th, e.thT = linalg.New[float64](7, 7), linalg.New[float64](5, 7)
	for _, c := range []struct {
		name       string
		p1         *ntk.Pass[float64]
		x1, x12    linalg.Matrix[float64]
		dd, aa, th linalg.Matrix[float64]
	}{
		{"train", p, x, e.xx, e.dd, e.aa, e.th},
		{"test", pt, xt, e.xtx, e.ddT, e.aaT, e.thT},
	} {
		if err := e.theta(net, c.p1, p, c.x12, c.dd, c.aa, c.th); err != nil {
			t.Fatal(err)
		}
		want, err := net.EmpiricalNTK(c.x1, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want.Rows {
			for j := range want.Cols {
				if d := math.Abs(c.th.At(i, j) - want.At(i, j)); d > 1e-12*(1+math.Abs(want.At(i, j))) {
					t.Fatalf("%s (%d,%d): %g, EmpiricalNTK %g", c.name, i, j, c.th.At(i, j), want.At(i, j))
				}
			}
		}
	}
}

// extractRun trains a tiny network by full-batch GD with step eta for
// steps steps, with one Extractor per stride, and returns their reports.
func extractRun(t *testing.T, cfg Config, mode string, lambda, eta float64, steps int, strides []int, smooth bool) []*Report {
	t.Helper()
	x, y, xt := extractData(2, 10, 6, 3)
	width := 64
	if smooth {
		x, y, xt = extractConeData(10, 6)
		width = 256
	}
	net, err := ntk.NewNetwork[float64](x.Cols, width, 1, 1, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if smooth {
		extractGateMargin(net, x, xt, 0.3)
	}
	g, err := newNetGD(net, x, y, cfg.Loss, cfg.Objective, lambda, mode, cfg.SubtractInit)
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]observer[float64], len(strides))
	ex := make([]*Extractor[float64], len(strides))
	for i := range strides {
		if ex[i], err = NewExtractor(x, y, xt, cfg); err != nil {
			t.Fatal(err)
		}
		obs[i] = ex[i]
	}
	if err := g.run(eta, steps, obs, strides); err != nil {
		t.Fatal(err)
	}
	reps := make([]*Report, len(strides))
	for i := range ex {
		if reps[i], err = ex[i].Report(); err != nil {
			t.Fatal(err)
		}
	}
	return reps
}

// extractConeData returns points in the plane at angles in [40°, 50°] with
// alternating ±1 labels, and a test set in the same cone.
func extractConeData(n, nt int) (x linalg.Matrix[float64], y []float64, xt linalg.Matrix[float64]) {
	rng := rand.New(rand.NewPCG(4, 9))
	pt := func(m linalg.Matrix[float64], i int) {
		a := (40 + 10*rng.Float64()) * math.Pi / 180
		r := 0.5 + rng.Float64()
		m.Set(i, 0, r*math.Cos(a))
		m.Set(i, 1, r*math.Sin(a))
	}
	x, xt, y = linalg.New[float64](n, 2), linalg.New[float64](nt, 2), make([]float64, n)
	for i := range n {
		pt(x, i)
		y[i] = float64(1 - 2*(i%2))
	}
	for i := range nt {
		pt(xt, i)
	}
	return x, y, xt
}

// extractGateMargin redraws first-layer rows until every hidden unit's
// pre-activation on every input has |cos(w, x)| ≥ margin, so that no ReLU
// gate flips during a short run and Θ̂(w_t) is smooth in t.
func extractGateMargin(net *ntk.Network[float64], x, xt linalg.Matrix[float64], margin float64) {
	rng := rand.New(rand.NewPCG(5, 5))
	ok := func(w []float64, m linalg.Matrix[float64]) bool {
		for i := range m.Rows {
			r := m.Row(i)
			c := (w[0]*r[0] + w[1]*r[1]) / math.Hypot(w[0], w[1]) / math.Hypot(r[0], r[1])
			if math.Abs(c) < margin {
				return false
			}
		}
		return true
	}
	for k := range net.W[0].Rows {
		w := net.W[0].Row(k)
		for !ok(w, x) || !ok(w, xt) {
			w[0], w[1] = rng.NormFloat64(), rng.NormFloat64()
		}
	}
}

// extractSmoothCfg is a smooth loss (logistic) with the paper's penalty on
// f − f₀ outputs, so b = −(1 − e^{−λT})f₀ is exercised.
func extractSmoothCfg(width int, lambda float64) Config {
	rate, _ := DecayRate("paper", lambda, width)
	return Config{Loss: svm.Logistic, Objective: svm.ObjectiveSum, Decay: rate, Target: DecayToZero, SubtractInit: true}
}

// TestExtractTrapezoidOrder observes one finely stepped GD run (close to
// gradient flow) every h = r·η for several r, and measures the quadrature
// error alone: the kernel machine integrated at stride r against the one
// integrated at every step. With no ReLU gate flipping during the run
// (extractGateMargin), Θ̂(w_t) is smooth in t and the trapezoid rule is second
// order: halving h quarters the error. (With gates flipping, Θ̂(w_t)
// jumps and the order drops towards 1; see TestExtractStepHalving for the
// error against the network itself.)
func TestExtractTrapezoidOrder(t *testing.T) {
	const eta, steps = 1.0 / 512, 512
	strides := []int{1, 4, 8, 16, 32}
	reps := extractRun(t, extractSmoothCfg(256, 50), "paper", 50, eta, steps, strides, true)
	var errs []float64
	for i, r := range reps {
		errs = append(errs, max(r.TrainMaxAbs, r.TestMaxAbs))
		t.Logf("h = %2d·η: max|f − (Ka+b)| train %.3e test %.3e, rms train %.3e, sign breaks %d",
			strides[i], r.TrainMaxAbs, r.TestMaxAbs, r.TrainRMS, len(r.SignBreaks))
		if len(r.SignBreaks) != 0 {
			t.Errorf("logistic loss: unexpected sign breaks %v", r.SignBreaks)
		}
	}
	// The quadrature error alone: the kernel machine at stride r against
	// the one integrated at every step.
	var q []float64
	for i := 1; i < len(reps); i++ {
		d, _ := extractDiff(reps[i].TrainKM, reps[0].TrainKM)
		dt, _ := extractDiff(reps[i].TestKM, reps[0].TestKM)
		q = append(q, max(d, dt))
	}
	for i := 1; i < len(q); i++ {
		ratio := q[i] / q[i-1]
		t.Logf("h %d→%d: quadrature error %.3e → %.3e, ×%.2f (second order: 4)", strides[i], strides[i+1], q[i-1], q[i], ratio)
		if ratio < 3 || ratio > 5 {
			t.Errorf("h %d→%d: ratio %.2f, want ≈ 4", strides[i], strides[i+1], ratio)
		}
	}
}

// TestExtractStepHalving compares K_T a + b with the network itself over
// discrete GD runs to the same T with η, η/2, η/4, η/8 (gates flipping
// freely): the trapezoid rule integrates the gradient-flow identity, and
// GD differs from gradient flow at O(η), so the error halves with η
// (observed ×2.00 per halving: first order). Second order would need the
// cross-time products ⟨∇f_{k+1}, ∇L_k⟩ that GD actually applies.
func TestExtractStepHalving(t *testing.T) {
	const T = 2.0
	var errs []float64
	for _, steps := range []int{64, 128, 256, 512} {
		eta := T / float64(steps)
		r := extractRun(t, extractSmoothCfg(64, 20), "paper", 20, eta, steps, []int{1}, false)[0]
		errs = append(errs, max(r.TrainMaxAbs, r.TestMaxAbs))
		t.Logf("η = T/%d: max|f − (Ka+b)| %.3e", steps, errs[len(errs)-1])
		if k := len(errs); k > 1 {
			if ratio := errs[k-2] / errs[k-1]; ratio < 1.7 || ratio > 2.5 {
				t.Errorf("η = T/%d: error ×1/%.2f per halving, want ≈ 2 (first order)", steps, ratio)
			}
		}
	}
}

// TestExtractKernelRegression: for the squared loss at λ = 0 on a wide
// network, the extracted machine K_T a + b is kernel regression trained by
// gradient flow with the initial tangent kernel Θ̂₀ (the linearised
// model): with f − f₀ outputs (so b = 0), f_T = (I − e^{−2Θ̂₀T})y on the
// training points and Θ̂₀(x*, X)Θ̂₀⁻¹(I − e^{−2Θ̂₀T})y on test points.
func TestExtractKernelRegression(t *testing.T) {
	x, _, xt := extractData(3, 6, 4, 3)
	y := []float64{0.3, -0.5, 0.8, -0.2, 0.6, -0.7}
	net, err := ntk.NewNetwork[float64](3, 4096, 1, 1, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	th0, _ := net.EmpiricalNTK(x, x)
	th0t, _ := net.EmpiricalNTK(xt, x)
	cfg := Config{Loss: svm.Squared, Objective: svm.ObjectiveSum, SubtractInit: true}
	e, err := NewExtractor(x, y, xt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := newNetGD(net, x, y, svm.Squared, svm.ObjectiveSum, 0, "none", true)
	if err != nil {
		t.Fatal(err)
	}
	const eta, steps = 0.002, 250
	if err := g.run(eta, steps, []observer[float64]{e}, []int{1}); err != nil {
		t.Fatal(err)
	}
	r, err := e.Report()
	if err != nil {
		t.Fatal(err)
	}
	// Closed form through the eigendecomposition Θ̂₀ = Vᵀ diag(μ) V (rows of V).
	T := eta * steps
	mu, v, err := linalg.EigenSym(th0)
	if err != nil {
		t.Fatal(err)
	}
	n := len(y)
	want, coef := make([]float64, n), make([]float64, n) // coef = Θ̂₀⁻¹ want
	for k := range n {
		var vy float64
		for i := range n {
			vy += v.At(k, i) * y[i]
		}
		for i := range n {
			want[i] += v.At(k, i) * (1 - math.Exp(-2*mu[k]*T)) * vy
			coef[i] += v.At(k, i) * (1 - math.Exp(-2*mu[k]*T)) / mu[k] * vy
		}
	}
	wantT := make([]float64, xt.Rows)
	for i := range wantT {
		for j := range n {
			wantT[i] += th0t.At(i, j) * coef[j]
		}
	}
	d, _ := extractDiff(r.TrainKM, want)
	dt, _ := extractDiff(r.TestKM, wantT)
	t.Logf("T = %g: max|KM − kernel regression| train %.2e test %.2e; max|NN − KM| train %.2e test %.2e; sign breaks %d",
		T, d, dt, r.TrainMaxAbs, r.TestMaxAbs, len(r.SignBreaks))
	if d > 5e-3 || dt > 5e-3 || r.TrainMaxAbs > 5e-3 || r.TestMaxAbs > 5e-3 {
		t.Errorf("kernel machine differs from kernel regression by %.2e (train) %.2e (test), from the network by %.2e", d, dt, r.TrainMaxAbs)
	}
	if len(r.SignBreaks) != 0 {
		t.Errorf("sign breaks %v", r.SignBreaks)
	}
}

// TestExtractSignBreak: two nearby points with targets 0.5 and 1.5 under
// the squared loss pull each other up, so the first overshoots its
// target and its l' = 2(f − y) turns from negative to positive; the
// detector must name it.
func TestExtractSignBreak(t *testing.T) {
	x := extractMatrix[float64]([][]float64{{1, 0.1}, {1, -0.1}})
	y := []float64{0.5, 1.5}
	net, err := ntk.NewNetwork[float64](2, 256, 1, 1, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewExtractor(x, y, linalg.Matrix[float64]{}, Config{Loss: svm.Squared, Objective: svm.ObjectiveSum, SubtractInit: true})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := newNetGD(net, x, y, svm.Squared, svm.ObjectiveSum, 0, "none", true)
	if err := g.run(0.01, 300, []observer[float64]{e}, []int{1}); err != nil {
		t.Fatal(err)
	}
	r, _ := e.Report()
	t.Logf("breaks %+v; NN %v KM %v", r.SignBreaks, r.TrainNN, r.TrainKM)
	if len(r.SignBreaks) != 1 || r.SignBreaks[0].Index != 0 || !(r.SignBreaks[0].Initial < 0 && r.SignBreaks[0].Now > 0) {
		t.Fatalf("want one break at point 0 (l' from < 0 to > 0), got %+v", r.SignBreaks)
	}
	if b := r.SignBreaks[0]; b.Step < 1 || b.Step > 300 || math.Abs(b.T-float64(b.Step)*0.01) > 1e-9 {
		t.Errorf("break at step %d, t = %g", b.Step, b.T)
	}
}

// TestExtractHingeMargin: with the hinge loss points pass the margin and
// their l' becomes 0, which contributes nothing and breaks nothing: no
// sign break, and the machine still matches the network. In AuthorsCode
// mode the same points break the representation (their |l'| is kept at 1)
// and are reported.
func TestExtractHingeMargin(t *testing.T) {
	x, y, xt := extractData(6, 12, 5, 3)
	var reps [2]*Report
	for k, authors := range []bool{false, true} {
		net, _ := ntk.NewNetwork[float64](3, 128, 1, 1, 0, 8)
		rate, _ := DecayRate("paper", 0.1, 128)
		cfg := Config{Loss: svm.Hinge, Objective: svm.ObjectiveMean, Decay: rate, SubtractInit: true, AuthorsCode: authors}
		e, err := NewExtractor(x, y, xt, cfg)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := newNetGD(net, x, y, svm.Hinge, svm.ObjectiveMean, 0.1, "paper", true)
		if err := g.run(0.05, 400, []observer[float64]{e}, []int{1}); err != nil {
			t.Fatal(err)
		}
		reps[k], _ = e.Report()
	}
	r := reps[0]
	past := 0
	for i, f := range r.TrainNN {
		if y[i]*f >= 1 {
			past++
		}
	}
	t.Logf("%d of %d points past the margin; max|NN − KM| train %.2e test %.2e; breaks %d, authors-code breaks %d, authors-code max|NN − KM| %.2e",
		past, len(y), r.TrainMaxAbs, r.TestMaxAbs, len(r.SignBreaks), len(reps[1].SignBreaks), reps[1].TrainMaxAbs)
	if past == 0 {
		t.Fatal("no point passed the margin: the test does not exercise l' = 0")
	}
	if len(r.SignBreaks) != 0 {
		t.Errorf("unexpected sign breaks %+v", r.SignBreaks)
	}
	if r.TrainMaxAbs > 0.05 || r.TestMaxAbs > 0.05 {
		t.Errorf("max|NN − KM| = %.3g (train), %.3g (test)", r.TrainMaxAbs, r.TestMaxAbs)
	}
	if len(reps[1].SignBreaks) == 0 {
		t.Errorf("AuthorsCode: points past the margin are not reported")
	}
}

// extractMinibatchRun trains a network of type T by minibatch SGD (mean
// logistic loss, batches of 3 from a train.BatchStream) to time 2 in steps
// steps, observing each state with the batch of the step taken from it
// under the Left rule, and returns max|NN − KM| on the training points.
func extractMinibatchRun[T linalg.Float](t *testing.T, steps int, rule Quadrature) float64 {
	x64, y, xt64 := extractConeData(12, 1)
	x := linalg.New[T](x64.Rows, x64.Cols)
	for i := range x.Data {
		x.Data[i] = T(x64.Data[i])
	}
	eta := 2 / float64(steps)
	net64, _ := ntk.NewNetwork[float64](2, 256, 1, 1, 0, 4)
	extractGateMargin(net64, x64, xt64, 0.3)
	net, _ := ntk.NewNetwork[T](2, 256, 1, 1, 0, 4)
	for l := range net.W {
		for i, v := range net64.W[l].Data {
			net.W[l].Data[i] = T(v)
		}
	}
	rate, _ := DecayRate("paper", 1, 256)
	e, err := NewExtractor(x, y, linalg.Matrix[T]{}, Config{Loss: svm.Logistic, Objective: svm.ObjectiveMean, Decay: rate, SubtractInit: true, Rule: rule})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := newNetGD(net, x, y, svm.Logistic, svm.ObjectiveMean, 1, "paper", true)
	bs, _ := train.NewBatchStream(len(y), 3, 1)
	batch, _ := bs.Next()
	if err := e.Observe(net, 0, batch); err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= steps; k++ {
		if err := g.step(eta, batch); err != nil {
			t.Fatal(err)
		}
		batch, _ = bs.Next()
		if err := e.Observe(net, float64(k)*eta, batch); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := e.Report()
	if len(r.SignBreaks) != 0 {
		t.Errorf("sign breaks %v", r.SignBreaks)
	}
	return r.TrainMaxAbs
}

// TestExtractMinibatch: with the Left rule and each step's batch the
// machine follows a minibatch SGD run to first order in η (the error
// halves with η; no ReLU gate flips, see extractGateMargin, whose kinks make
// the observed order noisy). The Trapezoid rule pairs the integrands of
// two different batches and does not converge for SGD. A float32 network
// gets the same machine up to its rounding.
func TestExtractMinibatch(t *testing.T) {
	var errs []float64
	for _, steps := range []int{100, 200, 400} {
		errs = append(errs, extractMinibatchRun[float64](t, steps, Left))
		t.Logf("η = 2/%d: max|NN − KM| %.3e", steps, errs[len(errs)-1])
		if k := len(errs); k > 1 {
			if ratio := errs[k-2] / errs[k-1]; ratio < 1.7 || ratio > 2.5 {
				t.Errorf("error ×1/%.2f per halving of η, want ≈ 2", ratio)
			}
		}
	}
	e32 := extractMinibatchRun[float32](t, 100, Left)
	t.Logf("float32 network, η = 2/100: max|NN − KM| %.3e", e32)
	if e32 > 1.5*errs[0] {
		t.Errorf("float32: %.3g, float64: %.3g", e32, errs[0])
	}
	tz := extractMinibatchRun[float64](t, 400, Trapezoid)
	t.Logf("Trapezoid rule, η = 2/400: max|NN − KM| %.3e", tz)
	if tz < 3*errs[2] {
		t.Errorf("Trapezoid on SGD: %.3g, Left: %.3g", tz, errs[2])
	}
}

// TestExtractTheoryMode: the penalty λ/2‖W_last − W_last,0‖² decays only
// the output layer's share of f − f₀; the hidden features' drift c_t is
// not decayed, at any width. The Extractor integrates that term into b:
// then the machine matches the network, while b = 0 (the theorem's form
// for a decay toward f₀) misses by far more, and does not improve with
// width.
func TestExtractTheoryMode(t *testing.T) {
	x, y, xt := extractData(10, 8, 4, 3)
	for _, width := range []int{64, 1024} {
		net, _ := ntk.NewNetwork[float64](3, width, 1, 1, 0, 6)
		rate, _ := DecayRate("last-layer", 0.5, width)
		e, _ := NewExtractor(x, y, xt, Config{Loss: svm.Logistic, Objective: svm.ObjectiveSum, Decay: rate, Target: DecayToInit, SubtractInit: true})
		g, _ := newNetGD(net, x, y, svm.Logistic, svm.ObjectiveSum, 0.5, "theory", true)
		if err := g.run(0.01, 200, []observer[float64]{e}, []int{1}); err != nil {
			t.Fatal(err)
		}
		r, _ := e.Report()
		b, _ := e.Offset()
		withoutB := make([]float64, len(b))
		for i := range b {
			withoutB[i] = r.TrainKM[i] - b[i]
		}
		miss, _ := extractDiff(r.TrainNN, withoutB)
		t.Logf("m = %d: max|NN − KM| train %.3e test %.3e; with b = 0 instead: %.3e", width, r.TrainMaxAbs, r.TestMaxAbs, miss)
		if r.TrainMaxAbs > 0.01 || r.TestMaxAbs > 0.01 {
			t.Errorf("m = %d: max|NN − KM| = %.3g, %.3g", width, r.TrainMaxAbs, r.TestMaxAbs)
		}
		if miss < 0.1 {
			t.Errorf("m = %d: the drift term is %.3g: the test does not exercise it", width, miss)
		}
	}
}

// TestExtractErrors: bad input gives errors, not panics.
func TestExtractErrors(t *testing.T) {
	x, y, xt := extractData(1, 4, 2, 3)
	ok := Config{Loss: svm.Hinge, Objective: svm.ObjectiveMean}
	for name, c := range map[string]Config{
		"loss":      {Objective: svm.ObjectiveMean},
		"objective": {Loss: svm.Hinge, Objective: 9},
		"decay":     {Loss: svm.Hinge, Decay: -1},
		"decayNaN":  {Loss: svm.Hinge, Decay: math.NaN()},
		"target":    {Loss: svm.Hinge, Target: 7},
		"rule":      {Loss: svm.Hinge, Rule: 7},
	} {
		if _, err := NewExtractor(x, y, xt, c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewExtractor(x, y[:3], xt, ok); err == nil {
		t.Error("short y: no error")
	}
	if _, err := NewExtractor(x, y, linalg.New[float64](2, 5), ok); err == nil {
		t.Error("test columns: no error")
	}
	e, _ := NewExtractor(x, y, xt, ok)
	if _, err := e.Report(); err == nil {
		t.Error("Report before Observe: no error")
	}
	net, _ := ntk.NewNetwork[float64](3, 8, 1, 1, 0, 1)
	wrong, _ := ntk.NewNetwork[float64](4, 8, 1, 1, 0, 1)
	if err := e.Observe(wrong, 0, nil); err == nil {
		t.Error("wrong input dimension: no error")
	}
	if err := e.Observe(net, 0, nil); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"same time": func() error { return e.Observe(net, 0, nil) },
		"NaN time":  func() error { return e.Observe(net, math.NaN(), nil) },
		"batch":     func() error { return e.Observe(net, 1, []int{0, 4}) },
		"empty":     func() error { return e.Observe(net, 1, []int{}) },
		"bound":     func() error { _, err := e.Bound(BoundConfig{AuthorsCode: true}); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	for _, c := range []struct {
		mode   string
		lambda float64
		width  int
	}{{"paper", 1, 0}, {"bogus", 1, 1}, {"theory", -1, 1}, {"none", math.Inf(1), 1}} {
		if _, err := DecayRate(c.mode, c.lambda, c.width); err == nil {
			t.Errorf("DecayRate(%q, %g, %d): no error", c.mode, c.lambda, c.width)
		}
	}
	if r, _ := DecayRate("paper", 0.001, 100); r != 1e-5 {
		t.Errorf("paper rate %g", r)
	}
}
