package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestGemmTransBPrefetch checks the op(B) = Bᵀ path whose tiles prefetch
// the next block of B (macroTransPF) against the plain one, bitwise, in
// both element types on every kernel set and 1–3 threads, with small
// blocks so that there are several panels and k blocks: M a multiple of
// MR and not, N with and without a partial last sliver, K below and above
// NR (the runs are NR long), B with padding.
func TestGemmTransBPrefetch(t *testing.T) {
	testGemmTransBPrefetch[float32](t, "float32")
	testGemmTransBPrefetch[float64](t, "float64")
}

func testGemmTransBPrefetch[T Float](t *testing.T, dtype string) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, kern := range asm.Available() {
		mr, nr, _ := kernelFor[T](kern)
		for _, blk := range []blocking{{}, {mc: roundUp(24, mr), kc: 37, nc: 2 * nr}, {mc: roundUp(24, mr), kc: 75, nc: 2 * nr}} {
			for _, m := range []int{8, 13, 40} {
				for _, n := range []int{5, 50, 150} {
					for _, k := range []int{9, 70, 150} {
						name := fmt.Sprintf("%s/%s/blk=%v/%dx%dx%d", dtype, kern.Name(), blk, m, k, n)
						a := randMatrix[T](rng, m, k, 0)
						b := randMatrix[T](rng, n, k, 3) // op(B) = Bᵀ is k×n
						c0 := randMatrix[T](rng, m, n, 2)
						run := func(th int, plain bool) Matrix[T] {
							c := c0.Clone()
							cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, noFused: plain}
							if err := gemmWith(cfg, NoTrans, Trans, 1.25, a, b, 0.5, c); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							return c
						}
						agreesWithPlain(t, name, "the plain path", m, n, run)
					}
				}
			}
		}
	}
}

// BenchmarkGemmTransBSkinny is the forward pass of a wide hidden layer,
// 128×10000 times the transpose of a 10000×10000 float32 weight (400 MB,
// from memory): by default (the transposed path of gemm_rows.go on
// AVX-512), and on the packed path with and without the prefetch of the
// next block of B.
func BenchmarkGemmTransBSkinny(b *testing.B) {
	const m, k, n = 128, 10000, 10000
	rng := rand.New(rand.NewPCG(1, 2))
	a := randMatrix[float32](rng, m, k, 0)
	w := New[float32](n, k)
	for i := range w.Data {
		w.Data[i] = float32(i%13) - 6
	}
	c := New[float32](m, n)
	for _, tc := range []struct {
		name string
		cfg  gemmConfig
	}{
		{"default", gemmConfig{}},
		{"prefetch=true", gemmConfig{rows: -1}},
		{"prefetch=false", gemmConfig{rows: -1, noFused: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := tc.cfg
			for b.Loop() {
				if err := gemmWith(cfg, NoTrans, Trans, 1, a, w, 0, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*m*k*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
