package asm

import "fmt"

// Transpose32 copies the m×n block src of a row-major matrix (rows lds
// apart) into dst transposed (rows ldd apart):
//
//	dst[j*ldd+i] = src[i*lds+j]                      for i < m, j < n
//
// Elements are copied bit for bit and no other element of dst is written,
// so dst and src may be disjoint parts of one matrix (the mirror of a
// symmetric product). The AVX-512 set transposes 8×16 blocks in registers
// when m is 8, the micro-tile height (each row of dst gets one 32-byte
// store); the rest, and the other sets, run the Go twin, a plain
// element-by-element loop.
//
// It panics if m, n, lds or ldd is negative, lds < n with m > 1, ldd < m
// with n > 1, or src or dst is too short for the block.
func (k *Kernels) Transpose32(dst []float32, ldd int, src []float32, lds, m, n int) {
	checkTranspose("Transpose32", len(dst), ldd, len(src), lds, m, n)
	if m == 0 || n == 0 {
		return
	}
	k.transpose32(dst, ldd, src, lds, m, n)
}

// Transpose64 is Transpose32 for float64; the AVX-512 set transposes 8×8
// blocks in registers when m is 8 (one 64-byte store per row of dst).
func (k *Kernels) Transpose64(dst []float64, ldd int, src []float64, lds, m, n int) {
	checkTranspose("Transpose64", len(dst), ldd, len(src), lds, m, n)
	if m == 0 || n == 0 {
		return
	}
	k.transpose64(dst, ldd, src, lds, m, n)
}

// ScaledTranspose32 is Transpose32 that also multiplies by alpha:
//
//	dst[j*ldd+i] = alpha·src[i*lds+j]                for i < m, j < n
//
// each product rounded once, so that the result is bitwise that of a loop
// computing alpha*src[i*lds+j]; for alpha = 1 it is Transpose32 (a copy,
// no multiplication). It packs a sliver of eight rows of A for the GEMM
// micro-kernels (ldd = 8) in one blocked transposing pass rather than by
// interleaving the rows element by element. It panics as Transpose32 does.
func (k *Kernels) ScaledTranspose32(dst []float32, ldd int, src []float32, lds, m, n int, alpha float32) {
	checkTranspose("ScaledTranspose32", len(dst), ldd, len(src), lds, m, n)
	if m == 0 || n == 0 {
		return
	}
	k.scaledTranspose32(dst, ldd, src, lds, m, n, alpha)
}

// ScaledTranspose64 is ScaledTranspose32 for float64.
func (k *Kernels) ScaledTranspose64(dst []float64, ldd int, src []float64, lds, m, n int, alpha float64) {
	checkTranspose("ScaledTranspose64", len(dst), ldd, len(src), lds, m, n)
	if m == 0 || n == 0 {
		return
	}
	k.scaledTranspose64(dst, ldd, src, lds, m, n, alpha)
}

// HasTranspose32 reports whether Transpose32 and ScaledTranspose32 have
// kernels of their own in this set (for m = 8). Without one it runs the Go twin, and a caller with
// a tuned loop of its own may keep that.
func (k *Kernels) HasTranspose32() bool { return k.hasTranspose32 }

// HasTranspose64 is HasTranspose32 for Transpose64.
func (k *Kernels) HasTranspose64() bool { return k.hasTranspose64 }

// fillTranspose gives a kernel set without transpose kernels the Go twins.
func fillTranspose(k *Kernels) {
	k.hasTranspose32 = k.transpose32 != nil
	k.hasTranspose64 = k.transpose64 != nil
	if k.scaledTranspose32 == nil {
		k.scaledTranspose32 = scaledTransposeGo[float32]
	}
	if k.scaledTranspose64 == nil {
		k.scaledTranspose64 = scaledTransposeGo[float64]
	}
	if k.transpose32 == nil {
		k.transpose32 = transposeGo[float32]
	}
	if k.transpose64 == nil {
		k.transpose64 = transposeGo[float64]
	}
}

// checkTranspose panics unless src holds every src[i*lds+j] and dst every
// dst[j*ldd+i], i < m, j < n. The length tests are written so that they
// cannot overflow: (m-1)·lds + n ≤ lsrc ⇔ lds ≤ ⌊(lsrc-n)/(m-1)⌋.
func checkTranspose(fn string, ldst, ldd, lsrc, lds, m, n int) {
	switch {
	case m < 0 || n < 0 || lds < 0 || ldd < 0 || (m > 1 && lds < n) || (n > 1 && ldd < m):
		panic(fmt.Sprintf("asm: %s: m=%d n=%d lds=%d ldd=%d", fn, m, n, lds, ldd))
	case m == 0 || n == 0:
	case lsrc < n || (m > 1 && lds > (lsrc-n)/(m-1)):
		panic(fmt.Sprintf("asm: %s: src too short for %d×%d, lds=%d", fn, m, n, lds))
	case ldst < m || (n > 1 && ldd > (ldst-m)/(n-1)):
		panic(fmt.Sprintf("asm: %s: dst too short for %d×%d transposed, ldd=%d", fn, m, n, ldd))
	}
}
