package ondemand

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// points returns n inputs in [0, 1)^d, with labels from a noisy linear
// rule, and a duplicate point.
func points(n, d int, seed uint64) (linalg.Matrix[float64], []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := linalg.New[float64](n, d)
	for i := range x.Data {
		x.Data[i] = rng.Float64()
	}
	copy(x.Row(n-1), x.Row(0))
	y := make([]float64, n)
	for i := range n {
		var s float64
		for j, v := range x.Row(i) {
			s += v * float64(j%3-1)
		}
		y[i] = 1
		if s+0.3*rng.NormFloat64() < 0 {
			y[i] = -1
		}
	}
	return x, y
}

// TestMatchesDense checks every method against the dense Gram of
// ntk.Gram (to rounding: the products are computed in another order),
// and that a tiny cache and small blocks give the same bits as a cache
// holding every row.
func TestMatchesDense(t *testing.T) {
	ctx := context.Background()
	x, _ := points(301, 23, 1)
	n := x.Rows
	// The NTK, the NNGP, and the NTK with its first layer fixed.
	for _, tc := range []struct {
		kind  ntk.Kind
		fixed int
	}{{ntk.KindNTK, 0}, {ntk.KindNNGP, 0}, {ntk.KindNTK, 1}} {
		kind := tc.kind
		p := ntk.Spec{Kind: kind, Depth: 2, WeightStd: 1.2, BiasStd: 0.1, Fixed: tc.fixed}
		dense, err := ntk.Gram(ctx, p, x, ntk.Options{})
		if err != nil {
			t.Fatal(err)
		}
		big, err := NewNTK[float64](ctx, x, p, Config{CacheBytes: RowBytes[float64](n) * int64(n)})
		if err != nil {
			t.Fatal(err)
		}
		small, err := NewNTK[float64](ctx, x, p, Config{CacheBytes: 3 * RowBytes[float64](n), BlockRows: 7})
		if err != nil {
			t.Fatal(err)
		}
		scale := 0.0
		for i := range n {
			scale = max(scale, dense.At(i, i))
			if big.At(i, i) != dense.At(i, i) {
				t.Fatalf("%v: diagonal %d: %v, dense %v", kind, i, big.At(i, i), dense.At(i, i))
			}
		}
		rb, rs := make([]float64, n), make([]float64, n)
		for _, i := range []int{0, 5, n - 1, 5, 17, 0, 200} {
			big.RowTo(rb, i)
			small.RowTo(rs, i)
			for j := range n {
				if rb[j] != rs[j] {
					t.Fatalf("%v: row %d col %d: %v with a full cache, %v with a small one", kind, i, j, rb[j], rs[j])
				}
				if math.Abs(rb[j]-dense.At(i, j)) > 1e-14*scale {
					t.Fatalf("%v: row %d col %d: %v, dense %v", kind, i, j, rb[j], dense.At(i, j))
				}
			}
			if rb[i] != dense.At(i, i) {
				t.Fatalf("%v: row %d's diagonal element %v, dense %v", kind, i, rb[i], dense.At(i, i))
			}
		}
		if got := small.At(3, 9); math.Abs(got-dense.At(3, 9)) > 1e-14*scale {
			t.Errorf("%v: At(3, 9) = %v, dense %v", kind, got, dense.At(3, 9))
		}
		v := make([]float64, n)
		rng := rand.New(rand.NewPCG(2, 2))
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		want := make([]float64, n)
		svm.NewDense(dense).MulVec(want, v)
		gb, gs := make([]float64, n), make([]float64, n)
		big.MulVec(gb, v)
		small.MulVec(gs, v)
		for i := range n {
			if gb[i] != gs[i] || math.Abs(gb[i]-want[i]) > 1e-12*scale*float64(n) {
				t.Fatalf("%v: MulVec[%d]: full cache %v, small %v, dense %v", kind, i, gb[i], gs[i], want[i])
			}
		}
		rows := []int{4, 100, 4, 300, 2, 250, 11, 12, 13, 14, 15, 16, 17, 18, 19}
		w := v[:len(rows)]
		clear(want)
		svm.NewDense(dense).AddRows(want, rows, w)
		ab, as := make([]float64, n), make([]float64, n)
		big.AddRows(ab, rows, w)
		small.AddRows(as, rows, w)
		for i := range n {
			if ab[i] != as[i] || math.Abs(ab[i]-want[i]) > 1e-13*scale*float64(len(rows)) {
				t.Fatalf("%v: AddRows[%d]: full cache %v, small %v, dense %v", kind, i, ab[i], as[i], want[i])
			}
		}
		if err := small.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLRU follows the cache through a sequence of requests.
func TestLRU(t *testing.T) {
	n := 10
	calls := 0
	f := func(_ context.Context, rows []int, dst linalg.Matrix[float64]) error {
		calls++
		for k, r := range rows {
			for j := range n {
				dst.Row(k)[j] = float64(r*100 + j)
			}
		}
		return nil
	}
	m, err := New(context.Background(), n, make([]float64, n), f, Config{CacheBytes: 3 * RowBytes[float64](n), BlockRows: 4})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float64, n)
	get := func(i int) {
		m.RowTo(row, i)
		if row[7] != float64(i*100+7) {
			t.Fatalf("row %d: %v", i, row)
		}
	}
	get(1)
	get(2)
	get(3)
	get(1) // hit; LRU order 1 3 2
	get(4) // evicts 2
	get(2) // miss, evicts 3
	get(1) // hit
	s := m.Stats()
	if s.Hits != 2 || s.Misses != 5 || s.Evictions != 2 || s.CachedRows != 3 || s.CapacityRows != 3 || calls != 5 {
		t.Errorf("stats %+v, %d calls; want 2 hits, 5 misses, 2 evictions, 3 of 3 rows, 5 calls", s, calls)
	}
	// At reads the cached transpose: rows 1, 2 and 4 are cached, so
	// K(9, 4) comes from row 4 at column 9 without computing row 9.
	if v := m.At(9, 4); v != 409 || m.Stats().Misses != 5 {
		t.Errorf("At(9, 4) = %v (misses %d); want 409 from the cached row 4", v, m.Stats().Misses)
	}
	// AddRows: 3 missing rows in one call of the block, then cached.
	dst := make([]float64, n)
	m.AddRows(dst, []int{5, 6, 7, 1}, []float64{1, 1, 1, 0})
	if dst[0] != 1800 || calls != 6 {
		t.Errorf("AddRows: dst[0] = %v after %d calls; want 1800 after 6", dst[0], calls)
	}
	// MulVec streams 10 rows in blocks of 4, computing those not cached.
	before := m.Stats().RowsComputed
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	out := make([]float64, n)
	m.MulVec(out, ones)
	if out[3] != 3045 || m.Stats().RowsComputed-before != 7 {
		t.Errorf("MulVec: out[3] = %v, %d rows computed; want 3045, 7", out[3], m.Stats().RowsComputed-before)
	}
}

// TestSolveDual: the SMO reaches the dense Gram's dual optimum on the
// on-demand Gram with a cache of a tenth of the rows, for every dual, and
// the result does not depend on the thread count.
func TestSolveDual(t *testing.T) {
	ctx := context.Background()
	x, y := points(500, 30, 3)
	n := x.Rows
	p := ntk.DefaultSpec(1)
	dense, err := ntk.Gram(ctx, p, x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	yr := make([]float64, n)
	for i := range yr {
		yr[i] = y[i] * (1 + 0.1*float64(i%7))
	}
	for _, tc := range []struct {
		name string
		cfg  svm.DualConfig
		y    []float64
	}{
		{"hinge bias", svm.DualConfig{Loss: svm.Hinge, Lambda: 0.05, Bias: true, Tol: 1e-9}, y},
		{"hinge", svm.DualConfig{Loss: svm.Hinge, Lambda: 0.05, Tol: 1e-9}, y},
		{"squared hinge", svm.DualConfig{Loss: svm.SquaredHinge, Lambda: 0.5, Bias: true, Tol: 1e-9}, y},
		{"svr", svm.DualConfig{Loss: svm.EpsInsensitiveLoss(0.1), Lambda: 0.1, Bias: true, Tol: 1e-9}, yr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := svm.SolveDual(ctx, svm.NewDense(dense), tc.y, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got [2]*svm.DualResult
			for k, threads := range []int{1, 2} {
				linalg.SetThreads(threads)
				m, err := NewNTK[float64](ctx, x, p, Config{CacheBytes: int64(n/10) * RowBytes[float64](n), BlockRows: 64})
				if err != nil {
					t.Fatal(err)
				}
				got[k], err = svm.SolveDual(ctx, m, tc.y, tc.cfg)
				linalg.SetThreads(0)
				if err != nil {
					t.Fatal(err)
				}
				if !got[k].Converged || !want.Converged {
					t.Fatalf("not converged: on demand %v, dense %v", got[k], want)
				}
				if d := math.Abs(got[k].DualObj-want.DualObj) / math.Abs(want.DualObj); d > 1e-8 {
					t.Errorf("threads %d: dual %v, dense %v (relative %.2g)", threads, got[k].DualObj, want.DualObj, d)
				}
			}
			if got[0].DualObj != got[1].DualObj || got[0].Iterations != got[1].Iterations || got[0].Machine.Bias != got[1].Machine.Bias {
				t.Errorf("1 thread: %v\n2 threads: %v", got[0], got[1])
			}
			for i, a := range got[0].Machine.Alpha {
				if a != got[1].Machine.Alpha[i] {
					t.Fatalf("α[%d]: %v with 1 thread, %v with 2", i, a, got[1].Machine.Alpha[i])
				}
			}
		})
	}
}

// TestFloat32Storage: rows stored in float32 are the float64 rows rounded
// once.
func TestFloat32Storage(t *testing.T) {
	ctx := context.Background()
	x, _ := points(200, 10, 4)
	p := ntk.DefaultSpec(2)
	m64, err := NewNTK[float64](ctx, x, p, Config{})
	if err != nil {
		t.Fatal(err)
	}
	m32, err := NewNTK[float32](ctx, x, p, Config{CacheBytes: 4 * RowBytes[float32](200)})
	if err != nil {
		t.Fatal(err)
	}
	r64, r32 := make([]float64, 200), make([]float64, 200)
	for _, i := range []int{0, 50, 199, 7, 8, 9, 50} {
		m64.RowTo(r64, i)
		m32.RowTo(r32, i)
		for j := range r64 {
			if r32[j] != float64(float32(r64[j])) {
				t.Fatalf("row %d col %d: float32 %v, float64 %v", i, j, r32[j], r64[j])
			}
		}
	}
	if m32.At(4, 4) != m64.At(4, 4) {
		t.Errorf("the diagonal is kept in float64: %v, %v", m32.At(4, 4), m64.At(4, 4))
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	f := func(context.Context, []int, linalg.Matrix[float64]) error { return nil }
	for _, tc := range []struct {
		name string
		n    int
		diag []float64
		f    RowFunc[float64]
		cfg  Config
		want string
	}{
		{"no points", 0, nil, f, Config{}, "at least one"},
		{"diag length", 3, []float64{1, 1}, f, Config{}, "diagonal of 2"},
		{"diag NaN", 2, []float64{1, math.NaN()}, f, Config{}, "element 1"},
		{"diag negative", 2, []float64{-1, 1}, f, Config{}, "element 0"},
		{"no func", 2, []float64{1, 1}, nil, Config{}, "no row function"},
		{"tiny cache", 1000, make([]float64, 1000), f, Config{CacheBytes: 8000}, "2 rows"},
		{"block", 2, []float64{1, 1}, f, Config{BlockRows: -1}, "block"},
	} {
		if _, err := New(ctx, tc.n, tc.diag, tc.f, tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
	x := linalg.New[float64](3, 2)
	x.Set(1, 1, math.Inf(1))
	if _, err := NewNTK[float32](ctx, x, ntk.DefaultSpec(1), Config{}); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("infinite input: %v", err)
	}
	if _, err := NewNTK[float32](ctx, linalg.New[float64](3, 2), ntk.Spec{Kind: ntk.Kind(7), Depth: 1, WeightStd: 1}, Config{}); err == nil {
		t.Error("unknown kind accepted")
	}
}

// TestCancel: once ctx is cancelled, rows not cached are NaN, Err says
// why, and SolveDual on the same ctx returns ctx's error.
func TestCancel(t *testing.T) {
	x, y := points(100, 5, 5)
	ctx, cancel := context.WithCancel(context.Background())
	m, err := NewNTK[float64](ctx, x, ntk.DefaultSpec(1), Config{})
	if err != nil {
		t.Fatal(err)
	}
	row := make([]float64, 100)
	m.RowTo(row, 3)
	cancel()
	m.RowTo(row, 4)
	if !math.IsNaN(row[0]) || !errors.Is(m.Err(), context.Canceled) {
		t.Errorf("after cancel: row[0] = %v, Err %v", row[0], m.Err())
	}
	m.RowTo(row, 3)
	if math.IsNaN(row[0]) {
		t.Error("a cached row became NaN")
	}
	if _, err := svm.SolveDual(ctx, m, y, svm.DualConfig{Loss: svm.Hinge, Lambda: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("SolveDual: %v", err)
	}
}
