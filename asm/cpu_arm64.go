//go:build gc && !purego

package asm

// neon is the AArch64 Advanced SIMD kernel set (relu_arm64.s,
// gemm_arm64.s).
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
	fmaPeak32:  fmaPeakNEON32,
	fmaPeak64:  fmaPeakNEON64,

	acos64:        acos64NEON,
	arcCosLayer64: arcCosLayer64NEON,
	arcCosFirst64: arcCosFirst64NEON,
}

// archKernels returns the arm64 kernel sets this CPU can run, best first.
//
// NEON (FP and ASIMD) is baseline: the Go arm64 port requires it and the
// compiler and runtime use it unconditionally, so it is not looked up in
// cpuid, which cannot read the feature registers on every OS (it reports
// nothing outside Linux and macOS).
func archKernels() []*Kernels { return []*Kernels{neon} }
