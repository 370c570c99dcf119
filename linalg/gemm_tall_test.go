package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestGemmPrefetchC checks the path that prefetches C ahead of the tiles
// (macroPrefetchC: a single k block and a block of A too large for
// macroFused) against the plain path, bitwise, in both element types on
// every kernel set and 1–3 threads: op(A) = Aᵀ (the update shape) and A,
// M and N not multiples of the tile and multiples, N below the tile, rows
// of tiles short (prefetched) and long (hwPrefetchTiles), C
// with padding that must stay intact, the default blocks and blocks that
// cut M and N, beta 1 and not 1; and the plain path against a reference.
func TestGemmPrefetchC(t *testing.T) {
	testGemmPrefetchC[float32](t, "float32", 1e-4)
	testGemmPrefetchC[float64](t, "float64", 1e-12)
}

func testGemmPrefetchC[T Float](t *testing.T, dtype string, tol float64) {
	rng := rand.New(rand.NewPCG(31, 32))
	var z T
	_, l2, _ := cacheSizes()
	fuseMax := l2 / 4 / int(unsafeSizeof(z)) // larger blocks of A take this path, not macroFused
	for _, kern := range asm.Available() {
		if _, pf := fusedFor[T](kern); pf == nil {
			continue // no prefetching kernel: the plain path
		}
		mr, nr, _ := kernelFor[T](kern)
		// The last: rows long enough to leave C to the hardware prefetcher.
		ns := []int{nr - 1, 2 * nr, 3*nr + 7, hwPrefetchTiles*nr + 5}
		// k = 129: M a multiple of MR; k = 200: not.
		for _, k := range []int{129, 200} {
			ms := []int{roundUp(fuseMax/k, mr) + 5*mr}
			if k == 200 {
				ms = []int{fuseMax/k + 3}
			}
			big := blocking{mc: roundUp(fuseMax/k, mr) + 2*mr, kc: 200, nc: 2 * nr}
			for _, blk := range []blocking{{}, big} {
				for _, tA := range []bool{true, false} {
					for _, m := range ms {
						for _, n := range ns {
							for _, beta := range []T{1, 0.75} {
								name := fmt.Sprintf("%s/%s/blk=%v/tA=%v/%dx%dx%d/beta=%v", dtype, kern.Name(), blk, tA, m, k, n, beta)
								a := randMatrix[T](rng, m, k, 1)
								if tA {
									a = randMatrix[T](rng, k, m, 2)
								}
								b := randMatrix[T](rng, k, n, 0)
								c0 := randMatrix[T](rng, m, n, 5)
								run := func(th int, plain bool) Matrix[T] {
									c := c0
									c.Data = append([]T(nil), c0.Data...) // with its padding
									cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, noFused: plain}
									if err := gemmWith(cfg, Op(tA), NoTrans, -0.5, a, b, beta, c); err != nil {
										t.Fatalf("%s: %v", name, err)
									}
									for i := 0; i+1 < m; i++ {
										for q := n; q < c0.Stride; q++ {
											if g, w := c.Data[i*c0.Stride+q], c0.Data[i*c0.Stride+q]; math.Float64bits(float64(g)) != math.Float64bits(float64(w)) {
												t.Fatalf("%s threads=%d plain=%v: padding of C's row %d written", name, th, plain, i)
											}
										}
									}
									return c
								}
								want := agreesWithPlain(t, name, "plain path", m, n, run)
								ref := c0
								ref.Data = append([]T(nil), c0.Data...)
								gemmRef(tA, false, -0.5, a, b, beta, ref)
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
	}
}

// BenchmarkGemmNetworkStep times the two products of a training step of
// the paper's Fig. 1 network (width 10000, batch 128, float32) that the
// block choices of this file and transNC are for, each on the active
// kernel set against the choice it replaces, on 1 thread and all threads:
// the update W ← W − η·Gᵀ·A (10000×128×10000, path=prefetchC against
// path=plain, macro) and the forward product A·Wᵀ (128×10000×10000,
// path=transNC against path=nc-full, the panel width of blockSizes).
// Compare with benchstat -col /path.
func BenchmarkGemmNetworkStep(b *testing.B) {
	const n, m = 128, 10000
	rng := rand.New(rand.NewPCG(3, 3))
	g := randMatrix[float32](rng, n, m, 0)
	a := randMatrix[float32](rng, n, m, 0)
	w := randMatrix[float32](rng, m, m, 0)
	z := New[float32](n, m)
	ks := asm.Active()
	mr, nr, _ := kernelFor[float32](ks)
	full := blockSizes(mr, nr, 4)
	for _, th := range []int{1, Threads()} {
		for _, c := range []struct {
			name string
			cfg  gemmConfig
			run  func(cfg gemmConfig) error
		}{
			{"update/path=prefetchC", gemmConfig{}, func(cfg gemmConfig) error { return gemmWith(cfg, Trans, NoTrans, -1e-9, g, a, 1, w) }},
			{"update/path=plain", gemmConfig{noFused: true}, func(cfg gemmConfig) error { return gemmWith(cfg, Trans, NoTrans, -1e-9, g, a, 1, w) }},
			{"forward/path=transNC", gemmConfig{}, func(cfg gemmConfig) error { return gemmWith(cfg, NoTrans, Trans, 0.01, a, w, 0, z) }},
			{"forward/path=nc-full", gemmConfig{blk: full}, func(cfg gemmConfig) error { return gemmWith(cfg, NoTrans, Trans, 0.01, a, w, 0, z) }},
		} {
			b.Run(fmt.Sprintf("%s/impl=%s/threads=%d", c.name, ks.Name(), th), func(b *testing.B) {
				cfg := c.cfg
				cfg.kern, cfg.threads = ks, th
				for b.Loop() {
					if err := c.run(cfg); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(2*float64(n*m*m)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
		if th == Threads() {
			break
		}
	}
}
