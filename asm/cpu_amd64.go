//go:build gc && !purego

package asm

import "github.com/klauspost/cpuid/v2"

// archKernels returns the amd64 kernel sets this CPU can run, best first.
// cpuid's Supports also checks that the OS saves the vector registers (the
// zmm and mask state for AVX512F). Each check lists every feature the set's
// kernels use; a kernel added to a set that needs more must add it here.
func archKernels() []*Kernels {
	var ks []*Kernels
	if cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX) {
		ks = append(ks, avx512Kernels())
	}
	if cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3) {
		ks = append(ks, avx2Kernels())
	}
	return ks
}

// avx512Kernels is the AVX-512 set: every kernel uses AVX512F only (zmm
// loads and stores, masked ones included, VFIXUPIMM, compares into mask
// registers, KMOVW from a general register, zeroing-masked moves and adds,
// broadcasts, gathers, shuffles, FMAs and the other arithmetic); VZEROUPPER
// is AVX.
func avx512Kernels() *Kernels {
	return &Kernels{
		name:       "avx512",
		features:   "AVX512F AVX",
		mr32:       8,
		nr32:       48,
		mr64:       8,
		nr64:       24,
		relu32:     reluVec(16, 64, reluAVX512F32, reluNTAVX512F32),
		relu64:     reluVec(8, 64, reluAVX512F64, reluNTAVX512F64),
		reluGrad32: reluGradVec(16, reluGradAVX512F32),
		reluGrad64: reluGradVec(8, reluGradAVX512F64),
		gemmTile32: gemmAVX512F32,
		gemmTile64: gemmAVX512F64,
		gemmEdge32: gemmEdgeAVX512F32,
		gemmEdge64: gemmEdgeAVX512F64,
		fmaPeak32:  fmaPeakAVX512F32,
		fmaPeak64:  fmaPeakAVX512F64,

		gemmDirect32: gemmDirectAVX512F32,
		gemmDirect64: gemmDirectAVX512F64,

		gemmPackB32: gemmPackBAVX512F32,
		gemmPackB64: gemmPackBAVX512F64,
		gemmPF32:    gemmPFAVX512F32,
		gemmPF64:    gemmPFAVX512F64,
		gemmBeta32:  gemmBetaAVX512F32,
		gemmBeta64:  gemmBetaAVX512F64,

		gemmRows32: gemmRowsAVX512F32,

		packBTrans32: packBTransAVX512F32,
		packBTrans64: packBTransAVX512F64,

		transpose32:       transposeAVX512F32,
		transpose64:       transposeAVX512F64,
		scaledTranspose32: scaledTransposeAVX512F32,
		scaledTranspose64: scaledTransposeAVX512F64,

		acos64:        acos64AVX512,
		arcCosLayer64: arcCosLayer64AVX512,
		arcCosFirst64: arcCosFirst64AVX512,

		dotF32F64:      dotVec(8, dotF32F64AVX512),
		dotRows4F32F64: dotRows4Vec(8, dotRows4F32F64AVX512),
		dot64:          dotVec(8, dot64AVX512),
		dot64Rows4:     dotRows4Vec(8, dotRows4F64AVX512),
		dot32:          dotVec(16, dot32AVX512),
		axpyF32F64:     axpyVec(8, axpyF32F64AVX512),
		axpy64:         axpyVec(8, axpy64AVX512),
		sum32:          sumVec(16, sum32AVX512),
		sum64:          sumVec(8, sum64AVX512),
		sum32Rows4:     sumRows4Vec(16, sum32Rows4AVX512),
		sum64Rows4:     sumRows4Vec(8, sum64Rows4AVX512),
	}
}

// avx2Kernels is the AVX2 set: ReLU needs only AVX (256-bit compares and
// ands), the GEMM and peak loops FMA3 (the edge and direct GEMM kernels'
// VMASKMOVPS and VMASKMOVPD are AVX); AVX2 is required as the level that
// every AVX2 CPU with FMA3 has.
func avx2Kernels() *Kernels {
	return &Kernels{
		name:       "avx2",
		features:   "AVX2 FMA3",
		mr32:       6,
		nr32:       16,
		mr64:       4,
		nr64:       12,
		relu32:     reluVec(8, 32, reluAVX2F32, reluNTAVX2F32),
		relu64:     reluVec(4, 32, reluAVX2F64, reluNTAVX2F64),
		reluGrad32: reluGradVec(8, reluGradAVX2F32),
		reluGrad64: reluGradVec(4, reluGradAVX2F64),
		gemmTile32: gemmAVX2F32,
		gemmTile64: gemmAVX2F64,
		gemmEdge32: gemmEdgeAVX2F32,
		gemmEdge64: gemmEdgeAVX2F64,
		fmaPeak32:  fmaPeakAVX2F32,
		fmaPeak64:  fmaPeakAVX2F64,

		gemmDirect32: gemmDirectAVX2F32,
		gemmDirect64: gemmDirectAVX2F64,

		// Fused kernels (gemmpack_amd64.s): the float64 pair pays
		// with the 4×12 tile (it does not with a 6×8 one).
		gemmPackB32: gemmPackBAVX2F32,
		gemmPF32:    gemmPFAVX2F32,
		gemmPackB64: gemmPackBAVX2F64,
		gemmPF64:    gemmPFAVX2F64,
		gemmBeta32:  gemmBetaAVX2F32,
		gemmBeta64:  gemmBetaAVX2F64,

		acos64:        acos64AVX2,
		arcCosLayer64: arcCosLayer64AVX2,
		arcCosFirst64: arcCosFirst64AVX2,

		dotF32F64:  dotVec(4, dotF32F64AVX2),
		dot64:      dotVec(4, dot64AVX2),
		dot32:      dotVec(8, dot32AVX2),
		axpyF32F64: axpyVec(4, axpyF32F64AVX2),
		axpy64:     axpyVec(4, axpy64AVX2),
		sum32:      sumVec(8, sum32AVX2),
		sum64:      sumVec(4, sum64AVX2),
		sum32Rows4: sumRows4Vec(8, sum32Rows4AVX2),
		sum64Rows4: sumRows4Vec(4, sum64Rows4AVX2),
	}
}
