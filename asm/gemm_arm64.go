//go:build gc && !purego

package asm

// The NEON GEMM micro-kernels and peak loops. Each kernel keeps a 24-vector
// accumulator block of C in V0–V23 for the whole k loop and streams the
// packed panels through the remaining eight registers; see gemm_arm64.s for
// the tile shapes and the load schedule. gemm_arm64.s is written by
// asm/_gen/neon:
//
//go:generate sh -c "cd _gen && GOOS= GOARCH= go run ./neon > ../gemm_arm64.s"

// NEON micro-tile shapes.
const (
	neonMR32, neonNR32 = 8, 12 // 8 rows × 3 vectors of 4 floats
	neonMR64, neonNR64 = 6, 8  // 6 rows × 4 vectors of 2 doubles
)

// gemmNEON8x12 accumulates one full 8×12 float32 tile under the contract of
// gemm.go: c[i*ldc+j] += Σ_p a[p*8+i]·b[p*12+j], i < 8, j < 12, summed with
// FMA in increasing p from zero and added to c at the end. The caller
// guarantees len(a) ≥ 8k, len(b) ≥ 12k and len(c) ≥ 7·ldc+12.
//
//go:noescape
func gemmNEON8x12(k int, a, b, c []float32, ldc int)

// gemmNEON6x8 is gemmNEON8x12 for a 6×8 float64 tile: len(a) ≥ 6k,
// len(b) ≥ 8k, len(c) ≥ 5·ldc+8.
//
//go:noescape
func gemmNEON6x8(k int, a, b, c []float64, ldc int)

// gemmEdgeNEON8x12 is gemmNEON8x12 for an edge tile: it adds the sums of
// the m×n corner, 1 ≤ m ≤ 8 and 1 ≤ n ≤ 12, bitwise those of the full
// kernel, to c[i*ldc+j], i < m, j < n, and touches no other element of c
// (the last n mod 4 columns of a row are read and written one by one).
// len(c) ≥ (m-1)·ldc + n suffices. Its k loop computes only the groups of
// four rows and the vectors of four columns that hold rows < m and
// columns < n.
//
//go:noescape
func gemmEdgeNEON8x12(k int, a, b, c []float32, ldc, m, n int)

// gemmEdgeNEON6x8 is gemmEdgeNEON8x12 for the 6×8 float64 tile
// (1 ≤ m ≤ 6, 1 ≤ n ≤ 8; groups of two rows, vectors of two columns).
//
//go:noescape
func gemmEdgeNEON6x8(k int, a, b, c []float64, ldc, m, n int)

// fmaPeakNEON32Loop runs n iterations of 16 independent float32 FMLA
// chains on full Q registers (64 FMAs per iteration); n ≤ 0 does nothing.
//
//go:noescape
func fmaPeakNEON32Loop(n int)

// fmaPeakNEON64Loop is fmaPeakNEON32Loop for float64 (32 FMAs per
// iteration).
//
//go:noescape
func fmaPeakNEON64Loop(n int)

// fmaPeakNEON32 is the neon set's fmaPeak32: 16 chains × 4 lanes × 2 flops.
func fmaPeakNEON32(n int) int {
	if n <= 0 {
		return 0
	}
	fmaPeakNEON32Loop(n)
	return 128 * n
}

// fmaPeakNEON64 is the neon set's fmaPeak64: 16 chains × 2 lanes × 2 flops.
func fmaPeakNEON64(n int) int {
	if n <= 0 {
		return 0
	}
	fmaPeakNEON64Loop(n)
	return 64 * n
}

// gemmBetaNEON8x12 is gemmNEON8x12 with c scaled by beta in the epilogue:
// c[i*ldc+j] = beta·c[i*ldc+j] + Σ_p a[p*8+i]·b[p*12+j], the product rounded
// before the sum is added (contract in gemmbeta.go).
//
//go:noescape
func gemmBetaNEON8x12(k int, a, b, c []float32, ldc int, beta float32)

// gemmBetaNEON6x8 is gemmBetaNEON8x12 for gemmNEON6x8.
//
//go:noescape
func gemmBetaNEON6x8(k int, a, b, c []float64, ldc int, beta float64)
