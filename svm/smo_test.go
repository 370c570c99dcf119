package svm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestTwoPointSVM is the SVM solved by hand: x₁ = (1, 0) with y = +1 and
// x₂ = (−1, 0) with y = −1, linear kernel. For C ≥ ½ the hard-margin
// solution a = (½, ½), β = (1, 0), b = 0 gives ½‖β‖² = ½ and no loss; for
// C = ¼ both a sit at C, β = (½, 0), and P = ⅛ + ¼·(½ + ½) = ⅜.
func TestTwoPointSVM(t *testing.T) {
	x, _ := linalg.FromSlice(2, 2, []float64{1, 0, -1, 0})
	k := NewDense(linearGram(x, x))
	y := []float64{1, -1}
	for _, tc := range []struct {
		c, a, primal float64
	}{
		{10, 0.5, 0.5},
		{0.5, 0.5, 0.5},
		{0.25, 0.25, 0.375},
	} {
		for _, bias := range []bool{false, true} {
			r, err := SolveDual(context.Background(), k, y, DualConfig{Loss: Hinge, Lambda: 1 / tc.c, Bias: bias, Tol: 1e-12})
			if err != nil {
				t.Fatal(err)
			}
			// Without a bias a is not unique (x₂ = −x₁), but β and so g are.
			if math.Abs(r.Outputs[0]-2*tc.a) > 1e-9 || math.Abs(r.Outputs[1]+2*tc.a) > 1e-9 ||
				bias && (math.Abs(r.Dual[0]-tc.a) > 1e-9 || math.Abs(r.Dual[1]-tc.a) > 1e-9) ||
				math.Abs(r.Primal-tc.primal) > 1e-9 || math.Abs(r.DualObj-tc.primal) > 1e-9 ||
				math.Abs(r.Machine.Bias) > 1e-9 || r.Machine.Alpha[0] != r.Dual[0] || r.Machine.Alpha[1] != -r.Dual[1] {
				t.Errorf("C=%g bias=%v: a=%v α=%v b=%g P=%g D=%g; want a=%g P=D=%g", tc.c, bias, r.Dual,
					r.Machine.Alpha, r.Machine.Bias, r.Primal, r.DualObj, tc.a, tc.primal)
			}
			if math.Abs(r.Objective-r.Primal*(1/tc.c)) > 1e-12 {
				t.Errorf("paper objective %g, want λ·P = %g", r.Objective, r.Primal/tc.c)
			}
		}
	}
}

// TestSeparableNeedsBias: points on one side of the origin, labels split by
// x₁ = 2. Only a machine with a bias separates them with a linear kernel.
func TestSeparableNeedsBias(t *testing.T) {
	x, _ := linalg.FromSlice(4, 1, []float64{1, 1.5, 2.5, 3})
	y := []float64{-1, -1, 1, 1}
	k := NewDense(linearGram(x, x))
	r, err := SolveDual(context.Background(), k, y, DualConfig{Loss: Hinge, Lambda: 1e-4, Bias: true, Tol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	// Hard margin: w = 2/(2.5 − 1.5) = 2, b = −4 (decision boundary at 2).
	w := r.Machine.Alpha[0]*1 + r.Machine.Alpha[1]*1.5 + r.Machine.Alpha[2]*2.5 + r.Machine.Alpha[3]*3
	if math.Abs(w-2) > 1e-6 || math.Abs(r.Machine.Bias+4) > 1e-6 || Accuracy(r.Outputs, y) != 1 {
		t.Errorf("w = %g b = %g outputs %v; want w = 2, b = −4", w, r.Machine.Bias, r.Outputs)
	}
	r0, _ := SolveDual(context.Background(), k, y, DualConfig{Loss: Hinge, Lambda: 1e-4, Tol: 1e-10})
	if Accuracy(r0.Outputs, y) == 1 {
		t.Errorf("homogeneous machine separated a set that needs a bias: %v", r0.Outputs)
	}
}

// kktViolation returns the largest violation of the KKT conditions of the
// hinge SVM at the solution: a = 0 ⇒ y·f ≥ 1, 0 < a < C ⇒ y·f = 1,
// a = C ⇒ y·f ≤ 1 (f = g + b), and Σ yᵢaᵢ = 0 with a bias.
func kktViolation(r *DualResult, y []float64, C float64, bias bool) float64 {
	var worst, sum float64
	for i, a := range r.Dual {
		m := y[i] * r.Outputs[i]
		switch {
		case a <= 1e-12*C:
			worst = max(worst, 1-m)
		case a >= C*(1-1e-12):
			worst = max(worst, m-1)
		default:
			worst = max(worst, math.Abs(m-1))
		}
		sum += y[i] * a
	}
	if bias {
		worst = max(worst, math.Abs(sum)/C)
	}
	return worst
}

func TestDualKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x, y := blobs(rng, 80, 0.8)
	kd := rbfGram(x, x, 0.7)
	for _, bias := range []bool{false, true} {
		for _, shrink := range []bool{false, true} {
			for _, lambda := range []float64{0.01, 1} {
				for name, k := range map[string]KernelMatrix{"f64": NewDense(kd), "f32": NewDense(to32(kd))} {
					r, err := SolveDual(context.Background(), k, y, DualConfig{Loss: Hinge, Lambda: lambda, Bias: bias, Tol: 1e-10, NoShrink: !shrink})
					if err != nil || !r.Converged {
						t.Fatalf("bias=%v: %v %v", bias, r, err)
					}
					if v := kktViolation(r, y, 1/lambda, bias); v > 1e-4 {
						t.Errorf("%s bias=%v shrink=%v λ=%g: KKT violation %g (%v)", name, bias, shrink, lambda, v, r)
					}
					if r.RelGap < -1e-9 {
						t.Errorf("negative duality gap %g", r.RelGap)
					}
				}
			}
		}
	}
}

// TestDual2Norm checks the 2-norm SVM's KKT conditions: aᵢ = 2C·ξᵢ with
// ξᵢ = max(0, 1 − yᵢfᵢ), which holds only with the shift 1/(2C).
func TestDual2Norm(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x, y := blobs(rng, 60, 0.6)
	k := NewDense(rbfGram(x, x, 0.7))
	for _, bias := range []bool{false, true} {
		const lambda = 0.5
		r, err := SolveDual(context.Background(), k, y, DualConfig{Loss: SquaredHinge, Lambda: lambda, Bias: bias, Tol: 1e-11})
		if err != nil || !r.Converged {
			t.Fatalf("%v %v", r, err)
		}
		for i, a := range r.Dual {
			xi := max(0, 1-y[i]*r.Outputs[i])
			// The gap is quadratic in the error of a: 1e-11 leaves ~1e-5.
			if math.Abs(a-2/lambda*xi) > 1e-4 {
				t.Errorf("bias=%v: a[%d] = %g, 2C·ξ = %g", bias, i, a, 2/lambda*xi)
			}
		}
		// The subgradient trainer converges to the same objective (the
		// squared hinge is smooth, so a constant step suffices).
		if !bias {
			s, err := TrainSubgradient(context.Background(), k, y, SubgradientConfig{Loss: SquaredHinge, Lambda: lambda, LR: 0.02, Steps: 3000})
			if err != nil || relDiff(s.Objective, r.Objective) > 1e-6 {
				t.Errorf("subgradient objective %g, exact %g (%v)", s.Objective, r.Objective, err)
			}
		}
	}
}

// TestDualSVR checks the ε-SVR KKT conditions: |y − f| < ε ⇒ α = 0,
// |y − f| > ε ⇒ |α| = C, and the objective against gradient descent.
func TestDualSVR(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	n := 50
	x := linalg.New[float64](n, 1)
	y := make([]float64, n)
	for i := range n {
		x.Set(i, 0, float64(i)/float64(n)*4-2)
		y[i] = math.Sin(x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	k := NewDense(rbfGram(x, x, 1))
	const lambda, eps = 0.2, 0.05
	for _, bias := range []bool{false, true} {
		r, err := SolveDual(context.Background(), k, y, DualConfig{Loss: EpsInsensitiveLoss(eps), Lambda: lambda, Bias: bias, Tol: 1e-11})
		if err != nil || !r.Converged {
			t.Fatalf("%v %v", r, err)
		}
		C := 1 / lambda
		for i, a := range r.Machine.Alpha {
			d := math.Abs(y[i] - r.Outputs[i])
			if (d < eps-1e-6 && math.Abs(a) > 1e-6) || (d > eps+1e-6 && math.Abs(math.Abs(a)-C) > 1e-6) {
				t.Errorf("bias=%v: point %d residual %g, α = %g (C = %g)", bias, i, d, a, C)
			}
		}
		if bias {
			var s float64
			for _, a := range r.Machine.Alpha {
				s += a
			}
			if math.Abs(s) > 1e-8 {
				t.Errorf("Σα = %g with a bias, want 0", s)
			}
		}
	}
}

func TestKRR(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	x, y := blobs(rng, 50, 1)
	kd := rbfGram(x, x, 0.5)
	for _, c := range []float64{1e-3, 0.5, 10} {
		for name, k := range map[string]KernelMatrix{"f64": NewDense(kd), "f32": NewDense(to32(kd))} {
			m, err := KRR(context.Background(), k, y, c)
			if err != nil {
				t.Fatal(err)
			}
			g := make([]float64, len(y))
			k.MulVec(g, m.Alpha)
			for i := range g {
				if r := g[i] + c*m.Alpha[i] - y[i]; math.Abs(r) > 1e-8 {
					t.Errorf("%s c=%g: residual %g at %d", name, c, r, i)
				}
			}
		}
	}
	// The sum-objective subgradient flow converges to the KRR solution with c = λ/2.
	const lambda = 2.0
	k := NewDense(kd)
	m, _ := KRR(context.Background(), k, y, KRRShift(lambda, ObjectiveSum, len(y)))
	s, err := TrainSubgradient(context.Background(), k, y, SubgradientConfig{Loss: Squared, Lambda: lambda, LR: 0.01, Steps: 5000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Alpha {
		if math.Abs(m.Alpha[i]-s.Machine.Alpha[i]) > 1e-6 {
			t.Fatalf("α[%d]: KRR %g, gradient descent %g", i, m.Alpha[i], s.Machine.Alpha[i])
		}
	}
	if KRRShift(lambda, ObjectiveMean, 10) != 10 {
		t.Error("mean shift")
	}
	bad, _ := linalg.FromSlice(2, 2, []float64{1, 1, 1, 1})
	if _, err := KRR(context.Background(), NewDense(bad), []float64{1, 2}, 0); err == nil {
		t.Error("singular K with c = 0 accepted")
	}
}

// TestMulVec32 checks the float32 product against a float64 reference on
// the same float32 elements, for row counts around the 4-row blocks and
// column counts around the float32 summation blocks.
func TestMulVec32(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, rows := range []int{1, 3, 4, 5, 9, 70} {
		for _, cols := range []int{1, 127, 128, 129, 300} {
			k := linalg.New[float32](rows, cols)
			x := make([]float64, cols)
			for j := range x {
				x[j] = rng.NormFloat64()
			}
			for i := range k.Data {
				k.Data[i] = float32(rng.Float64())
			}
			got := make([]float64, rows)
			NewDense(k).MulVec(got, x)
			for i := range rows {
				var want, abs float64
				for j, v := range k.Row(i) {
					want += float64(v) * x[j]
					abs += math.Abs(float64(v) * x[j])
				}
				if math.Abs(got[i]-want) > 1e-5*abs {
					t.Fatalf("%d×%d row %d: %g, want %g (Σ|·| = %g)", rows, cols, i, got[i], want, abs)
				}
			}
		}
	}
}

// TestKRRInPlace checks that KRRInPlace gives KRR's α bit for bit while
// reading only the lower triangle (the upper one, its workspace, is NaN
// here), on a Gram large enough for the blocked factorisation, and its
// errors.
func TestKRRInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, y := blobs(rng, 300, 1)
	kd := rbfGram(x, x, 0.5)
	for _, c := range []float64{1e-3, 0.5} {
		want, err := KRR(context.Background(), NewDense(kd), y, c)
		if err != nil {
			t.Fatal(err)
		}
		n := kd.Rows
		k := linalg.New[float64](n, n)
		for i := range n {
			for j := range n {
				if j <= i {
					k.Set(i, j, kd.At(i, j))
				} else {
					k.Set(i, j, math.NaN())
				}
			}
		}
		got, err := KRRInPlace(context.Background(), k, y, c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want.Alpha {
			if math.Float64bits(got.Alpha[i]) != math.Float64bits(want.Alpha[i]) {
				t.Fatalf("c=%g: α[%d] = %v in place, %v by KRR", c, i, got.Alpha[i], want.Alpha[i])
			}
		}
	}
	bad, _ := linalg.FromSlice(2, 2, []float64{1, 1, 1, 1})
	if _, err := KRRInPlace(context.Background(), bad, []float64{1, 2}, 0); err == nil {
		t.Error("singular K with c = 0 accepted")
	}
	rect := linalg.New[float64](2, 3)
	if _, err := KRRInPlace(context.Background(), rect, []float64{1, 2}, 1); !errors.Is(err, ErrInput) {
		t.Errorf("2×3 Gram: %v, want ErrInput", err)
	}
}

// refBestBias is bestBias's refinement as it was before its hinge loss was
// written out and its values cached: the reference the faster one must
// match bit for bit (both start from libsvmBias).
func refBestBias(s *smo) float64 {
	b0 := s.libsvmBias()
	F := func(b float64) float64 {
		var v float64
		for i, gi := range s.g {
			v += s.loss.Value(gi+b, s.y[i])
		}
		return v
	}
	lo, hi := b0-1, b0+1
	for range 60 {
		if F(lo) > F(b0) && F(hi) > F(b0) {
			break
		}
		if F(lo) <= F(b0) {
			lo = b0 - 2*(b0-lo)
		}
		if F(hi) <= F(b0) {
			hi = b0 + 2*(hi-b0)
		}
	}
	const r = 0.6180339887498949
	x1, x2 := hi-r*(hi-lo), lo+r*(hi-lo)
	f1, f2 := F(x1), F(x2)
	for range 80 {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - r*(hi-lo)
			f1 = F(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + r*(hi-lo)
			f2 = F(x2)
		}
	}
	best := (lo + hi) / 2
	if F(best) < F(b0) {
		return best
	}
	return b0
}

// TestBestBiasBits checks bestBias against refBestBias on random states,
// for the hinge and squared hinge losses, with free variables, with none,
// and with the minimum far from the first estimate (the widening loop).
func TestBestBiasBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for round := range 60 {
		n := 5 + rng.IntN(300)
		s := &smo{n: n, nv: n, ub: make([]float64, n), loss: Hinge}
		for i := range s.ub {
			s.ub[i] = 2
		}
		if round%3 == 1 {
			s.loss = SquaredHinge
		}
		s.y, s.sgn, s.g, s.G, s.a = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		off := 0.0
		if round%4 == 3 {
			off = 50 // the minimum far from b0: widening
		}
		for i := range n {
			s.y[i] = float64(1 - 2*rng.IntN(2))
			s.sgn[i] = s.y[i]
			s.g[i] = rng.NormFloat64()*2 + off
			s.G[i] = rng.NormFloat64()
			switch k := rng.IntN(3); {
			case round%5 == 4 || k == 0:
				s.a[i] = 0
			case k == 1:
				s.a[i] = s.ub[i]
			default:
				s.a[i] = rng.Float64() * s.ub[i]
			}
		}
		got, want := s.bestBias(), refBestBias(s)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("round %d (n=%d, %s): b = %v, reference %v", round, n, s.loss.Name(), got, want)
		}
	}
}

// TestInitKa checks that a warm start handed K·α (DualResult.Ka) solves to
// the same bits as one that computes it, along a path of C values as model
// selection walks it, for the hinge and the ε-insensitive duals; and that
// a K·α of the wrong length, or without Init, is refused.
func TestInitKa(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := blobs(rng, 60, 0.9)
	k := NewDense(rbfGram(x, x, 0.7))
	for _, tc := range []struct {
		name string
		loss Loss
	}{{"hinge", Hinge}, {"svr", EpsInsensitiveLoss(0.1)}} {
		var plain, fast *DualResult
		for _, c := range []float64{0.01, 0.1, 1, 10, 100} {
			cfg := DualConfig{Loss: tc.loss, Lambda: 1 / c, Bias: true, KKT: 1e-3}
			if plain != nil {
				cfg.Init = plain.Dual
			}
			p, err := SolveDual(context.Background(), k, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if fast != nil {
				cfg.Init, cfg.InitKa = fast.Dual, fast.Ka
			}
			f, err := SolveDual(context.Background(), k, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if p.Machine.Bias != f.Machine.Bias || p.Iterations != f.Iterations || !slicesEqualBits(p.Machine.Alpha, f.Machine.Alpha) || !slicesEqualBits(p.Ka, f.Ka) {
				t.Fatalf("%s C=%g: with InitKa %v, without %v", tc.name, c, f, p)
			}
			plain, fast = p, f
		}
	}
	for _, cfg := range []DualConfig{
		{Loss: Hinge, Lambda: 1, Bias: true, InitKa: make([]float64, 60)},
		{Loss: Hinge, Lambda: 1, Bias: true, Init: make([]float64, 60), InitKa: make([]float64, 59)},
	} {
		if _, err := SolveDual(context.Background(), k, y, cfg); err == nil {
			t.Errorf("InitKa of %d (Init %d): no error", len(cfg.InitKa), len(cfg.Init))
		}
	}
}

func slicesEqualBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
