package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestGemmBetaInKernel checks C = alpha·op(A)·B + beta·C on the shapes of a
// rank-k update (the C-prefetching path, where a kernel set with
// GemmRowBeta scales C in the tiles' epilogue of the first k block instead
// of a pass of its own, and the plain path): bitwise the result of scaling
// C by beta first and then computing C = alpha·op(A)·B + 1·C, on every
// kernel set, 1 and 2 threads, one k block and several (a k block of 16),
// rows of tiles long enough for the beta kernel and short ones, edge rows
// and columns, op(A) = A and Aᵀ.
func TestGemmBetaInKernel(t *testing.T) {
	testGemmBetaInKernel[float32](t, "float32")
	testGemmBetaInKernel[float64](t, "float64")
}

func testGemmBetaInKernel[T Float](t *testing.T, dtype string) {
	rng := rand.New(rand.NewPCG(7, 3))
	for _, ks := range asm.Available() {
		var z T
		mr, nr := ks.Tile64()
		if _, ok := any(z).(float32); ok {
			mr, nr = ks.Tile32()
		}
		for _, sh := range [][4]int{
			{2*mr + 3, (hwPrefetchTiles+1)*nr + 5, 16, 0},  // long rows, edge rows and columns
			{3 * mr, (hwPrefetchTiles + 2) * nr, 37, 0},    // long rows, full tiles only
			{mr + 1, 3*nr + 1, 5, 0},                       // short rows
			{2*mr + 3, (hwPrefetchTiles+1)*nr + 5, 45, 16}, // three k blocks
			{3 * mr, (hwPrefetchTiles + 2) * nr, 64, 16},   // four k blocks, full tiles only
		} {
			m, n, k := sh[0], sh[1], sh[2]
			var blk blocking
			if sh[3] > 0 {
				blk = blocking{mc: 4 * mr, kc: sh[3], nc: (hwPrefetchTiles + 2) * nr}
			}
			for _, opA := range []Op{NoTrans, Trans} {
				for _, th := range []int{1, 2} {
					for ci, beta := range []T{0.999, -1.5, 0.3} {
						name := fmt.Sprintf("%s/impl=%s/%dx%dx%d/kc=%d/transA=%v/threads=%d/beta=%v", dtype, ks.Name(), m, n, k, blk.kc, opA, th, beta)
						a := randMatrix[T](rng, m, k, 1)
						if opA {
							a = randMatrix[T](rng, k, m, 1)
						}
						b := randMatrix[T](rng, k, n, 0)
						c := randMatrix[T](rng, m, n, 2)
						c.Data[0] = T(math.Copysign(0, -1))
						want := Matrix[T]{Rows: c.Rows, Cols: c.Cols, Stride: c.Stride, Data: append([]T(nil), c.Data...)}
						for i := range m {
							for j := range n {
								want.Data[i*want.Stride+j] *= beta
							}
						}
						// fuseMax 1: the C-prefetching path, which a product
						// this small would otherwise leave for the fused one
						// (where the set has them); noFused: the plain macro.
						cfg := gemmConfig{kern: ks, threads: th, blk: blk, split: true, noSmall: true, rows: -1, fuseMax: 1}
						if ci == 2 {
							cfg.noFused = true
						}
						alpha := T(-0.25)
						if err := gemmWith(cfg, opA, NoTrans, alpha, a, b, 1, want); err != nil {
							t.Fatal(err)
						}
						if err := gemmWith(cfg, opA, NoTrans, alpha, a, b, beta, c); err != nil {
							t.Fatal(err)
						}
						for i, g := range c.Data {
							if w := want.Data[i]; math.Float64bits(float64(g)) != math.Float64bits(float64(w)) {
								t.Fatalf("%s: C[%d,%d] = %v, want %v (scaled by beta, then beta = 1)", name, i/c.Stride, i%c.Stride, g, w)
							}
						}
					}
				}
			}
		}
	}
}

// BenchmarkGemmBetaUpdate times the weight update W ← β·W + α·Gᵀ·A of a
// 2048-wide layer over a batch of k = 128 (one k block) and k = 1024
// (several), float32, 1 thread: "fused" is one Gemm with β = 0.999 (β in
// the tiles' kernel of the first k block where the set has one), "pass"
// scales W in a Go loop first and then runs Gemm with β = 1, the cost of
// scaling C in a pass of its own.
func BenchmarkGemmBetaUpdate(b *testing.B) {
	const m = 2048
	for _, k := range []int{128, 1024} {
		rng := rand.New(rand.NewPCG(1, 2))
		g := randMatrix[float32](rng, k, m, 0)
		a := randMatrix[float32](rng, k, m, 0)
		w := randMatrix[float32](rng, m, m, 0)
		cfg := gemmConfig{threads: 1}
		const beta, alpha = 0.999, -1e-3
		b.Run(fmt.Sprintf("k=%d/fused", k), func(b *testing.B) {
			for b.Loop() {
				if err := gemmWith(cfg, Trans, NoTrans, alpha, g, a, beta, w); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("k=%d/pass", k), func(b *testing.B) {
			for b.Loop() {
				for i := range w.Rows {
					row := w.Data[i*w.Stride : i*w.Stride+w.Cols]
					for j := range row {
						row[j] *= beta
					}
				}
				if err := gemmWith(cfg, Trans, NoTrans, alpha, g, a, 1, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
