package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestSyrkLower checks the lower triangle against the reference and that
// the upper triangle is untouched, for every kernel set, sizes around the
// tile and forced block edges, and several threads.
func TestSyrkLower(t *testing.T) {
	for _, ks := range asm.Available() {
		t.Run(ks.Name()+"/float32", func(t *testing.T) { testSyrkLower[float32](t, ks) })
		t.Run(ks.Name()+"/float64", func(t *testing.T) { testSyrkLower[float64](t, ks) })
	}
}

func testSyrkLower[T Float](t *testing.T, ks *asm.Kernels) {
	mr, nr, _ := kernelFor[T](ks)
	q := max(mr, nr)
	blk := blocking{mc: 2 * mr, kc: 7, nc: 2 * nr}
	ns := []int{1, mr - 1, mr + 1, nr + 1, 2*q + 3, 5*q + 1}
	ks2 := []int{1, 7, 15}
	if testing.Short() {
		ns, ks2 = []int{1, mr + 1, 2*q + 3}, []int{7, 15}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	sc := 0
	for _, th := range []int{1, 3} {
		cfg := gemmConfig{kern: ks, threads: th, blk: blk, noSmall: true, split: true}
		for _, n := range ns {
			if n < 1 {
				continue
			}
			for _, k := range ks2 {
				sc++
				alpha, beta := T(scalars[sc%len(scalars)][0]), T(scalars[sc%len(scalars)][1])
				a := randMatrix[T](rng, n, k, sc%2)
				c := randMatrix[T](rng, n, n, 1)
				upper := T(12345)
				for i := range n {
					for j := i + 1; j < n; j++ {
						c.Set(i, j, upper)
					}
					if beta == 0 {
						c.Set(i, i, T(math.NaN()))
					}
				}
				want := c.Clone()
				gemmRef(false, true, alpha, a, a, beta, want)
				scale := absProduct(false, true, alpha, a, a, beta, c)
				name := fmt.Sprintf("threads=%d n=%d k=%d alpha=%g beta=%g", th, n, k, alpha, beta)
				if err := syrkLowerWith(cfg, "SyrkLower", alpha, a, beta, c); err != nil {
					t.Fatal(err)
				}
				for i := range n {
					for j := i + 1; j < n; j++ {
						if c.At(i, j) != upper {
							t.Fatalf("%s: upper C[%d,%d] changed to %g", name, i, j, c.At(i, j))
						}
						want.Set(i, j, upper)
					}
				}
				checkProduct(t, name, k, c, want, scale)
			}
		}
	}
}

// TestGram checks Gram and CrossGram against the reference and Gram's exact
// symmetry, through the exported functions (default blocks and threads).
func TestGram(t *testing.T) {
	sizes := [][2]int{{1, 1}, {5, 3}, {33, 17}, {200, 64}, {517, 100}}
	if testing.Short() {
		sizes = sizes[:4]
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range sizes {
		n, k := s[0], s[1]
		a := randMatrix[float32](rng, n, k, 2)
		c := randMatrix[float32](rng, n, n, 1)
		for i := range n {
			for j := range n {
				c.Set(i, j, float32(math.NaN()))
			}
		}
		want := New[float32](n, n)
		gemmRef(false, true, 1, a, a, 0, want)
		scale := absProduct(false, true, 1, a, a, 0, want)
		if err := Gram(a, c); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("Gram n=%d k=%d", n, k)
		checkProduct(t, name, k, c, want, scale)
		for i := range n {
			for j := range i {
				if c.At(i, j) != c.At(j, i) {
					t.Fatalf("%s: C[%d,%d] = %g but C[%d,%d] = %g", name, i, j, c.At(i, j), j, i, c.At(j, i))
				}
			}
		}

		b := randMatrix[float32](rng, n+3, k, 0)
		x := New[float32](n, n+3)
		want = New[float32](n, n+3)
		gemmRef(false, true, 1, a, b, 0, want)
		scale = absProduct(false, true, 1, a, b, 0, want)
		if err := CrossGram(a, b, x); err != nil {
			t.Fatal(err)
		}
		checkProduct(t, fmt.Sprintf("CrossGram n=%d k=%d", n, k), k, x, want, scale)
	}
}

// TestGramBlocked checks Gram's blocked path, whose mirror copies each
// finished micro-tile onto the upper triangle, for every kernel set, both
// types, 1 and 2 threads, sizes around the tile edges and the diagonal,
// forced small blocks (several k blocks: the mirror must copy the final
// tile only) and default ones, with A and C views of larger matrices: C
// must be exactly symmetric, its lower triangle bitwise that of
// SyrkLower, close to the reference, and nothing outside the view written.
func TestGramBlocked(t *testing.T) {
	for _, ks := range asm.Available() {
		t.Run(ks.Name()+"/float32", func(t *testing.T) { testGramBlocked[float32](t, ks) })
		t.Run(ks.Name()+"/float64", func(t *testing.T) { testGramBlocked[float64](t, ks) })
	}
}

func testGramBlocked[T Float](t *testing.T, ks *asm.Kernels) {
	mr, nr, _ := kernelFor[T](ks)
	q := max(mr, nr)
	ns := []int{1, mr - 1, mr, mr + 1, nr - 1, nr + 1, 2*q + 3, 5*q + 1}
	ks2 := []int{1, 7, 33}
	if testing.Short() {
		ns, ks2 = []int{mr + 1, 2*q + 3}, []int{7, 33}
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for _, blk := range []blocking{{}, {mc: 2 * mr, kc: 7, nc: 2 * nr}} {
		for _, th := range []int{1, 2} {
			cfg := gemmConfig{kern: ks, threads: th, blk: blk, noSmall: true, split: true}
			for _, n := range ns {
				if n < 1 {
					continue
				}
				for _, k := range ks2 {
					name := fmt.Sprintf("blk=%+v threads=%d n=%d k=%d", blk, th, n, k)
					a := randMatrix[T](rng, n+3, k+2, 5).Slice(2, n+2, 1, k+1)
					big := New[T](n+4, n+9)
					for i := range big.Data {
						big.Data[i] = T(math.NaN())
					}
					c := big.Slice(3, n+3, 5, n+5)
					if err := gramWith(cfg, a, c); err != nil {
						t.Fatal(err)
					}
					low := New[T](n, n)
					if err := syrkLowerWith(cfg, "SyrkLower", 1, a, 0, low); err != nil {
						t.Fatal(err)
					}
					for i := range n {
						for j := range n {
							g, w := c.At(i, j), low.At(max(i, j), min(i, j))
							if !sameBits(float64(g), float64(w)) {
								t.Fatalf("%s: C[%d,%d] = %v, SyrkLower's C[%d,%d] = %v", name, i, j, g, max(i, j), min(i, j), w)
							}
						}
					}
					for i := range big.Rows {
						for j := range big.Cols {
							if (i < 3 || i >= n+3 || j < 5 || j >= n+5) && !math.IsNaN(float64(big.At(i, j))) {
								t.Fatalf("%s: element (%d,%d) outside C written", name, i, j)
							}
						}
					}
					want := New[T](n, n)
					gemmRef(false, true, 1, a, a, 0, want)
					checkProduct(t, name, k, c, want, absProduct(false, true, 1, a, a, 0, want))
				}
			}
		}
	}
}

// TestMirrorLower mirrors the lower triangle through rectangles of
// assorted shapes and checks the whole matrix.
func TestMirrorLower(t *testing.T) {
	for _, n := range []int{1, 2, mirrorCols - 1, mirrorCols + 1, 3*mirrorCols + 5, mirrorRows + 3, 600} {
		for _, step := range [][2]int{{n, n}, {7, 5}, {mirrorCols, 3 * mirrorCols}, {33, 20}, {mirrorRows + 1, 40}} {
			c := New[float64](n, n)
			for i := range n {
				for j := range i + 1 {
					c.Set(i, j, float64(i*n+j))
				}
			}
			for i0 := 0; i0 < n; i0 += step[0] {
				for j0 := 0; j0 < n; j0 += step[1] {
					MirrorLower(c, i0, min(i0+step[0], n), j0, min(j0+step[1], n))
				}
			}
			for i := range n {
				for j := range n {
					if want := float64(max(i, j)*n + min(i, j)); c.At(i, j) != want {
						t.Fatalf("n=%d rects %v: C[%d,%d] = %g, want %g", n, step, i, j, c.At(i, j), want)
					}
				}
			}
		}
	}
}

// TestGramErrors checks shape and aliasing errors.
func TestGramErrors(t *testing.T) {
	a := New[float64](4, 3)
	big := New[float64](8, 8)
	tests := []struct {
		name  string
		err   error
		shape bool
	}{
		{"Gram C not n×n", Gram(a, New[float64](4, 3)), true},
		{"Gram C wrong n", Gram(a, New[float64](3, 3)), true},
		{"SyrkLower C not square", SyrkLower(1, a, 0, New[float64](4, 5)), true},
		{"SyrkLower C aliases A", SyrkLower(1, big.Slice(0, 4, 0, 3), 0, big.Slice(2, 6, 2, 6)), false},
		{"CrossGram k mismatch", CrossGram(a, New[float64](2, 4), New[float64](4, 2)), true},
	}
	for _, tc := range tests {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if errors.Is(tc.err, ErrShape) != tc.shape {
			t.Errorf("%s: %q wraps ErrShape = %v, want %v", tc.name, tc.err, !tc.shape, tc.shape)
		}
	}
}

// TestMirrorLowerPanics checks MirrorLower's argument checks: a square
// matrix and ranges within it.
func TestMirrorLowerPanics(t *testing.T) {
	sq, wide := New[float64](4, 4), New[float64](3, 4)
	for _, c := range []struct {
		name           string
		m              Matrix[float64]
		i0, i1, j0, j1 int
		panics         bool
	}{
		{"whole", sq, 0, 4, 0, 4, false},
		{"empty", sq, 2, 2, 0, 4, false},
		{"not square", wide, 0, 3, 0, 3, true},
		{"rows past the end", sq, 0, 5, 0, 4, true},
		{"negative column", sq, 0, 4, -1, 4, true},
		{"reversed rows", sq, 3, 1, 0, 4, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); (r != nil) != c.panics {
					t.Fatalf("panic %v, want panic %v", r, c.panics)
				}
			}()
			MirrorLower(c.m, c.i0, c.i1, c.j0, c.j1)
		})
	}
}
