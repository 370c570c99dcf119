package linalg

import (
	"fmt"

	"github.com/ntksvm/ntksvm/asm"
)

// Gemv computes y = alpha·op(A)·x + beta·y. When beta is 0, y is
// overwritten and its previous contents (even NaN) are ignored. It returns
// an error wrapping ErrShape if len(x) or len(y) does not match op(A), and
// an error if y shares storage with A or x. Large products run on up to
// Threads() goroutines, split over y; the result does not depend on the
// thread count.
func Gemv[T Float](op Op, alpha T, a Matrix[T], x []T, beta T, y []T) error {
	return gemv("Gemv", op, alpha, a, x, beta, y, 0, gemvMinWork)
}

// GemvF32F64 is Gemv for a float32 matrix with float64 vectors: each
// element of A is widened to float64 and all arithmetic is in float64.
// It serves kernel machines whose Gram matrix is stored in float32 (half
// the memory traffic) while their coefficients and decision values need
// float64.
func GemvF32F64(op Op, alpha float64, a Matrix[float32], x []float64, beta float64, y []float64) error {
	return gemv("GemvF32F64", op, alpha, a, x, beta, y, 0, gemvMinWork)
}

// gemvRowBlock is the number of rows processed together; the thread split
// is on multiples of it so that each y[i] is computed the same way for any
// thread count.
const gemvRowBlock = 4

// gemvMinWork is the least number of matrix elements per goroutine.
const gemvMinWork = 1 << 16

// gemv is Gemv for any element types on up to threads goroutines (≤ 0:
// Threads()), each with at least minWork elements of A.
func gemv[A, X Float](fn string, op Op, alpha X, a Matrix[A], x []X, beta X, y []X, threads, minWork int) error {
	m, n := a.Rows, a.Cols
	if op {
		m, n = n, m
	}
	if len(x) != n || len(y) != m {
		return fmt.Errorf("%w: %s: op(A) is %d×%d but len(x) = %d and len(y) = %d",
			ErrShape, fn, m, n, len(x), len(y))
	}
	if err := checkMatrix("A", a); err != nil {
		return err
	}
	if overlapsAny(y, a.Data) || overlaps(y, x) {
		return fmt.Errorf("linalg: %s: y shares storage with A or x", fn)
	}
	if m == 0 {
		return nil
	}
	if threads <= 0 {
		threads = Threads()
	}
	t := max(1, min(threads, a.Rows*a.Cols/max(minWork, 1), (m+gemvRowBlock-1)/gemvRowBlock))
	cuts := evenCuts(m, gemvRowBlock, t)
	if op == NoTrans {
		parallel(t, func(w int) {
			gemvN(alpha, a, x, beta, y, cuts[w], cuts[w+1])
		})
		return nil
	}
	parallel(t, func(w int) {
		gemvT(alpha, a, x, beta, y, cuts[w], cuts[w+1])
	})
	return nil
}

// overlapsAny is overlaps for slices of possibly different element types.
func overlapsAny[X, A Float](y []X, a []A) bool {
	var zx X
	var za A
	if any(zx) == any(za) {
		return overlaps(y, any(a).([]X))
	}
	return false // different element types cannot share storage in Go
}

// gemvN computes y[i0:i1] for y = alpha·A·x + beta·y with the asm dot
// kernels (dot), four rows per call for a float64 x (asm.DotRows4F32F64,
// asm.Dot64Rows4, which read x once for four rows). Every y[i] is
// the same bits as dot(row i, x), whatever the rows' grouping.
func gemvN[A, X Float](alpha X, a Matrix[A], x []X, beta X, y []X, i0, i1 int) {
	n, ld := a.Cols, a.Stride
	x = x[:n]
	i := i0
	if x64, ok := any(x).([]float64); ok {
		var s [4]float64
		for ; i+4 <= i1; i += 4 {
			switch d := any(a.Data).(type) {
			case []float32:
				asm.DotRows4F32F64(&s, d[i*ld:], ld, x64)
			case []float64:
				asm.Dot64Rows4(&s, d[i*ld:], ld, x64)
			}
			yy := y[i : i+4 : i+4]
			for r, v := range s {
				yy[r] = gemvOut(alpha, X(v), beta, yy[r])
			}
		}
	}
	for ; i < i1; i++ {
		y[i] = gemvOut(alpha, dot(a.Data[i*ld:][:n], x), beta, y[i])
	}
}

func gemvOut[X Float](alpha, s, beta, y X) X {
	if beta == 0 {
		return alpha * s
	}
	return alpha*s + beta*y
}

// gemvT computes y[j0:j1] for y = alpha·Aᵀ·x + beta·y: a float64 y adds one
// row of A at a time with the axpy kernels, a float32 y four rows at a time
// in Go.
func gemvT[A, X Float](alpha X, a Matrix[A], x []X, beta X, y []X, j0, j1 int) {
	yy := y[j0:j1]
	switch beta {
	case 0:
		clear(yy)
	case 1:
	default:
		Scal(beta, yy)
	}
	m, ld, w := a.Rows, a.Stride, j1-j0
	if _, ok := any(yy).([]float64); ok {
		// One fused axpy kernel per row (asm.Axpy64, asm.AxpyF32F64):
		// elementwise, so y[j] does not depend on the column split.
		for i := range m {
			axpy(alpha*x[i], a.Data[i*ld+j0:][:w], yy)
		}
		return
	}
	i := 0
	for ; i+4 <= m; i += 4 {
		c0, c1, c2, c3 := alpha*x[i], alpha*x[i+1], alpha*x[i+2], alpha*x[i+3]
		r0 := a.Data[i*ld+j0:][:w]
		r1 := a.Data[(i+1)*ld+j0:][:w]
		r2 := a.Data[(i+2)*ld+j0:][:w]
		r3 := a.Data[(i+3)*ld+j0:][:w]
		for j := range yy {
			yy[j] += c0*X(r0[j]) + c1*X(r1[j]) + c2*X(r2[j]) + c3*X(r3[j])
		}
	}
	for ; i < m; i++ {
		axpy(alpha*x[i], a.Data[i*ld+j0:][:w], yy)
	}
}
