package svm

import (
	"fmt"
	"sync"

	"github.com/ntksvm/ntksvm/linalg"
)

// KernelMatrix is a precomputed kernel matrix K(A, X) of float32 or float64
// values: Rows() points of A against Cols() training points X. A training
// Gram K(X, X) is square and symmetric; the trainers and solvers rely on
// that symmetry (column j is read as row j).
//
// Products accumulate in float64 whatever the element type.
type KernelMatrix interface {
	// Dims returns the number of rows and columns.
	Dims() (rows, cols int)
	// At returns element (i, j).
	At(i, j int) float64
	// MulVec sets dst = K·x. len(dst) must be Rows() and len(x) Cols().
	MulVec(dst, x []float64)
	// AddRows adds Σₖ w[k]·K[rows[k], :] to dst (len(dst) = Cols()).
	AddRows(dst []float64, rows []int, w []float64)
	// RowTo copies row i into dst as float64 (len(dst) = Cols()).
	RowTo(dst []float64, i int)
}

// Dense is a KernelMatrix over a linalg.Matrix. MulVec (linalg.Gemv, or
// linalg.GemvF32F64 for float32: every sum in float64) and AddRows run on
// linalg.Threads() goroutines.
type Dense[T linalg.Float] struct {
	M linalg.Matrix[T]
	// Float32Sums makes MulVec of a float32 matrix sum in float32 blocks
	// (see mulVec32): about twice as fast, with an extra relative error of
	// about 1e-6 of Σ|Kᵢⱼxⱼ|. Leave it off for the exact solvers, whose
	// certificates need the float64 sums; it suits the subgradient
	// trainer, which the authors ran in float32 throughout.
	Float32Sums bool
}

// NewDense wraps m (not copied) as a KernelMatrix.
func NewDense[T linalg.Float](m linalg.Matrix[T]) *Dense[T] { return &Dense[T]{M: m} }

// Dims implements KernelMatrix.
func (d *Dense[T]) Dims() (int, int) { return d.M.Rows, d.M.Cols }

// At implements KernelMatrix.
func (d *Dense[T]) At(i, j int) float64 { return float64(d.M.At(i, j)) }

// RowTo implements KernelMatrix.
func (d *Dense[T]) RowTo(dst []float64, i int) {
	for j, v := range d.M.Row(i) {
		dst[j] = float64(v)
	}
}

func (d *Dense[T]) threads() int { return linalg.Threads() }

// MulVec implements KernelMatrix: dst = K·x, rows split over the threads.
// It panics if the lengths do not match or dst overlaps x (programmer
// errors).
func (d *Dense[T]) MulVec(dst, x []float64) {
	if len(dst) != d.M.Rows || len(x) != d.M.Cols {
		panic(fmt.Sprintf("svm: MulVec: %d×%d matrix, len(dst) %d, len(x) %d", d.M.Rows, d.M.Cols, len(dst), len(x)))
	}
	switch k := any(d.M).(type) {
	case linalg.Matrix[float64]:
		if err := linalg.Gemv(linalg.NoTrans, 1, k, x, 0, dst); err != nil {
			panic("svm: MulVec: " + err.Error())
		}
	case linalg.Matrix[float32]:
		if d.Float32Sums {
			mulVec32(k, dst, x, d.threads())
		} else if err := linalg.GemvF32F64(linalg.NoTrans, 1, k, x, 0, dst); err != nil {
			panic("svm: MulVec: " + err.Error())
		}
	}
}

// mulVec32Block is the number of float32 products summed in float32
// before the partial sum joins the float64 total.
const mulVec32Block = 128

// mulVec32 sets dst = K·x for a float32 K, the float32 step of the
// kernel machines. Widening every element to float64 (linalg.GemvF32F64)
// makes the product compute-bound in scalar Go; here x is rounded to
// float32 once and each row sums blocks of mulVec32Block float32 products
// in float32, the block sums in float64. The extra error is that of a
// float32 sum of mulVec32Block terms, about √128·2⁻²⁴ ≈ 7e-7 of Σ|Kᵢⱼxⱼ|
// typically (1e-5 at worst), against 6e-8 for rounding K to float32.
func mulVec32(k linalg.Matrix[float32], dst, x []float64, threads int) {
	x32 := make([]float32, len(x))
	for j, v := range x {
		x32[j] = float32(v)
	}
	n := k.Cols
	parallel((k.Rows+3)/4, threads, 16, func(b0, b1 int) {
		for i := 4 * b0; i < min(4*b1, k.Rows); {
			if i+4 > k.Rows {
				dst[i] = dot32(k.Row(i), x32)
				i++
				continue
			}
			r0, r1, r2, r3 := k.Row(i), k.Row(i+1), k.Row(i+2), k.Row(i+3)
			var t0, t1, t2, t3 float64
			for j0 := 0; j0 < n; j0 += mulVec32Block {
				j1 := min(j0+mulVec32Block, n)
				xx := x32[j0:j1]
				q0, q1, q2, q3 := r0[j0:j1], r1[j0:j1], r2[j0:j1], r3[j0:j1]
				q0, q1, q2, q3 = q0[:len(xx)], q1[:len(xx)], q2[:len(xx)], q3[:len(xx)]
				var s0, s1, s2, s3 float32
				for j, xj := range xx {
					s0 += q0[j] * xj
					s1 += q1[j] * xj
					s2 += q2[j] * xj
					s3 += q3[j] * xj
				}
				t0 += float64(s0)
				t1 += float64(s1)
				t2 += float64(s2)
				t3 += float64(s3)
			}
			dst[i], dst[i+1], dst[i+2], dst[i+3] = t0, t1, t2, t3
			i += 4
		}
	})
}

// dot32 is one row of mulVec32.
func dot32(r, x []float32) float64 {
	var t float64
	for j0 := 0; j0 < len(r); j0 += mulVec32Block {
		j1 := min(j0+mulVec32Block, len(r))
		var s float32
		for j, v := range r[j0:j1] {
			s += v * x[j0+j]
		}
		t += float64(s)
	}
	return t
}

// AddRows implements KernelMatrix: columns split over the threads.
// It panics if the lengths do not match (a programmer error).
func (d *Dense[T]) AddRows(dst []float64, rows []int, w []float64) {
	if len(dst) != d.M.Cols || len(rows) != len(w) {
		panic(fmt.Sprintf("svm: AddRows: %d columns, len(dst) %d, %d rows, %d weights", d.M.Cols, len(dst), len(rows), len(w)))
	}
	work := len(rows) * d.M.Cols
	threads := d.threads()
	if work < 1<<16 {
		threads = 1
	}
	parallel(d.M.Cols, threads, 512, func(j0, j1 int) {
		out := dst[j0:j1]
		k := 0
		for ; k+2 <= len(rows); k += 2 { // two rows per pass halve the traffic on dst
			r0 := d.M.Row(rows[k])[j0:j1]
			r1 := d.M.Row(rows[k+1])[j0:j1]
			w0, w1 := w[k], w[k+1]
			r0, r1 = r0[:len(out)], r1[:len(out)]
			for j := range out {
				out[j] += w0*float64(r0[j]) + w1*float64(r1[j])
			}
		}
		if k < len(rows) {
			axpy(out, w[k], d.M.Row(rows[k])[j0:j1])
		}
	})
}

// dot returns Σ a[i]·x[i] in float64 with four accumulators.
func dot[T linalg.Float](a []T, x []float64) float64 {
	x = x[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i]) * x[i]
		s1 += float64(a[i+1]) * x[i+1]
		s2 += float64(a[i+2]) * x[i+2]
		s3 += float64(a[i+3]) * x[i+3]
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i]) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds w·r to dst.
func axpy[T linalg.Float](dst []float64, w float64, r []T) {
	r = r[:len(dst)]
	for j := range dst {
		dst[j] += w * float64(r[j])
	}
}

// parallel runs fn over [0, n) split into at most threads contiguous
// chunks of at least minChunk elements, and waits for them.
func parallel(n, threads, minChunk int, fn func(lo, hi int)) {
	chunks := min(threads, (n+minChunk-1)/minChunk)
	if chunks <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for c := range chunks {
		lo, hi := c*n/chunks, (c+1)*n/chunks
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}
