package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// tileFuncs gives the typed view of one kernel set's micro-kernel.
type tileFuncs[T float] struct {
	mr, nr int
	raw    func(k int, a, b, c []T, ldc int)        // full tile, no checks
	tile   func(kc, m, n int, a, b, c []T, ldc int) // the exported wrapper
}

func tiles32(k *Kernels) tileFuncs[float32] {
	return tileFuncs[float32]{k.mr32, k.nr32, k.gemmTile32, k.GemmTile32}
}

func tiles64(k *Kernels) tileFuncs[float64] {
	return tileFuncs[float64]{k.mr64, k.nr64, k.gemmTile64, k.GemmTile64}
}

// eps returns the unit roundoff of T.
func eps[T float]() float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 0x1p-24
	}
	return 0x1p-53
}

// fma32 is the correctly rounded float32 fused multiply-add: the product is
// exact in float64, the sum is rounded to odd in float64 and then to
// float32, which rounds correctly because 53 ≥ 2·24+2.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := p + cc
	// TwoSum: s + e == p + cc exactly.
	bb := s - p
	e := (p - (s - bb)) + (cc - bb)
	if e != 0 && math.Float64bits(s)&1 == 0 {
		s = math.Nextafter(s, math.Inf(int(math.Copysign(1, e))))
	}
	return float32(s)
}

// fmaT is the correctly rounded fused multiply-add in T.
func fmaT[T float](a, b, c T) T {
	if x, ok := any(a).(float32); ok {
		return any(fma32(x, any(b).(float32), any(c).(float32))).(T)
	}
	return any(math.FMA(any(a).(float64), any(b).(float64), any(c).(float64))).(T)
}

// tileFMA is the exact contract of the assembly kernels: each C entry's
// products are summed with FMA in increasing p, starting from 0, and added
// to C once at the end.
func tileFMA[T float](mr, nr, m, n, k int, a, b, c []T, ldc int) {
	for i := range m {
		for j := range n {
			var acc T
			for p := range k {
				acc = fmaT(a[p*mr+i], b[p*nr+j], acc)
			}
			c[i*ldc+j] += acc
		}
	}
}

// tileCheck compares got with the float64 reference c0 + A·B within the
// classic bound (k+2)·eps·(|C0| + |A|·|B|) plus a tiny absolute term; it
// returns a description of the first violation or "".
func tileCheck[T float](mr, nr, m, n, k int, a, b, c0, got []T, ldc int) string {
	u := eps[T]()
	for i := range m {
		for j := range n {
			ref := float64(c0[i*ldc+j])
			mag := math.Abs(ref)
			for p := range k {
				x, y := float64(a[p*mr+i]), float64(b[p*nr+j])
				ref += x * y
				mag += math.Abs(x * y)
			}
			g := float64(got[i*ldc+j])
			if tol := float64(k+2)*u*mag + 1e-300; !(math.Abs(g-ref) <= tol) {
				return fmt.Sprintf("C[%d,%d] = %v, want %v ± %.3g", i, j, g, ref, tol)
			}
		}
	}
	return ""
}

// tileAgree compares two computed tiles with each other: each is within
// the rounding bound of the exact result, so they differ by at most twice
// it.
func tileAgree[T float](mr, nr, k int, a, b, c0, got, twin []T, ldc int) string {
	u := eps[T]()
	for i := range mr {
		for j := range nr {
			mag := math.Abs(float64(c0[i*ldc+j]))
			for p := range k {
				mag += math.Abs(float64(a[p*mr+i]) * float64(b[p*nr+j]))
			}
			g, w := float64(got[i*ldc+j]), float64(twin[i*ldc+j])
			if tol := 2*float64(k+2)*u*mag + 1e-300; !(math.Abs(g-w) <= tol) {
				return fmt.Sprintf("C[%d,%d] = %v, Go twin %v (tolerance %.3g)", i, j, g, w, tol)
			}
		}
	}
	return ""
}

// tileCase builds random packed panels for a k-deep tile and a guarded C
// with leading dimension ldc; C holds m×n values and canaries elsewhere
// inside its rows as well as around it.
type tileCase[T float] struct {
	a, b, c, c0 []T
	intact      func() bool
}

func newTileCase[T float](rng *rand.Rand, mr, nr, m, n, k, ldc int) tileCase[T] {
	var tc tileCase[T]
	tc.a = make([]T, k*mr)
	tc.b = make([]T, k*nr)
	for i := range tc.a {
		tc.a[i] = T(2*rng.Float64() - 1)
	}
	for i := range tc.b {
		tc.b[i] = T(2*rng.Float64() - 1)
	}
	tc.c, tc.intact = guarded[T](max(m, 1)*ldc, 1)
	// Only the m×n corner is the output: everything else in the rows keeps
	// a canary, checked by inside below.
	for i := range m {
		for j := range n {
			tc.c[i*ldc+j] = T(2*rng.Float64() - 1)
		}
	}
	outer := tc.intact
	c := tc.c
	tc.intact = func() bool {
		if !outer() {
			return false
		}
		for i := range c {
			if (i/ldc >= m || i%ldc >= n) && bitsOf(c[i]) != bitsOf(fromBits[T](canary)) {
				return false
			}
		}
		return true
	}
	tc.c0 = append([]T(nil), tc.c...)
	return tc
}

// tileKs are the depths every tile test tries: all of 0…67 (every unroll
// remainder) and some random larger ones.
func tileKs(rng *rand.Rand, short bool) []int {
	var ks []int
	for k := range 68 {
		ks = append(ks, k)
	}
	extra := 12
	if short {
		extra = 3
	}
	for range extra {
		ks = append(ks, 68+rng.IntN(933))
	}
	return ks
}

// testFullTile runs the raw full-tile kernel for every k in tileKs, with
// ldc > NR, comparing bitwise with the FMA contract (assembly sets) and
// within rounding with the float64 reference and the Go twin.
func testFullTile[T float](t *testing.T, name string, f tileFuncs[T]) {
	rng := rand.New(rand.NewPCG(3, uint64(f.mr*f.nr)))
	for _, k := range tileKs(rng, testing.Short()) {
		for _, ldc := range []int{f.nr, f.nr + 3} {
			tc := newTileCase[T](rng, f.mr, f.nr, f.mr, f.nr, k, ldc)
			f.raw(k, tc.a, tc.b, tc.c, ldc)
			if !tc.intact() {
				t.Fatalf("k=%d ldc=%d: wrote outside the tile", k, ldc)
			}
			if msg := tileCheck(f.mr, f.nr, f.mr, f.nr, k, tc.a, tc.b, tc.c0, tc.c, ldc); msg != "" {
				t.Fatalf("k=%d ldc=%d: %s", k, ldc, msg)
			}
			twin := append([]T(nil), tc.c0...)
			gemmTileRef(f.mr, f.nr, k, tc.a, tc.b, twin, ldc)
			if msg := tileCheck(f.mr, f.nr, f.mr, f.nr, k, tc.a, tc.b, tc.c0, twin, ldc); msg != "" {
				t.Fatalf("Go twin: k=%d ldc=%d: %s", k, ldc, msg)
			}
			if msg := tileAgree(f.mr, f.nr, k, tc.a, tc.b, tc.c0, tc.c, twin, ldc); msg != "" {
				t.Fatalf("against the Go twin: k=%d ldc=%d: %s", k, ldc, msg)
			}
			if name == "generic" {
				continue // the Go kernels use the compiler's choice of FMA or not
			}
			want := append([]T(nil), tc.c0...)
			tileFMA(f.mr, f.nr, f.mr, f.nr, k, tc.a, tc.b, want, ldc)
			if i := firstDiff(tc.c, want); i >= 0 {
				t.Fatalf("k=%d ldc=%d: C[%d,%d] = %v, FMA contract gives %v", k, ldc, i/ldc, i%ldc, tc.c[i], want[i])
			}
		}
	}
}

// testEdgeTiles runs the exported wrapper for every m ≤ MR and n ≤ NR at a
// few depths, with ldc > n and canaries around and inside C's rows.
func testEdgeTiles[T float](t *testing.T, name string, f tileFuncs[T]) {
	rng := rand.New(rand.NewPCG(4, uint64(f.mr*f.nr)))
	ks := []int{0, 1, 3, 17, 64}
	if testing.Short() {
		ks = []int{0, 5}
	}
	for _, k := range ks {
		for m := 0; m <= f.mr; m++ {
			for n := 0; n <= f.nr; n++ {
				ldc := n + 1 + (m+n)%5
				tc := newTileCase[T](rng, f.mr, f.nr, m, n, k, ldc)
				f.tile(k, m, n, tc.a, tc.b, tc.c, ldc)
				if !tc.intact() {
					t.Fatalf("k=%d m=%d n=%d ldc=%d: wrote outside the m×n corner", k, m, n, ldc)
				}
				if msg := tileCheck(f.mr, f.nr, m, n, k, tc.a, tc.b, tc.c0, tc.c, ldc); msg != "" {
					t.Fatalf("k=%d m=%d n=%d ldc=%d: %s", k, m, n, ldc, msg)
				}
				if name == "generic" {
					continue
				}
				want := append([]T(nil), tc.c0...)
				tileFMA(f.mr, f.nr, m, n, k, tc.a, tc.b, want, ldc)
				if i := firstDiff(tc.c, want); i >= 0 {
					t.Fatalf("k=%d m=%d n=%d: C[%d,%d] = %v, FMA contract gives %v", k, m, n, i/ldc, i%ldc, tc.c[i], want[i])
				}
			}
		}
	}
}

func TestGemmTile(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32/full", func(t *testing.T) { testFullTile(t, k.name, tiles32(k)) })
		t.Run("impl="+k.name+"/float64/full", func(t *testing.T) { testFullTile(t, k.name, tiles64(k)) })
		t.Run("impl="+k.name+"/float32/edges", func(t *testing.T) { testEdgeTiles(t, k.name, tiles32(k)) })
		t.Run("impl="+k.name+"/float64/edges", func(t *testing.T) { testEdgeTiles(t, k.name, tiles64(k)) })
	}
}

// TestGemmTileSpecials checks that infinities and NaNs in the panels
// propagate like in IEEE arithmetic (no lane is skipped or reordered).
func TestGemmTileSpecials(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name, func(t *testing.T) {
			mr, nr := k.Tile32()
			const kc = 9
			a := make([]float32, kc*mr)
			b := make([]float32, kc*nr)
			for i := range a {
				a[i] = 1
			}
			for i := range b {
				b[i] = 0.5
			}
			a[4*mr+mr-1] = float32(math.Inf(1)) // row mr-1 gets +Inf
			b[7*nr+nr-1] = float32(math.NaN())  // column nr-1 gets NaN
			c := make([]float32, mr*nr)
			k.GemmTile32(kc, mr, nr, a, b, c, nr)
			for i := range mr {
				for j := range nr {
					v := c[i*nr+j]
					switch {
					case j == nr-1:
						if !isNaN(v) {
							t.Fatalf("C[%d,%d] = %v, want NaN", i, j, v)
						}
					case i == mr-1:
						if !math.IsInf(float64(v), 1) {
							t.Fatalf("C[%d,%d] = %v, want +Inf", i, j, v)
						}
					case v != kc*0.5:
						t.Fatalf("C[%d,%d] = %v, want %v", i, j, v, kc*0.5)
					}
				}
			}
		})
	}
}

func TestGemmTilePanics(t *testing.T) {
	k := Active()
	mr, nr := k.Tile32()
	a := make([]float32, 4*mr)
	b := make([]float32, 4*nr)
	c := make([]float32, mr*nr)
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"m > MR", func() { k.GemmTile32(4, mr+1, nr, a, b, c, nr) }},
		{"n > NR", func() { k.GemmTile32(4, mr, nr+1, a, b, c, nr+1) }},
		{"negative k", func() { k.GemmTile32(-1, mr, nr, a, b, c, nr) }},
		{"short a", func() { k.GemmTile32(5, mr, nr, a, make([]float32, 5*nr), c, nr) }},
		{"short b", func() { k.GemmTile32(4, mr, nr, a, b[:4*nr-1], c, nr) }},
		{"ldc < n", func() { k.GemmTile32(4, mr, nr, a, b, c, nr-1) }},
		{"short c", func() { k.GemmTile32(4, mr, nr, a, b, c[:len(c)-1], nr) }},
		{"short c64", func() {
			k.GemmTile64(1, 2, 2, make([]float64, 64), make([]float64, 64), make([]float64, 3), 2)
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
}

// TestTileShapes checks each set's tile against the scratch bound and the
// peak loops against their documented count.
func TestTileShapes(t *testing.T) {
	for _, k := range available {
		m32, n32 := k.Tile32()
		m64, n64 := k.Tile64()
		if m32 < 1 || n32 < 1 || m32*n32 > maxTile || m64 < 1 || n64 < 1 || m64*n64 > maxTile {
			t.Errorf("%s: tiles %d×%d and %d×%d outside 1…%d elements", k.name, m32, n32, m64, n64, maxTile)
		}
		if k.features == "" {
			t.Errorf("%s: no feature list", k.name)
		}
		f1, f2 := k.PeakFMA32(10), k.PeakFMA32(20)
		if f1 <= 0 || f2 != 2*f1 {
			t.Errorf("%s: PeakFMA32 counts %d and %d flops for 10 and 20 iterations", k.name, f1, f2)
		}
		d1, d2 := k.PeakFMA64(10), k.PeakFMA64(20)
		if d1 <= 0 || d2 != 2*d1 || d1 > f1 {
			t.Errorf("%s: PeakFMA64 counts %d and %d flops (float32: %d)", k.name, d1, d2, f1)
		}
	}
}

func TestFMA32Reference(t *testing.T) {
	// Cases where rounding the float64 sum twice would be wrong.
	for _, tc := range []struct{ a, b, c, want float32 }{
		{1, 1, 0x1p-24, 1},
		{1 + 0x1p-23, 1 + 0x1p-23, 0, 1 + 0x1p-22},
		{1 + 0x1p-23, 1 - 0x1p-23, -1, -0x1p-46},
		{1 + 0x1p-12, 1 + 0x1p-12, 0x1p-70, 1 + 0x1p-11 + 0x1p-23}, // naive: 1 + 0x1p-11
	} {
		if got := fma32(tc.a, tc.b, tc.c); got != tc.want {
			t.Errorf("fma32(%g, %g, %g) = %g, want %g", tc.a, tc.b, tc.c, got, tc.want)
		}
	}
}
