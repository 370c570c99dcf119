//go:build gc && !purego

package linalg

import (
	"github.com/klauspost/cpuid/v2"
	"github.com/ntksvm/ntksvm/asm"
)

// packTGatherAVX512F32 is packTKernels.gather32: kb rows of 48 float32
// gathered by three VGATHERDPS. Requires AVX512F; len(dst) ≥ 48·kb and
// src holds every src[idx[j]+p] (the caller checks).
//
//go:noescape
func packTGatherAVX512F32(dst, src []float32, kb int, idx *[48]int32)

// packTGatherAVX512F64 is packTKernels.gather64: kb rows of 24 float64
// gathered by three VGATHERDPD.
//
//go:noescape
func packTGatherAVX512F64(dst, src []float64, kb int, idx *[24]int32)

// packTTransAVX512F32 is packTKernels.trans32: kb (a multiple of 16)
// rows of 48 float32 transposed in 16×16 register blocks.
//
//go:noescape
func packTTransAVX512F32(dst, src []float32, ld, kb int)

func init() {
	if cpuid.CPU.Supports(cpuid.AVX512F) {
		packTKernels.gather32 = packTGatherAVX512F32
		packTKernels.gather64 = packTGatherAVX512F64
		packTKernels.trans32 = packTTransAVX512F32
	}
}

// packTActive reports whether the gather kernels may run: only under the
// AVX-512 kernel set, so that a NTKSVM_SIMD override to a smaller set
// keeps every kernel within that set's instructions.
func packTActive() bool { return asm.Implementation() == "avx512" }
