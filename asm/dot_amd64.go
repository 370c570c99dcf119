//go:build gc && !purego

package asm

// Assembly kernels in dot_amd64.s, written by asm/_gen/avx -dot (see the
// go:generate lines in gemm_amd64.go). Each handles a length that is a
// multiple of one vector; the wrappers in dot.go call them for the longest
// such prefix and finish the tail with the Go twin. The tail's sum is added to
// the vector sum last, so the order still depends only on the length.

//go:noescape
func dotF32F64AVX512(a []float32, x []float64) float64

//go:noescape
func dotF32F64AVX2(a []float32, x []float64) float64

//go:noescape
func dot64AVX512(a, x []float64) float64

//go:noescape
func dot64AVX2(a, x []float64) float64

//go:noescape
func dot32AVX512(a, x []float32) float32

//go:noescape
func dot32AVX2(a, x []float32) float32

//go:noescape
func sum32AVX512(a []float32) float32

//go:noescape
func sum32AVX2(a []float32) float32

//go:noescape
func sum64AVX512(a []float64) float64

//go:noescape
func sum64AVX2(a []float64) float64

//go:noescape
func axpy64AVX512(alpha float64, x, y []float64)

//go:noescape
func axpy64AVX2(alpha float64, x, y []float64)

//go:noescape
func axpyF32F64AVX512(alpha float64, a []float32, y []float64)

//go:noescape
func axpyF32F64AVX2(alpha float64, a []float32, y []float64)

//go:noescape
func dotRows4F32F64AVX512(a []float32, lda int, x []float64, dst *[4]float64)

//go:noescape
func dotRows4F64AVX512(a []float64, lda int, x []float64, dst *[4]float64)

//go:noescape
func sum32Rows4AVX512(a []float32, lda, n int) float32

//go:noescape
func sum32Rows4AVX2(a []float32, lda, n int) float32

//go:noescape
func sum64Rows4AVX512(a []float64, lda, n int) float64

//go:noescape
func sum64Rows4AVX2(a []float64, lda, n int) float64
