package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestGemmFused checks the float64 path that packs B inside the first A
// sliver's tiles (macroFused) against the plain pack-first path, bitwise,
// on every kernel set and 1–3 threads, with small blocks so that there are
// several panels, sums and blocks of A: M a multiple of MR, not one, and a
// single sliver; N with and without a partial last sliver and below NR;
// B with padding (stride > N); alpha and beta not 1.
func TestGemmFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	ms := []int{1, 8, 13, 40, 128}
	ns := []int{5, 24, 50, 100, 2*24 + 24*7}
	ks := []int{1, 9, 37, 150}
	if testing.Short() {
		ms, ns, ks = []int{8, 13, 40}, []int{5, 50, 100}, []int{9, 150}
	}
	for _, kern := range asm.Available() {
		mr, nr := kern.Tile64()
		for _, blk := range []blocking{{}, {mc: roundUp(24, mr), kc: 31, nc: 3 * nr}} {
			for _, m := range ms {
				for _, n := range ns {
					for _, k := range ks {
						name := fmt.Sprintf("%s/blk=%v/%dx%dx%d", kern.Name(), blk, m, k, n)
						a := randMatrix[float64](rng, m, k, 0)
						b := randMatrix[float64](rng, k, n, 3)
						c0 := randMatrix[float64](rng, m, n, 2)
						run := func(th int, noFused bool) Matrix[float64] {
							c := c0.Clone()
							cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, noFused: noFused}
							if err := gemmWith(cfg, NoTrans, NoTrans, 1.25, a, b, 0.5, c); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							return c
						}
						want := run(1, true)
						for th := 1; th <= 3; th++ {
							got := run(th, false)
							for i := range m {
								for j := range n {
									if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
										t.Fatalf("%s threads=%d: C[%d,%d] = %v, pack-first path gives %v", name, th, i, j, g, w)
									}
								}
							}
						}
						ref := c0.Clone()
						gemmRef(false, false, 1.25, a, b, 0.5, ref)
						for i := range m {
							for j := range n {
								if d := math.Abs(want.At(i, j) - ref.At(i, j)); d > 1e-12*float64(k+1) {
									t.Fatalf("%s: C[%d,%d] = %v, reference %v", name, i, j, want.At(i, j), ref.At(i, j))
								}
							}
						}
					}
				}
			}
		}
	}
}
