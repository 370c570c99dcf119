//go:build gc && !purego

package asm

// neon is the AArch64 Advanced SIMD kernel set (relu_arm64.s,
// gemm_arm64.s, gemmdirect_arm64.s, arccos_arm64.s, dot_arm64.s).
var neon = &Kernels{
	name:       "neon",
	features:   "ASIMD",
	mr32:       neonMR32,
	nr32:       neonNR32,
	mr64:       neonMR64,
	nr64:       neonNR64,
	relu32:     reluNEON32,
	relu64:     reluNEON64,
	reluGrad32: reluGradNEON32,
	reluGrad64: reluGradNEON64,
	gemmTile32: gemmNEON8x12,
	gemmTile64: gemmNEON6x8,
	gemmBeta32: gemmBetaNEON8x12,
	gemmBeta64: gemmBetaNEON6x8,
	gemmEdge32: gemmEdgeNEON8x12,
	gemmEdge64: gemmEdgeNEON6x8,
	fmaPeak32:  fmaPeakNEON32,
	fmaPeak64:  fmaPeakNEON64,

	gemmDirect32: gemmDirectNEON8x12,
	gemmDirect64: gemmDirectNEON6x8,

	acos64:        acos64NEON,
	arcCosLayer64: arcCosLayer64NEON,
	arcCosFirst64: arcCosFirst64NEON,

	dotF32F64:      dotVec(2, dotF32F64NEON),
	dotRows4F32F64: dotRows4Vec(2, dotRows4F32F64NEON),
	dot64:          dotVec(2, dot64NEON),
	dot64Rows4:     dotRows4Vec(2, dotRows4F64NEON),
	dot32:          dotVec(4, dot32NEON),
	axpyF32F64:     axpyVec(2, axpyF32F64NEON),
	axpy64:         axpyVec(2, axpy64NEON),
	sum32:          sumVec(4, sum32NEON),
	sum64:          sumVec(2, sum64NEON),
	sum32Rows4:     sumRows4Vec(4, sum32Rows4NEON),
	sum64Rows4:     sumRows4Vec(2, sum64Rows4NEON),
}

// archKernels returns the arm64 kernel sets this CPU can run, best first.
//
// NEON (FP and ASIMD) is baseline: the Go arm64 port requires it and the
// compiler and runtime use it unconditionally, so it is not looked up in
// cpuid, which cannot read the feature registers on every OS (it reports
// nothing outside Linux and macOS).
func archKernels() []*Kernels { return []*Kernels{neon} }
