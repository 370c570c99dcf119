package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGemmDirectTile times each set's direct kernel (through the
// exported wrapper, as package linalg calls it) on the tiles of a small
// product: A (row-major, MR·tiles × k), B (k × NR·tiles) and C stay in L1,
// every tile of the tiles×tiles grid is computed once per iteration, and
// the GFLOP/s of the tile shape (2·m·n·k per tile) are reported. The
// shapes are the full tile (n = NR, the AVX2 kernels' maskless loop), a
// full-width tile with n < NR (AVX2: the mask reloaded every step), a
// one-vector tile (the narrow loop) and a short corner; beta = 0 and 1.
// It shows the cost of the kernel without linalg's, to set beside
// "ntksvm bench gemm" and BenchmarkGemmTile.
func BenchmarkGemmDirectTile(b *testing.B) {
	for _, k := range available {
		if !k.HasGemmDirect32() {
			continue
		}
		for _, kc := range []int{16, 64} {
			mr, nr := k.Tile32()
			for _, s := range [][2]int{{mr, nr}, {mr, nr - 1}, {mr, 8}, {2, 5}} {
				benchDirect(b, k.name, "float32", kc, s[0], s[1], directs32(k))
			}
			mr, nr = k.Tile64()
			for _, s := range [][2]int{{mr, nr}, {mr, nr - 1}, {mr, 4}, {2, 3}} {
				benchDirect(b, k.name, "float64", kc, s[0], s[1], directs64(k))
			}
		}
	}
}

func benchDirect[T float](b *testing.B, name, dtype string, kc, m, n int, f directFuncs[T]) {
	const tiles = 4
	rng := rand.New(rand.NewPCG(35, 36))
	lda, ldb := kc, tiles*n
	a := make([]T, tiles*m*lda)
	bm := make([]T, kc*ldb)
	c := make([]T, tiles*m*ldb)
	for i := range a {
		a[i] = T(2*rng.Float64() - 1)
	}
	for i := range bm {
		bm[i] = T(2*rng.Float64() - 1)
	}
	for _, beta := range []T{0, 1} {
		b.Run(fmt.Sprintf("impl=%s/dtype=%s/m=%d,n=%d,k=%d/beta=%v", name, dtype, m, n, kc, beta), func(b *testing.B) {
			for b.Loop() {
				for i := range tiles {
					for j := range tiles {
						f.direct(kc, m, n, 1, a[i*m*lda:], lda, 1, bm[j*n:], ldb, beta, c[i*m*ldb+j*n:], ldb)
					}
				}
			}
			flops := 2 * float64(tiles*tiles*m*n*kc) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
