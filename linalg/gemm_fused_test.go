package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestGemmFused checks the path that packs B inside the first A sliver's
// tiles (macroFused) against the plain pack-first path, bitwise, in both
// element types on every kernel set and 1–3 threads, with small blocks so that there are
// several panels, sums and blocks of A: M a multiple of MR, not one, and a
// single sliver; N with and without a partial last sliver and below NR;
// B with padding (stride > N); alpha and beta not 1.
func TestGemmFused(t *testing.T) {
	testGemmFused[float32](t, "float32", 1e-4)
	testGemmFused[float64](t, "float64", 1e-12)
}

func testGemmFused[T Float](t *testing.T, dtype string, tol float64) {
	rng := rand.New(rand.NewPCG(21, 22))
	ms := []int{1, 8, 13, 40, 128}
	ns := []int{5, 24, 50, 100, 200}
	ks := []int{1, 9, 37, 150}
	if testing.Short() {
		ms, ns, ks = []int{8, 13, 40}, []int{5, 50, 100}, []int{9, 150}
	}
	for _, kern := range asm.Available() {
		mr, nr, _ := kernelFor[T](kern)
		for _, blk := range []blocking{{}, {mc: roundUp(24, mr), kc: 31, nc: 3 * nr}} {
			for _, m := range ms {
				for _, n := range ns {
					for _, k := range ks {
						name := fmt.Sprintf("%s/%s/blk=%v/%dx%dx%d", dtype, kern.Name(), blk, m, k, n)
						a := randMatrix[T](rng, m, k, 0)
						b := randMatrix[T](rng, k, n, 3)
						c0 := randMatrix[T](rng, m, n, 2)
						run := func(th int, noFused bool) Matrix[T] {
							c := c0.Clone()
							cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, noFused: noFused}
							if err := gemmWith(cfg, NoTrans, NoTrans, 1.25, a, b, 0.5, c); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							return c
						}
						want := agreesWithPlain(t, name, "pack-first path", m, n, run)
						ref := c0.Clone()
						gemmRef(false, false, 1.25, a, b, 0.5, ref)
						for i := range m {
							for j := range n {
								if d := math.Abs(float64(want.At(i, j) - ref.At(i, j))); d > tol*float64(k+1) {
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

// agreesWithPlain runs the plain path, run(1, true), and the path under
// test on 1 to 3 threads, run(th, false), and fails unless every element of
// the m×n results agrees bitwise; it returns the plain result. plain names
// the plain path in the failure.
func agreesWithPlain[T Float](t *testing.T, name, plain string, m, n int, run func(threads int, plain bool) Matrix[T]) Matrix[T] {
	t.Helper()
	want := run(1, true)
	for th := 1; th <= 3; th++ {
		got := run(th, false)
		for i := range m {
			for j := range n {
				if g, w := got.At(i, j), want.At(i, j); math.Float64bits(float64(g)) != math.Float64bits(float64(w)) {
					t.Fatalf("%s threads=%d: C[%d,%d] = %v, %s gives %v", name, th, i, j, g, plain, w)
				}
			}
		}
	}
	return want
}

// TestGemmRowCalls checks that macro's one kernel call per row of full
// tiles gives bitwise the result of one call per tile (tileCalls), in both
// element types on every kernel set and 1–3 threads: M and N with and
// without partial last slivers, several k blocks and panels (small
// blocks) and one of each (default blocks), beta 0, 1 and 0.5 (folded
// into the first k block's tiles where the set has a beta kernel); and
// the same for SyrkLower and Gram (lower triangle, mirror) of op(A).
func TestGemmRowCalls(t *testing.T) {
	testGemmRowCalls[float32](t, "float32")
	testGemmRowCalls[float64](t, "float64")
}

func testGemmRowCalls[T Float](t *testing.T, dtype string) {
	rng := rand.New(rand.NewPCG(23, 24))
	shapes := [][3]int{{24, 48, 64}, {37, 53, 70}, {100, 150, 90}, {130, 70, 300}}
	for _, kern := range asm.Available() {
		mr, nr, _ := kernelFor[T](kern)
		for _, blk := range []blocking{{}, {mc: 4 * mr, kc: 29, nc: 3 * nr}} {
			for _, s := range shapes {
				for _, beta := range []T{0, 1, 0.5} {
					m, k, n := s[0], s[1], s[2]
					name := fmt.Sprintf("%s/%s/blk=%v/%dx%dx%d/beta=%v", dtype, kern.Name(), blk, m, k, n, beta)
					a := randMatrix[T](rng, m, k, 1)
					b := randMatrix[T](rng, k, n, 3)
					c0 := randMatrix[T](rng, m, n, 2)
					agreesWithPlain(t, name, "one call per tile", m, n, func(th int, plain bool) Matrix[T] {
						c := c0.Clone()
						cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, noFused: true, tileCalls: plain}
						if err := gemmWith(cfg, NoTrans, NoTrans, 1.25, a, b, beta, c); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						return c
					})
					// The lower triangle (SyrkLower) and Gram's mirror: C is m×m.
					cs := randMatrix[T](rng, m, m, 0)
					agreesWithPlain(t, name+"/syrk", "one call per tile", m, m, func(th int, plain bool) Matrix[T] {
						c := cs.Clone()
						cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, tileCalls: plain}
						if err := syrkLowerWith(cfg, "SyrkLower", 1.25, a, beta, c); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						return c
					})
					agreesWithPlain(t, name+"/gram", "one call per tile", m, m, func(th int, plain bool) Matrix[T] {
						c := cs.Clone()
						cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, tileCalls: plain}
						if err := gramWith(cfg, a, c); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						return c
					})
				}
			}
		}
	}
}
