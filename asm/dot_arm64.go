//go:build gc && !purego

package asm

// Assembly kernels in dot_arm64.s (NEON). Each handles a length that is a
// multiple of one step of its single-vector loop (2 elements for the
// float64 results, 4 for the float32 ones); the wrappers in dot.go call
// them for the longest such prefix and finish the tail with the Go twin,
// whose sum is added last, so the order depends only on the length.

// dotF32F64NEON is DotF32F64 for len(a) = len(x) a multiple of 2, in the
// order of dot_arm64.s (the same as dot64NEON on the widened a).
//
//go:noescape
func dotF32F64NEON(a []float32, x []float64) float64

// dot64NEON is Dot64 for len(a) = len(x) a multiple of 2.
//
//go:noescape
func dot64NEON(a, x []float64) float64

// dot32NEON is Dot32 for len(a) = len(x) a multiple of 4.
//
//go:noescape
func dot32NEON(a, x []float32) float32

// sum32NEON is Sum32 for len(a) a multiple of 4.
//
//go:noescape
func sum32NEON(a []float32) float32

// sum64NEON is Sum64 for len(a) a multiple of 2.
//
//go:noescape
func sum64NEON(a []float64) float64

// axpy64NEON is Axpy64 for len(x) = len(y) a multiple of 2.
//
//go:noescape
func axpy64NEON(alpha float64, x, y []float64)

// axpyF32F64NEON is AxpyF32F64 for len(a) = len(y) a multiple of 2.
//
//go:noescape
func axpyF32F64NEON(alpha float64, a []float32, y []float64)

// dotRows4F32F64NEON sets dst[r] to dotF32F64NEON of row r, a[r*lda:]
// against x, for r < 4; len(x) is a multiple of 2 and a holds the four rows.
//
//go:noescape
func dotRows4F32F64NEON(a []float32, lda int, x []float64, dst *[4]float64)

// dotRows4F64NEON is dotRows4F32F64NEON for a float64 matrix (dot64NEON
// per row).
//
//go:noescape
func dotRows4F64NEON(a []float64, lda int, x []float64, dst *[4]float64)

// sum32Rows4NEON is Sum32Rows4 for n a multiple of 4, without the tails.
//
//go:noescape
func sum32Rows4NEON(a []float32, lda, n int) float32

// sum64Rows4NEON is Sum64Rows4 for n a multiple of 2, without the tails.
//
//go:noescape
func sum64Rows4NEON(a []float64, lda, n int) float64
