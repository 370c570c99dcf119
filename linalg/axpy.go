package linalg

import "github.com/ntksvm/ntksvm/asm"

// AxpyWide computes y += alpha·x into a float64 accumulator y, whatever the
// element type of x: y[i] = fma(alpha, float64(x[i]), y[i]) for every i.
// A float32 x (a row of a float32 kernel matrix) is widened exactly, so
// each element is rounded once, as in the float64 case; the result depends
// only on the values, not on the kernel set or on how a caller splits the
// vector between goroutines. It runs the asm package's fused kernels
// (asm.AxpyF32F64, asm.Axpy64). It panics if len(x) != len(y) (a
// programmer error).
func AxpyWide[T Float](alpha float64, x []T, y []float64) {
	checkLen("AxpyWide", len(x), len(y))
	axpy(alpha, x, y)
}

// KernelSet returns the name of the SIMD kernel set the package's routines
// run on, and a non-nil error if the NTKSVM_SIMD override named a set this
// CPU or build cannot run (the best available set is used instead). It
// reads NTKSVM_SIMD, so a test that calls it is keyed in go test's cache on
// the override (see asm.Check).
func KernelSet() (string, error) {
	return asm.Implementation(), asm.Check()
}
