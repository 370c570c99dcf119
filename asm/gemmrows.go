package asm

import "fmt"

// RowsMR and RowsNR are the shape of the GemmRows32 tile: RowsMR rows of
// the strided operand a by RowsNR columns of the packed operand b.
const (
	RowsMR = 6
	RowsNR = 64
)

// GemmRows32 accumulates one RowsMR×RowsNR (6×64) tile of a product whose
// broadcast operand is read in place, RowsMR rows of a row-major matrix
// lda apart, and whose other operand is a packed sliver of RowsNR columns:
//
//	c[r*ldc+i] += Σ_{p<kc} a[r*lda+p]·b[p*RowsNR+i]     for r < RowsMR, i < RowsNR
//
// Each sum is formed by FMA in increasing p from zero and added to c once,
// as the other GEMM kernels form theirs, so that with the same k blocks
// the result is bitwise that of the packed micro-kernels. It is the
// kernel of the M-skinny products C = alpha·A·Bᵀ computed transposed,
// Cᵀ = B·(alpha·A)ᵀ (package linalg): a holds rows of B as stored (the
// weights of a forward pass), which then need no packing.
//
// pf is a hint: the AVX-512 kernel prefetches into L1, while it computes,
// the first kc elements (rounded up to whole cache lines) of the RowsMR
// rows at pf, lda apart, so that a caller can point it at the rows of the
// next tile. Prefetches do not fault; an empty pf prefetches the tile's
// own rows. The result does not depend on pf.
//
// A set without a kernel of its own (HasGemmRows32 false) computes the
// same sums in Go, with the compiler's choice of FMA or not.
//
// It panics if kc < 0, lda < kc, ldc < RowsNR, or a, b or c is too short.
func (k *Kernels) GemmRows32(kc int, a []float32, lda int, b, c []float32, ldc int, pf []float32) {
	switch {
	case kc < 0 || lda < kc || ldc < RowsNR:
		panic(fmt.Sprintf("asm: GemmRows32: k=%d lda=%d ldc=%d", kc, lda, ldc))
	case len(a) < (RowsMR-1)*lda+kc:
		panic(fmt.Sprintf("asm: GemmRows32: a too short for k=%d, lda=%d", kc, lda))
	case len(b) < kc*RowsNR:
		panic(fmt.Sprintf("asm: GemmRows32: packed b too short for k=%d", kc))
	case len(c) < (RowsMR-1)*ldc+RowsNR:
		panic(fmt.Sprintf("asm: GemmRows32: c too short for ldc=%d", ldc))
	}
	if kc == 0 {
		return
	}
	if len(pf) == 0 {
		pf = a
	}
	k.gemmRows32(kc, a, lda, b, c, ldc, pf)
}

// HasGemmRows32 reports whether GemmRows32 has a kernel of its own in this
// set (AVX-512). Without one it runs a Go loop, and callers should take
// their packed path instead.
func (k *Kernels) HasGemmRows32() bool { return k.hasGemmRows32 }

// fillGemmRows gives a kernel set without a GemmRows32 kernel the Go twin.
func fillGemmRows(k *Kernels) {
	k.hasGemmRows32 = k.gemmRows32 != nil
	if k.gemmRows32 == nil {
		k.gemmRows32 = gemmRowsGo
	}
}
