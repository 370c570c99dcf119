package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTranspose checks Transpose32 and Transpose64 of every set and their
// Go twins against the definition, bitwise: heights around the 8 the
// AVX-512 kernels take, widths around their 16- and 8-column blocks, odd
// and wide leading dimensions, src and dst aligned and one element off a
// 64-byte boundary, src ending right after its last element and every
// element of dst outside the block left as it was. ScaledTranspose32 and
// ScaledTranspose64 get the same checks with alpha = 1 (a copy) and with
// other factors (each element alpha·src, rounded once, NaN and ±Inf
// included).
func TestTranspose(t *testing.T) {
	for _, k := range available {
		testTranspose(t, k.name+"/float32", k.Transpose32, 1)
		testTranspose(t, k.name+"/float64", k.Transpose64, 1)
		for _, alpha := range []float64{1, -0.37, 1e-3, 3} {
			testTranspose(t, fmt.Sprintf("%s/float32/alpha=%g", k.name, alpha), func(dst []float32, ldd int, src []float32, lds, m, n int) {
				k.ScaledTranspose32(dst, ldd, src, lds, m, n, float32(alpha))
			}, float32(alpha))
			testTranspose(t, fmt.Sprintf("%s/float64/alpha=%g", k.name, alpha), func(dst []float64, ldd int, src []float64, lds, m, n int) {
				k.ScaledTranspose64(dst, ldd, src, lds, m, n, alpha)
			}, alpha)
		}
	}
	testTranspose(t, "twin/float32", transposeGo[float32], 1)
	testTranspose(t, "twin/float64", transposeGo[float64], 1)
	testTranspose(t, "twin/float32/alpha=-0.37", func(dst []float32, ldd int, src []float32, lds, m, n int) {
		scaledTransposeGo(dst, ldd, src, lds, m, n, -0.37)
	}, -0.37)
}

func testTranspose[T float](t *testing.T, name string, f func(dst []T, ldd int, src []T, lds, m, n int), alpha T) {
	rng := rand.New(rand.NewPCG(17, 19))
	for _, m := range []int{1, 2, 7, 8, 9, 16} {
		for _, n := range []int{1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 50} {
			for _, off := range []int{0, 1} {
				lds, ldd := n+off+2*(n%3), m+3*off+(m%2)*5
				if off == 1 {
					lds, ldd = 1001, 777
				}
				src := alignedFloats[T]((m-1)*lds+n, off)
				randomWithSpecials(rng, src)
				dst := alignedFloats[T]((n-1)*ldd+m+5, 1-off)
				for i := range dst {
					dst[i] = fromBits[T](canary)
				}
				f(dst, ldd, src, lds, m, n)
				want := make([]T, len(dst))
				for i := range want {
					want[i] = fromBits[T](canary)
				}
				for i := range m {
					for j := range n {
						want[j*ldd+i] = src[i*lds+j]
						if alpha != 1 {
							want[j*ldd+i] = alpha * src[i*lds+j]
						}
					}
				}
				for i := range dst {
					if bitsOf(dst[i]) != bitsOf(want[i]) {
						t.Fatalf("%s: m=%d n=%d lds=%d ldd=%d off=%d: dst[%d] = %#x, want %#x",
							name, m, n, lds, ldd, off, i, bitsOf(dst[i]), bitsOf(want[i]))
					}
				}
			}
		}
	}
}

// TestHasTranspose checks which sets report transpose kernels of their
// own: the AVX-512 set, in both element types, and no other.
func TestHasTranspose(t *testing.T) {
	for _, k := range available {
		want := k.name == "avx512"
		if k.HasTranspose32() != want || k.HasTranspose64() != want {
			t.Errorf("%s: HasTranspose32, HasTranspose64 = %v, %v; want %v",
				k.name, k.HasTranspose32(), k.HasTranspose64(), want)
		}
	}
}

// TestTransposeMirror copies the strict lower triangle of a square matrix
// onto its upper triangle in 8×n blocks, the way a symmetric product uses
// Transpose32 and Transpose64 (dst and src parts of one slice), and checks
// the whole matrix.
func TestTransposeMirror(t *testing.T) {
	for _, k := range available {
		testTransposeMirror(t, k.name+"/float32", k.Transpose32)
		testTransposeMirror(t, k.name+"/float64", k.Transpose64)
	}
}

func testTransposeMirror[T float](t *testing.T, name string, f func(dst []T, ldd int, src []T, lds, m, n int)) {
	for _, sz := range []int{9, 40, 67} {
		ld := sz + 3
		c := make([]T, sz*ld)
		for i := range sz {
			for j := range ld {
				c[i*ld+j] = T(i*ld + j)
			}
		}
		for r := 8; r < sz; r += 8 {
			mm := min(8, sz-r)
			f(c[r:], ld, c[r*ld:], ld, mm, r) // rows r…r+mm, columns 0…r
		}
		for i := range sz {
			for j := range ld {
				want := T(i*ld + j)
				if j < sz && i/8 < j/8 {
					want = T(j*ld + i)
				}
				if c[i*ld+j] != want {
					t.Fatalf("%s: %d×%d: C[%d,%d] = %v, want %v", name, sz, sz, i, j, c[i*ld+j], want)
				}
			}
		}
	}
}

// TestTransposePanics checks the argument checks of Transpose32 and
// Transpose64.
func TestTransposePanics(t *testing.T) {
	k := Active()
	cases := []struct {
		name      string
		ldst, ldd int
		lsrc, lds int
		m, n      int
		panics    bool
	}{
		{"ok", 8*9 + 8, 9, 7*17 + 16, 17, 8, 9, false},
		{"empty", 0, 0, 0, 0, 0, 5, false},
		{"negative m", 10, 1, 10, 1, -1, 1, true},
		{"lds < n", 100, 8, 100, 3, 2, 4, true},
		{"ldd < m", 100, 3, 100, 8, 4, 2, true},
		{"src short", 100, 9, 7*17 + 8, 17, 8, 9, true},
		{"dst short", 8*9 + 7, 9, 7*17 + 16, 17, 8, 9, true},
		{"one row, any lds", 3*5 + 1, 5, 4, 0, 1, 4, false},
	}
	for _, c := range cases {
		for _, typ := range []string{"float32", "float64"} {
			t.Run(fmt.Sprintf("%s/%s", c.name, typ), func(t *testing.T) {
				defer func() {
					if r := recover(); (r != nil) != c.panics {
						t.Fatalf("panic %v, want panic %v", r, c.panics)
					}
				}()
				if typ == "float32" {
					k.Transpose32(make([]float32, c.ldst), c.ldd, make([]float32, c.lsrc), c.lds, c.m, c.n)
				} else {
					k.Transpose64(make([]float64, c.ldst), c.ldd, make([]float64, c.lsrc), c.lds, c.m, c.n)
				}
			})
			t.Run(fmt.Sprintf("%s/%s/scaled", c.name, typ), func(t *testing.T) {
				defer func() {
					if r := recover(); (r != nil) != c.panics {
						t.Fatalf("panic %v, want panic %v", r, c.panics)
					}
				}()
				if typ == "float32" {
					k.ScaledTranspose32(make([]float32, c.ldst), c.ldd, make([]float32, c.lsrc), c.lds, c.m, c.n, 2)
				} else {
					k.ScaledTranspose64(make([]float64, c.ldst), c.ldd, make([]float64, c.lsrc), c.lds, c.m, c.n, 2)
				}
			})
		}
	}
}
