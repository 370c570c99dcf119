package falkon

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// data returns n inputs in [0, 1)^d and c outputs of a smooth function
// with noise.
func data(n, d, c int, seed uint64) (linalg.Matrix[float64], linalg.Matrix[float64]) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := linalg.New[float64](n, d)
	for i := range x.Data {
		x.Data[i] = rng.Float64()
	}
	y := linalg.New[float64](n, c)
	for i := range n {
		for j := range c {
			var s float64
			for k, v := range x.Row(i) {
				s += v * math.Sin(float64(k*(j+1)))
			}
			y.Set(i, j, math.Tanh(s)+0.1*rng.NormFloat64())
		}
	}
	return x, y
}

func relDiff(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = max(num, math.Abs(a[i]-b[i]))
		den = max(den, math.Abs(b[i]))
	}
	return num / den
}

// TestEqualsKRR: with every point a centre, Fit is svm.KRR for each
// output.
func TestEqualsKRR(t *testing.T) {
	ctx := context.Background()
	x, y := data(300, 20, 3, 1)
	// The NTK, and the NTK with its first layer fixed (the kernel of
	// every block is the one of the Spec).
	for _, fixed := range []int{0, 1} {
		p := ntk.Spec{Depth: 2, WeightStd: 1, BiasStd: 0.2, Fixed: fixed}
		equalsKRR(t, ctx, x, y, p)
	}
}

func equalsKRR(t *testing.T, ctx context.Context, x, y linalg.Matrix[float64], p ntk.Spec) {
	t.Helper()
	k, err := NewNTK(x, p)
	if err != nil {
		t.Fatal(err)
	}
	gram, err := ntk.Gram(ctx, p, x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, shift := range []float64{1e-3, 0.1, 10} {
		r, err := Fit(ctx, k, y, Config{M: x.Rows, Shift: shift, Tol: 1e-14, MaxIter: 50, BlockRows: 64})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Centres, seq(x.Rows)) {
			t.Fatalf("centres %v", r.Centres)
		}
		for j := range y.Cols {
			col := column(y, j)
			km, err := svm.KRR(ctx, svm.NewDense(gram), col, shift)
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(column(r.Alpha, j), km.Alpha); d > 1e-8 {
				t.Errorf("%+v, c = %g, output %d: α differs from KRR's by %.3g relative (%d iterations, residuals %v)", p, shift, j, d, r.Iterations, r.Residuals)
			}
		}
		t.Logf("c = %g: %d iterations, jitter %.3g", shift, r.Iterations, r.Jitter)
	}
}

// TestNystrom: with M < n centres (uniform and by leverage scores), Fit
// solves the normal equations (1), checked against a dense solve of
// them, and Predict is K(z, C)α.
func TestNystrom(t *testing.T) {
	ctx := context.Background()
	x, y := data(400, 12, 2, 2)
	p := ntk.DefaultSpec(1)
	k, err := NewNTK(x, p)
	if err != nil {
		t.Fatal(err)
	}
	gram, err := ntk.Gram(ctx, p, x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{
		{M: 40, Shift: 0.05, Seed: 3, Tol: 1e-13},
		{M: 40, Shift: 0.05, Seed: 3, Tol: 1e-13, Leverage: true, LeverageSample: 60},
		{Centres: []int{399, 0, 17, 5, 200}, Shift: 1, Tol: 1e-13, BlockRows: 33},
	} {
		r, err := Fit(ctx, k, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := len(r.Centres)
		if cfg.M > 0 && m != cfg.M || !slices.IsSorted(r.Centres) || len(slices.Compact(slices.Clone(r.Centres))) != m {
			t.Fatalf("centres %v", r.Centres)
		}
		// Dense (K_nMᵀK_nM + cK_MM)α = K_nMᵀY.
		knm := linalg.New[float64](x.Rows, m)
		for i := range x.Rows {
			for j, c := range r.Centres {
				knm.Set(i, j, gram.At(i, c))
			}
		}
		h := linalg.New[float64](m, m)
		if err := linalg.Gemm(linalg.Trans, linalg.NoTrans, 1, knm, knm, 0, h); err != nil {
			t.Fatal(err)
		}
		for a, ca := range r.Centres {
			for b, cb := range r.Centres {
				h.Set(a, b, h.At(a, b)+cfg.Shift*gram.At(ca, cb))
			}
		}
		rhs := linalg.New[float64](m, y.Cols)
		if err := linalg.Gemm(linalg.Trans, linalg.NoTrans, 1, knm, y, 0, rhs); err != nil {
			t.Fatal(err)
		}
		if err := linalg.SolveSPD(h, rhs); err != nil {
			t.Fatal(err)
		}
		if d := relDiff(r.Alpha.Data, rhs.Data); d > 1e-7 {
			t.Errorf("leverage %v, M = %d: α differs from the dense normal equations' by %.3g (%d iterations)", cfg.Leverage, m, d, r.Iterations)
		}
		t.Logf("leverage %v M %d: %d iterations", cfg.Leverage, m, r.Iterations)
		// Predict on the first 50 training points as test inputs.
		b, err := k.Centre(r.Centres)
		if err != nil {
			t.Fatal(err)
		}
		f, err := b.(*NTKBlocks[float64]).Test(x.Slice(0, 50, 0, x.Cols))
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Predict(ctx, 50, f)
		if err != nil {
			t.Fatal(err)
		}
		want := linalg.New[float64](50, y.Cols)
		if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, knm.Slice(0, 50, 0, m), r.Alpha, 0, want); err != nil {
			t.Fatal(err)
		}
		if d := relDiff(got.Data, want.Data); d > 1e-6 {
			t.Errorf("Predict differs from K(z, C)α by %.3g", d)
		}
	}
}

// TestDeterministic: the same bits with one and two threads.
func TestDeterministic(t *testing.T) {
	ctx := context.Background()
	x, y := data(1500, 30, 3, 4)
	k, err := NewNTK(x, ntk.DefaultSpec(2))
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, leverage := range []bool{false, true} {
		var alpha [2][]float64
		for i, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			cfg := Config{M: 300, Shift: 0.01, Seed: 9, MaxIter: 15, Leverage: leverage, BlockRows: 200}
			if leverage {
				cfg.StoreBytes = 3 * 200 * 300 * 4 // 3 of the 8 blocks kept in float32
			}
			r, err := Fit(ctx, k, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			alpha[i] = r.Alpha.Data
		}
		for i := range alpha[0] {
			if alpha[0][i] != alpha[1][i] {
				t.Fatalf("leverage %v: α[%d]: %v with GOMAXPROCS 1, %v with 2", leverage, i, alpha[0][i], alpha[1][i])
			}
		}
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	x, y := data(20, 3, 1, 5)
	k, err := NewNTK(x, ntk.DefaultSpec(1))
	if err != nil {
		t.Fatal(err)
	}
	bad := y.Clone()
	bad.Set(3, 0, math.NaN())
	for _, tc := range []struct {
		name string
		y    linalg.Matrix[float64]
		cfg  Config
		want string
	}{
		{"targets", linalg.New[float64](19, 1), Config{M: 5, Shift: 1}, "targets are 19×1"},
		{"NaN target", bad, Config{M: 5, Shift: 1}, "(3, 0)"},
		{"shift", y, Config{M: 5}, "shift"},
		{"M", y, Config{M: 21, Shift: 1}, "M = 21"},
		{"centre range", y, Config{Centres: []int{0, 20}, Shift: 1}, "centre 20"},
		{"centre twice", y, Config{Centres: []int{3, 3}, Shift: 1}, "twice"},
		{"negative", y, Config{M: 3, Shift: 1, MaxIter: -1}, "negative"},
	} {
		if _, err := Fit(ctx, k, tc.y, tc.cfg); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInput mentioning %q", tc.name, err, tc.want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Fit(cctx, k, y, Config{M: 5, Shift: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := NewNTK(x, ntk.Spec{Kind: ntk.Kind(9), Depth: 1, WeightStd: 1}); err == nil {
		t.Error("unknown kind accepted")
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func column(m linalg.Matrix[float64], j int) []float64 {
	c := make([]float64, m.Rows)
	for i := range c {
		c[i] = m.At(i, j)
	}
	return c
}

// TestStoreBlocks: blocks of K_nM kept in float32 change α by about
// float32 rounding, and only the blocks that fit are kept.
func TestStoreBlocks(t *testing.T) {
	ctx := context.Background()
	x, y := data(500, 10, 2, 6)
	k, err := NewNTK(x, ntk.DefaultSpec(1))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{M: 50, Shift: 0.1, Seed: 1, BlockRows: 100, Tol: 1e-12}
	want, err := Fit(ctx, k, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.StoreBytes = 2*100*50*4 + 10
	got, err := Fit(ctx, k, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got.StoredBlocks != 2 || want.StoredBlocks != 0 {
		t.Errorf("stored %d and %d blocks; want 2 and 0", got.StoredBlocks, want.StoredBlocks)
	}
	if d := relDiff(got.Alpha.Data, want.Alpha.Data); d > 1e-4 || d == 0 {
		t.Errorf("α with stored blocks differs by %.3g relative; want float32 rounding's effect", d)
	}
}
