//go:build gc && !purego

package asm

// The direct NEON kernels (contract in gemmdirect.go) in
// gemmdirect_arm64.s, on the tiles of the packed kernels; the exported
// wrappers check the arguments and run the Go twin for k = 0.

// gemmDirectNEON8x12 is the 8×12 float32 direct kernel:
// c[i*ldc+j] = alpha·Σ_p a[i*rs+p*ps]·b[p*ldb+j] + beta·c[i*ldc+j] for
// i < m ≤ 8, j < n ≤ 12, m, n, k ≥ 1 (beta = 0: C is not read). It reads
// no element of a, b or c outside these.
//
//go:noescape
func gemmDirectNEON8x12(k, m, n int, alpha float32, a []float32, rs, ps int, b []float32, ldb int, beta float32, c []float32, ldc int)

// gemmDirectNEON6x8 is gemmDirectNEON8x12 for the 6×8 float64 tile.
//
//go:noescape
func gemmDirectNEON6x8(k, m, n int, alpha float64, a []float64, rs, ps int, b []float64, ldb int, beta float64, c []float64, ldc int)
