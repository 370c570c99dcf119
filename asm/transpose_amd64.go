//go:build gc && !purego

package asm

// AVX-512 kernels of Transpose32 and Transpose64 (contract in
// transpose.go) in transpose_amd64.s.

// transpose8AVX512F32 sets dst[j*ldd+i] = alpha·src[i*lds+j] for i < 8,
// j < 16·nb: each 8×16 block is loaded a row (a zmm) at a time, scaled
// unless alpha is 1, transposed in registers (32-bit and 64-bit unpacks,
// then 128-bit lane shuffles) and stored as 16 rows of 8 (one ymm each).
// Requires AVX512F; nb > 0 and the caller checks lengths.
//
//go:noescape
func transpose8AVX512F32(dst []float32, ldd int, src []float32, lds, nb int, alpha float32)

// transpose8AVX512F64 is transpose8AVX512F32 for float64 8×8 blocks,
// j < 8·nb, stored as 8 rows of 8 (one zmm each).
//
//go:noescape
func transpose8AVX512F64(dst []float64, ldd int, src []float64, lds, nb int, alpha float64)

// transposeAVX512F32 is the AVX-512 Transpose32.
func transposeAVX512F32(dst []float32, ldd int, src []float32, lds, m, n int) {
	scaledTransposeAVX512F32(dst, ldd, src, lds, m, n, 1)
}

// transposeAVX512F64 is the AVX-512 Transpose64.
func transposeAVX512F64(dst []float64, ldd int, src []float64, lds, m, n int) {
	scaledTransposeAVX512F64(dst, ldd, src, lds, m, n, 1)
}

// scaledTransposeAVX512F32 is the AVX-512 ScaledTranspose32: for m = 8,
// the first n&^15 columns by transpose8AVX512F32 and the rest by the Go
// twin; everything by the Go twin otherwise.
func scaledTransposeAVX512F32(dst []float32, ldd int, src []float32, lds, m, n int, alpha float32) {
	n16 := n &^ 15
	if m != 8 || n16 == 0 {
		scaledTransposeGo(dst, ldd, src, lds, m, n, alpha)
		return
	}
	transpose8AVX512F32(dst, ldd, src, lds, n16/16, alpha)
	if n16 < n {
		scaledTransposeGo(dst[n16*ldd:], ldd, src[n16:], lds, m, n-n16, alpha)
	}
}

// scaledTransposeAVX512F64 is the AVX-512 ScaledTranspose64: for m = 8,
// the first n&^7 columns by transpose8AVX512F64 and the rest by the Go
// twin; everything by the Go twin otherwise.
func scaledTransposeAVX512F64(dst []float64, ldd int, src []float64, lds, m, n int, alpha float64) {
	n8 := n &^ 7
	if m != 8 || n8 == 0 {
		scaledTransposeGo(dst, ldd, src, lds, m, n, alpha)
		return
	}
	transpose8AVX512F64(dst, ldd, src, lds, n8/8, alpha)
	if n8 < n {
		scaledTransposeGo(dst[n8*ldd:], ldd, src[n8:], lds, m, n-n8, alpha)
	}
}
