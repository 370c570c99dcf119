package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestPackB checks packB, both transpositions, against the layout of the
// micro-kernel contract written out directly: dst[s*kb*nr + p*nr + j] =
// op(B)[p0+p, j0+s*nr+j], zero past the panel's last column. The panel
// heights cross the four-row groups of packBRows and the widths the
// sliver edges; B has padding (NaN) past its columns, which must not leak.
func TestPackB(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const p0, j0 = 3, 5
	for _, nr := range []int{4, 8, 24, 48} {
		for _, trans := range []bool{false, true} {
			for _, kb := range []int{1, 3, 4, 5, 8, 9, 70} {
				for _, nb := range []int{1, nr - 1, nr, nr + 1, 3*nr - 2, 3 * nr} {
					if nb < 1 {
						continue
					}
					name := fmt.Sprintf("nr=%d/trans=%v/kb=%d/nb=%d", nr, trans, kb, nb)
					rows, cols := opShape(trans, p0+kb+2, j0+nb+3)
					b := randMatrix[float32](rng, rows, cols, 2)
					at := func(p, j int) float32 {
						if trans {
							return b.At(j, p)
						}
						return b.At(p, j)
					}
					slivers := (nb + nr - 1) / nr
					dst := make([]float32, slivers*kb*nr+1)
					for i := range dst {
						dst[i] = float32(math.NaN())
					}
					packB(dst, b, trans, p0, kb, j0, nb, nr)
					for s := range slivers {
						for p := range kb {
							for j := range nr {
								want := float32(0)
								if s*nr+j < nb {
									want = at(p0+p, j0+s*nr+j)
								}
								if got := dst[s*kb*nr+p*nr+j]; got != want {
									t.Fatalf("%s: sliver %d, p=%d, j=%d: got %v, want %v", name, s, p, j, got, want)
								}
							}
						}
					}
					if last := dst[len(dst)-1]; !math.IsNaN(float64(last)) {
						t.Fatalf("%s: wrote past the panel", name)
					}
				}
			}
		}
	}
}

// TestPackAOp checks packAOp against packA, bitwise, for op(A) = A and
// op(A) = Aᵀ on every kernel set (the scaled-transpose path where the set
// has one and mr is 8, packA's loop otherwise): heights with and without a
// partial last sliver, depths around the 16-column blocks of the kernel,
// padded strides and a block of A that starts at an odd row and column.
func TestPackAOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	for _, ks := range asm.Available() {
		testPackAOp[float32](t, rng, ks, "float32")
		testPackAOp[float64](t, rng, ks, "float64")
	}
}

func testPackAOp[T Float](t *testing.T, rng *rand.Rand, ks *asm.Kernels, dtype string) {
	mr, nr, tile := kernelFor[T](ks)
	for _, trans := range []bool{false, true} {
		for _, mb := range []int{1, mr - 1, mr, mr + 3, 2 * mr, 3*mr + 1} {
			for _, kb := range []int{1, 7, 15, 16, 17, 33, 100} {
				for _, alpha := range []T{1, -0.3} {
					const i0, p0 = 3, 5
					rows, cols := i0+mb+2, p0+kb+1
					if trans {
						rows, cols = cols, rows
					}
					a := randMatrix[T](rng, rows, cols, 3)
					p := &gemmProblem[T]{a: a, tA: trans, alpha: alpha, mr: mr, nr: nr, tile: tile}
					p.scaledTranspose = scaledTransposeFor[T](ks)
					p.packRows8 = !trans && mr == 8 && hasTransposeFor[T](ks)
					n := roundUp(mb, mr) * kb
					got, want := make([]T, n), make([]T, n)
					for i := range got {
						got[i], want[i] = T(sentinel), T(sentinel)
					}
					p.packAOp(got, i0, mb, p0, kb)
					packA(want, a, trans, alpha, i0, mb, p0, kb, mr)
					for i := range got {
						if got[i] != want[i] && !(got[i] != got[i] && want[i] != want[i]) {
							t.Fatalf("%s/%s trans=%v mb=%d kb=%d alpha=%v (packRows8 %v): [%d] = %v, want %v",
								ks.Name(), dtype, trans, mb, kb, alpha, p.packRows8, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
