package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestGemmDirectTiles runs Gemm on every kernel set, both element types
// and every transpose pair over small shapes around the direct kernels'
// tile edges (MR = 8 rows, NR = 48 or 24 columns), with strided operands
// and the scalars of testGemmCase (beta = 0 over NaN, beta = 1, negative
// alpha and beta), against the float64 reference. With op(B) = B, the sets
// that have direct kernels take them for every shape above the tiny loop's
// limit: the test checks that directShape says so.
func TestGemmDirectTiles(t *testing.T) {
	for _, ks := range asm.Available() {
		t.Run(ks.Name()+"/float32", func(t *testing.T) { testGemmDirectTiles[float32](t, ks) })
		t.Run(ks.Name()+"/float64", func(t *testing.T) { testGemmDirectTiles[float64](t, ks) })
	}
}

func testGemmDirectTiles[T Float](t *testing.T, ks *asm.Kernels) {
	mr, nr, f := directFor[T](ks)
	if f == nil {
		mr, nr, _ = kernelFor[T](ks) // the packed path: its tile edges instead
	}
	ms := []int{1, mr - 1, mr, mr + 1, 2*mr + 1, 33}
	ns := []int{1, 15, 16, 17, nr - 1, nr, nr + 1, 2*nr + 1, 97}
	ks2 := []int{1, 4, 5, 17, 64}
	if testing.Short() {
		ms, ns, ks2 = []int{1, mr + 1, 33}, []int{1, nr + 1, 97}, []int{5, 17}
	}
	rng := rand.New(rand.NewPCG(41, 42))
	sc := 0
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, m := range ms {
				for _, n := range ns {
					for _, k := range ks2 {
						sc++
						p := &gemmProblem[T]{tA: tA, tB: tB, m: m, n: n, k: k}
						if f != nil && !tB && m*n*k > smallWork && !p.directShape() {
							t.Fatalf("m=%d n=%d k=%d is not taken by the direct kernels", m, n, k)
						}
						testGemmCase[T](t, rng, gemmConfig{kern: ks}, tA, tB, m, n, k, sc%3, sc)
					}
				}
			}
		}
	}
}

// TestGemmDirectViews computes a product whose A, B and C are disjoint
// views of one matrix (so every stride is the parent's), through the direct
// kernels and the packed path, against the reference; the rest of the
// parent must be untouched.
func TestGemmDirectViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	const m, n, k = 19, 53, 37
	for _, ks := range asm.Available() {
		for _, tA := range []bool{false, true} {
			for _, noSmall := range []bool{false, true} {
				name := fmt.Sprintf("%s/tA=%v/noSmall=%v", ks.Name(), tA, noSmall)
				parent := randMatrix[float64](rng, 200, 150, 0)
				orig := parent.Clone()
				a := parent.Slice(0, m, 0, k)
				if tA {
					a = parent.Slice(0, k, 0, m)
				}
				b := parent.Slice(40, 40+k, 0, n)
				c := parent.Slice(100, 100+m, 60, 60+n)
				want := c.Clone()
				gemmRef(tA, false, 0.5, a, b, 2, want)
				scale := absProduct(tA, false, 0.5, a, b, 2, c)
				if err := gemmWith(gemmConfig{kern: ks, noSmall: noSmall}, Op(tA), NoTrans, 0.5, a, b, 2, c); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				tol := 2 * float64(k+2) * eps[float64]()
				for i := range m {
					for j := range n {
						g, w := c.At(i, j), want.At(i, j)
						if d := math.Abs(g - w); !(d <= tol*scale[i*n+j]) {
							t.Fatalf("%s: C[%d,%d] = %g, want %g (|diff| %.3g)", name, i, j, g, w, d)
						}
					}
				}
				for i := range parent.Rows {
					for j := range parent.Cols {
						if i >= 100 && i < 100+m && j >= 60 && j < 60+n {
							continue
						}
						if parent.At(i, j) != orig.At(i, j) {
							t.Fatalf("%s: parent[%d,%d] changed outside C", name, i, j)
						}
					}
				}
			}
		}
	}
}

// TestGemmDirectDeterministic checks that small products, on both sides
// of the direct kernels' limits, are bitwise the same on 1, 2, 3 and 8
// threads with every worker forced to take a share (split): the choice of
// path depends on the shape only.
func TestGemmDirectDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	shapes := [][3]int{{9, 49, 17}, {64, 64, 64}, {33, 97, 130}, {256, 256, 256}, {257, 256, 256}, {40, 600, 30}}
	if testing.Short() {
		shapes = shapes[:3]
	}
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		a := randMatrix[float32](rng, m, k, 1)
		b := randMatrix[float32](rng, k, n, 2)
		c0 := randMatrix[float32](rng, m, n, 0)
		var ref Matrix[float32]
		for _, th := range []int{1, 2, 3, 8} {
			c := c0.Clone()
			if err := gemmWith(gemmConfig{threads: th, split: true}, NoTrans, NoTrans, 1.5, a, b, -0.5, c); err != nil {
				t.Fatal(err)
			}
			if th == 1 {
				ref = c
				continue
			}
			for i := range c.Data {
				if math.Float32bits(c.Data[i]) != math.Float32bits(ref.Data[i]) {
					t.Fatalf("%d×%d×%d: %d threads differ from 1 thread at %d", m, n, k, th, i)
				}
			}
		}
	}
}

// TestDirectShape checks the limits of the direct path. Where B's share of
// L2 decides, the expectation follows cacheSizes (smaller than 256³ needs
// under emulation, where the cache sizes are unknown).
func TestDirectShape(t *testing.T) {
	_, l2, _ := cacheSizes()
	// kBig32 rows of 16 float32 columns of B are just over B's L2 share.
	kBig32 := l2/directMaxBFrac/(16*4) + 1
	fits := func(k, n, size int) bool { return k*n*size <= l2/directMaxBFrac }
	tests := []struct {
		name    string
		f64     bool
		m, n, k int
		tB      bool
		lower   bool
		want    bool
	}{
		{"64³", false, 64, 64, 64, false, false, true},
		{"256³", false, 256, 256, 256, false, false, fits(256, 256, 4)},
		{"256³ float64", true, 256, 256, 256, false, false, fits(256, 256, 8)},
		{"more work than 256³", false, 257, 256, 256, false, false, false},
		{"B transposed", false, 64, 64, 64, true, false, false},
		{"SyrkLower", false, 64, 64, 64, false, true, false},
		{"float32 row of 2 KiB", false, 8, 512, 64, false, false, true},
		{"float32 row over 2 KiB", false, 8, 513, 64, false, false, false},
		{"float64 row of 2 KiB", true, 8, 256, 64, false, false, true},
		{"float64 row over 2 KiB", true, 8, 257, 64, false, false, false},
		{"B over its L2 share", false, 1, 16, kBig32, false, false, false},
		{"B within its L2 share", false, 1, 16, kBig32 - 1, false, false, 16*(kBig32-1) <= directMaxWork},
		{"huge dimensions", false, 1 << 40, 1 << 40, 1 << 40, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bool
			if tc.f64 {
				got = (&gemmProblem[float64]{tB: tc.tB, lower: tc.lower, m: tc.m, n: tc.n, k: tc.k}).directShape()
			} else {
				got = (&gemmProblem[float32]{tB: tc.tB, lower: tc.lower, m: tc.m, n: tc.n, k: tc.k}).directShape()
			}
			if got != tc.want {
				t.Fatalf("directShape(%d×%d×%d) = %v, want %v", tc.m, tc.n, tc.k, got, tc.want)
			}
		})
	}
}
