//go:build gc && !purego

package asm

// Assembly kernels in dot_amd64.s. Each handles a length that is a
// multiple of one vector; the wrappers below call them for the longest such
// prefix and finish the tail with the Go twin. The tail's sum is added to
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

// dotVec returns a dot-product wrapper that runs blocks on multiples of
// vec elements and the Go twin on the tail.
func dotVec[A, X float32 | float64](vec int, blocks func(a []A, x []X) X) func(a []A, x []X) X {
	return func(a []A, x []X) X {
		x = x[:len(a)]
		n := len(a) - len(a)%vec
		if n == 0 {
			return dotGeneric(a, x)
		}
		s := blocks(a[:n], x[:n])
		if n == len(a) {
			return s
		}
		return s + dotGeneric(a[n:], x[n:])
	}
}

// sumVec is dotVec for a sum.
func sumVec[T float32 | float64](vec int, blocks func(a []T) T) func(a []T) T {
	return func(a []T) T {
		n := len(a) - len(a)%vec
		if n == 0 {
			return sumGeneric(a)
		}
		s := blocks(a[:n])
		if n == len(a) {
			return s
		}
		return s + sumGeneric(a[n:])
	}
}

// axpyVec is dotVec for an axpy; being elementwise, the split does not
// change any result.
func axpyVec[A float32 | float64](vec int, blocks func(alpha float64, a []A, y []float64)) func(alpha float64, a []A, y []float64) {
	return func(alpha float64, a []A, y []float64) {
		y = y[:len(a)]
		n := len(a) - len(a)%vec
		blocks(alpha, a[:n], y[:n])
		axpyGeneric(alpha, a[n:], y[n:])
	}
}

//go:noescape
func dotRows4F32F64AVX512(a []float32, lda int, x []float64, dst *[4]float64)

//go:noescape
func dotRows4F64AVX512(a []float64, lda int, x []float64, dst *[4]float64)

// dotRows4Vec returns the four-row wrapper for blocks on multiples of vec
// elements; it sums each row exactly as dotVec's wrapper does.
func dotRows4Vec[A float32 | float64](vec int, blocks func(a []A, lda int, x []float64, dst *[4]float64)) func(dst *[4]float64, a []A, lda int, x []float64) {
	return func(dst *[4]float64, a []A, lda int, x []float64) {
		m := len(x)
		n := m - m%vec
		if n == 0 {
			for r := range dst {
				dst[r] = dotGeneric(a[r*lda:][:m], x)
			}
			return
		}
		blocks(a, lda, x[:n], dst)
		if n < m {
			for r := range dst {
				dst[r] += dotGeneric(a[r*lda+n:][:m-n], x[n:])
			}
		}
	}
}

//go:noescape
func sum32Rows4AVX512(a []float32, lda, n int) float32

//go:noescape
func sum32Rows4AVX2(a []float32, lda, n int) float32

//go:noescape
func sum64Rows4AVX512(a []float64, lda, n int) float64

//go:noescape
func sum64Rows4AVX2(a []float64, lda, n int) float64

// sumRows4Vec returns the four-row sum wrapper for blocks on multiples of
// vec elements; the tail of each row is added in Go.
func sumRows4Vec[T float32 | float64](vec int, blocks func(a []T, lda, n int) T) func(a []T, lda, n int) T {
	return func(a []T, lda, n int) T {
		m := n - n%vec
		var s T
		if m > 0 {
			s = blocks(a, lda, m)
		}
		if m < n {
			for r := range 4 {
				s += sumGeneric(a[r*lda+m:][:n-m])
			}
		}
		return s
	}
}
