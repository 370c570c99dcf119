package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// directFuncs gives the typed view of one kernel set's direct kernel.
type directFuncs[T float] struct {
	mr, nr int
	has    bool // the set has a kernel of its own
	direct func(kc, m, n int, alpha T, a []T, rs, ps int, b []T, ldb int, beta T, c []T, ldc int)
}

func directs32(k *Kernels) directFuncs[float32] {
	return directFuncs[float32]{k.mr32, k.nr32, k.HasGemmDirect32(), k.GemmDirect32}
}

func directs64(k *Kernels) directFuncs[float64] {
	return directFuncs[float64]{k.mr64, k.nr64, k.HasGemmDirect64(), k.GemmDirect64}
}

// directKs are the depths of the direct-kernel tests: below, at and
// around the unroll of the k loop, and deeper odd ones.
var directKs = []int{0, 1, 2, 3, 4, 5, 17, 67}

// directLayout says how the tests store A: as op(A) (rs = lda, ps = 1) or
// transposed (rs = 1, ps = lda).
type directLayout struct {
	name  string
	trans bool
}

var directLayouts = []directLayout{{"A", false}, {"At", true}}

// directCase is one direct-tile problem: A and B with NaN in the padding
// (any read of it into a kept sum shows), and a guarded C with canaries in
// and around its rows outside the m×n corner.
type directCase[T float] struct {
	a      []T
	rs, ps int
	b      []T
	ldb    int
	c, c0  []T
	ldc    int
	intact func() bool
}

// newDirectCase builds a k-deep m×n problem with lda, ldb and ldc pad
// elements longer than needed.
func newDirectCase[T float](rng *rand.Rand, m, n, k, pad int, trans bool) directCase[T] {
	nan := T(math.NaN())
	var dc directCase[T]
	rows, cols := m, k // A as stored
	if trans {
		rows, cols = k, m
	}
	lda := cols + pad
	dc.a = make([]T, max(rows*lda, 1))
	for i := range dc.a {
		dc.a[i] = nan
	}
	for i := range rows {
		for j := range cols {
			dc.a[i*lda+j] = T(2*rng.Float64() - 1)
		}
	}
	dc.rs, dc.ps = lda, 1
	if trans {
		dc.rs, dc.ps = 1, lda
	}
	dc.ldb = n + pad
	dc.b = make([]T, max(k*dc.ldb, 1))
	for i := range dc.b {
		dc.b[i] = nan
	}
	for p := range k {
		for j := range n {
			dc.b[p*dc.ldb+j] = T(2*rng.Float64() - 1)
		}
	}
	dc.ldc = n + pad
	tc := newTileCase[T](rng, 1, 1, m, n, 0, dc.ldc)
	dc.c, dc.c0, dc.intact = tc.c, tc.c0, tc.intact
	return dc
}

// A returns A(i,p).
func (dc directCase[T]) A(i, p int) T { return dc.a[i*dc.rs+p*dc.ps] }

// check compares the m×n corner of got with the float64 reference
// alpha·A·B + beta·C0 within 2·(k+2)·ε·(|alpha|·|A|·|B| + |beta·C0|), and
// returns a description of the first violation or "".
func (dc directCase[T]) check(m, n, k int, alpha, beta T, got []T) string {
	u := eps[T]()
	for i := range m {
		for j := range n {
			var s, mag float64
			for p := range k {
				x := float64(dc.A(i, p)) * float64(dc.b[p*dc.ldb+j])
				s += x
				mag += math.Abs(x)
			}
			c0 := 0.0
			if beta != 0 {
				c0 = float64(beta) * float64(dc.c0[i*dc.ldc+j])
			}
			ref := float64(alpha)*s + c0
			mag = math.Abs(float64(alpha))*mag + math.Abs(c0)
			g := float64(got[i*dc.ldc+j])
			if tol := 2*float64(k+2)*u*mag + 1e-300; !(math.Abs(g-ref) <= tol) {
				return fmt.Sprintf("C[%d,%d] = %v, want %v ± %.3g", i, j, g, ref, tol)
			}
		}
	}
	return ""
}

// directScalars are the (alpha, beta) pairs of the direct-kernel tests:
// beta = 1, ±0 (over NaN in C, which must not propagate: −0 is 0 too) and
// others; alpha and beta 0.3 are not powers of 2, so alpha·s + C must
// round once.
var directScalars = [][2]float64{{1, 1}, {-0.5, 1}, {0.3, 1}, {1, 0}, {0.3, 0}, {-0.5, math.Copysign(0, -1)}, {-0.5, 0.3}, {0.3, -1.5}}

// TestGemmDirect runs every set's GemmDirect on every m ≤ MR, n ≤ NR and
// depth of directKs, A stored both ways, ldb and ldc larger than n, and
// the scalars of directScalars: the result must be bitwise the Go twin's,
// within rounding of the float64 reference, and C outside the corner
// untouched.
func TestGemmDirect(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testDirect(t, directs32(k)) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testDirect(t, directs64(k)) })
	}
}

func testDirect[T float](t *testing.T, f directFuncs[T]) {
	rng := rand.New(rand.NewPCG(31, uint64(f.mr*f.nr)))
	ks := directKs
	if testing.Short() && !f.has {
		ks = []int{0, 5} // the Go twin against itself: only the plumbing
	}
	for _, k := range ks {
		for m := 0; m <= f.mr; m++ {
			for n := 0; n <= f.nr; n++ {
				for _, l := range directLayouts {
					for si, sc := range directScalars {
						alpha, beta := T(sc[0]), T(sc[1])
						pad := 1 + (m+n+si)%3
						dc := newDirectCase[T](rng, m, n, k, pad, l.trans)
						if beta == 0 {
							for i := range m {
								for j := range n {
									dc.c[i*dc.ldc+j] = T(math.NaN())
								}
							}
							copy(dc.c0, dc.c)
						}
						where := fmt.Sprintf("k=%d m=%d n=%d %s alpha=%v beta=%v", k, m, n, l.name, alpha, beta)
						f.direct(k, m, n, alpha, dc.a, dc.rs, dc.ps, dc.b, dc.ldb, beta, dc.c, dc.ldc)
						if !dc.intact() {
							t.Fatalf("%s: wrote outside the m×n corner", where)
						}
						if msg := dc.check(m, n, k, alpha, beta, dc.c); msg != "" {
							t.Fatalf("%s: %s", where, msg)
						}
						want := append([]T(nil), dc.c0...)
						gemmDirectGo(k, m, n, alpha, dc.a, dc.rs, dc.ps, dc.b, dc.ldb, beta, want, dc.ldc)
						if i := firstDiff(dc.c, want); i >= 0 {
							t.Fatalf("%s: C[%d,%d] = %v, Go twin %v", where, i/dc.ldc, i%dc.ldc, dc.c[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestGemmDirectSpecials checks that infinities and NaNs in A and B
// propagate to exactly the entries they reach, that alpha scales the sum
// and not C, and that a −0 in C plus a sum of +0 gives +0, as an FMA does.
func TestGemmDirectSpecials(t *testing.T) {
	for _, ks := range available {
		t.Run("impl="+ks.name, func(t *testing.T) {
			mr, nr := ks.Tile32()
			const kc = 9
			m, n := mr-1, nr-1
			a := make([]float32, m*kc) // A as stored, lda = kc
			b := make([]float32, kc*n) // ldb = n
			for i := range a {
				a[i] = 1
			}
			for i := range b {
				b[i] = 0.5
			}
			a[(m-1)*kc+4] = float32(math.Inf(1)) // row m-1 gets +Inf
			b[7*n+n-1] = float32(math.NaN())     // column n-1 gets NaN
			for p := range kc {
				b[p*n] = 0 // column 0 sums to +0 (but +Inf·0 is NaN in row m-1)
			}
			c := make([]float32, m*n)
			for i := range c {
				c[i] = 3
			}
			c[0] = float32(math.Copysign(0, -1))
			ks.GemmDirect32(kc, m, n, 2, a, kc, 1, b, n, 1, c, n)
			for i := range m {
				for j := range n {
					v := c[i*n+j]
					switch {
					case j == n-1 || (i == m-1 && j == 0):
						if !isNaN(v) {
							t.Fatalf("C[%d,%d] = %v, want NaN", i, j, v)
						}
					case i == m-1:
						if !math.IsInf(float64(v), 1) {
							t.Fatalf("C[%d,%d] = %v, want +Inf", i, j, v)
						}
					case i == 0 && j == 0:
						// alpha·(+0) + (−0) is +0 in IEEE arithmetic.
						if v != 0 || math.Signbit(float64(v)) {
							t.Fatalf("C[0,0] = %v (sign %v), want +0", v, math.Signbit(float64(v)))
						}
					case j == 0:
						if v != 3 {
							t.Fatalf("C[%d,0] = %v, want 3", i, v)
						}
					case v != 2*kc*0.5+3:
						t.Fatalf("C[%d,%d] = %v, want %v", i, j, v, 2*kc*0.5+3)
					}
				}
			}
		})
	}
}

func TestGemmDirectPanics(t *testing.T) {
	k := Active()
	mr, nr := k.Tile32()
	const kc = 4
	a := make([]float32, mr*kc)
	b := make([]float32, kc*nr)
	c := make([]float32, mr*nr)
	call := func(kc, m, n, rs, ps, ldb, ldc int, a, b, c []float32) func() {
		return func() { k.GemmDirect32(kc, m, n, 1, a, rs, ps, b, ldb, 1, c, ldc) }
	}
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"m > MR", call(kc, mr+1, nr, kc, 1, nr, nr, make([]float32, (mr+1)*kc), b, make([]float32, (mr+1)*nr))},
		{"n > NR", call(kc, mr, nr+1, kc, 1, nr+1, nr+1, a, make([]float32, kc*(nr+1)), make([]float32, mr*(nr+1)))},
		{"negative m", call(kc, -1, nr, kc, 1, nr, nr, a, b, c)},
		{"negative k", call(-1, mr, nr, kc, 1, nr, nr, a, b, c)},
		{"negative rs", call(kc, mr, nr, -1, 1, nr, nr, a, b, c)},
		{"negative ps", call(kc, mr, nr, kc, -1, nr, nr, a, b, c)},
		{"ldb < n", call(kc, mr, nr, kc, 1, nr-1, nr, a, b, c)},
		{"ldc < n", call(kc, mr, nr, kc, 1, nr, nr-1, a, b, c)},
		{"short a", call(kc, mr, nr, kc, 1, nr, nr, a[:len(a)-1], b, c)},
		{"short a (transposed)", call(kc, mr, nr, 1, mr+1, nr, nr, a, b, c)},
		{"empty a", call(kc, 1, 1, 0, 0, nr, nr, nil, b, c)},
		{"huge ps", call(kc, mr, nr, kc, math.MaxInt/2, nr, nr, a, b, c)},
		{"short b", call(kc, mr, nr, kc, 1, nr, nr, a, b[:len(b)-1], c)},
		{"huge ldb", call(kc, mr, nr, kc, 1, math.MaxInt/2, nr, a, b, c)},
		{"short c", call(kc, mr, nr, kc, 1, nr, nr, a, b, c[:len(c)-1])},
		{"huge ldc", call(kc, mr, nr, kc, 1, nr, math.MaxInt/3, a, b, c)},
		{"short c64", func() {
			k.GemmDirect64(1, 2, 2, 1, make([]float64, 4), 2, 1, make([]float64, 2), 2, 1, make([]float64, 3), 2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.fn()
		})
	}
	// The tightest valid slices and empty tiles do not panic.
	k.GemmDirect32(kc, mr, nr, 1, a, kc, 1, b, nr, 1, c, nr)
	k.GemmDirect32(kc, mr, nr, 1, a, 1, mr, b, nr, 1, c, nr)
	k.GemmDirect32(kc, 0, nr, 1, nil, kc, 1, b, nr, 1, nil, nr)
	k.GemmDirect32(0, mr, nr, 1, nil, kc, 1, nil, nr, 0, c, nr)
	for i, v := range c {
		if v != 0 {
			t.Fatalf("k=0, beta=0: c[%d] = %v, want 0", i, v)
		}
	}
}

// TestFusedMulAdd32 checks the Go twin's float32 FMA against the test
// reference fma32 on the hard cases of TestFMA32Reference and on random
// operands whose product and addend are close in magnitude and sign-mixed.
func TestFusedMulAdd32(t *testing.T) {
	cases := [][3]float32{
		{1, 1, 0x1p-24},
		{1 + 0x1p-23, 1 + 0x1p-23, 0},
		{1 + 0x1p-23, 1 - 0x1p-23, -1},
		{1 + 0x1p-12, 1 + 0x1p-12, 0x1p-70},
		{0x1p-100, 0x1p-50, 0x1p-149},
	}
	rng := rand.New(rand.NewPCG(33, 34))
	for range 100000 {
		x := float32(rng.Float64()*2 - 1)
		y := float32(rng.Float64()*2 - 1)
		z := -x * y * float32(1+(rng.Float64()-0.5)*0x1p-10)
		cases = append(cases, [3]float32{x, y, z})
	}
	for _, c := range cases {
		got, want := fusedMulAdd32(c[0], c[1], c[2]), fma32(c[0], c[1], c[2])
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fusedMulAdd32(%g, %g, %g) = %g, want %g", c[0], c[1], c[2], got, want)
		}
	}
	if v := fusedMulAdd32(float32(math.Inf(1)), 1, 2); !math.IsInf(float64(v), 1) {
		t.Fatalf("fusedMulAdd32(+Inf, 1, 2) = %v", v)
	}
}
