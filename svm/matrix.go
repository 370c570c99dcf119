package svm

import (
	"fmt"

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

// RowCache is implemented by a KernelMatrix that keeps rows at hand as
// float64: CachedRow returns row i (len Cols()), which the caller must not
// modify, or nil when the row is not kept (the solver then uses RowTo).
// The SMO reads the rows of its working sets through it without a copy.
type RowCache interface {
	CachedRow(i int) []float64
}

// Diagonal is implemented by a KernelMatrix that has its diagonal at hand
// (a view solved again and again along a path of constants keeps it):
// DiagTo copies K_ii into dst[i] for i < len(dst) = Rows(), the same values
// At(i, i) returns.
type Diagonal interface {
	DiagTo(dst []float64)
}

// Dense is a KernelMatrix over a linalg.Matrix. MulVec (linalg.Gemv, or
// linalg.GemvF32F64 for float32) and AddRows run on linalg.Threads()
// goroutines on the asm level-1 kernels, and every sum is in float64
// whatever the element type: a float32 row is widened exactly (VCVTPS2PD)
// and multiplied into float64 lanes with fused multiply-adds, four rows
// per call in MulVec, one row per linalg.AxpyWide in AddRows, which streams
// the float32 Gram at about the memory's read bandwidth ("ntksvm bench
// svm"). Results do not depend on the thread count.
type Dense[T linalg.Float] struct {
	M linalg.Matrix[T]
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
		if err := linalg.GemvF32F64(linalg.NoTrans, 1, k, x, 0, dst); err != nil {
			panic("svm: MulVec: " + err.Error())
		}
	}
}

// AddRows implements KernelMatrix: columns split over the threads
// (linalg.ParallelFor), one row at a time with linalg.AxpyWide, one fused
// multiply-add per element, so that the column split does not change any
// bit.
// It panics if the lengths do not match (a programmer error).
func (d *Dense[T]) AddRows(dst []float64, rows []int, w []float64) {
	if len(dst) != d.M.Cols || len(rows) != len(w) {
		panic(fmt.Sprintf("svm: AddRows: %d columns, len(dst) %d, %d rows, %d weights", d.M.Cols, len(dst), len(rows), len(w)))
	}
	add := func(j0, j1 int) {
		out := dst[j0:j1]
		for k, r := range rows {
			linalg.AxpyWide(w[k], d.M.Row(r)[j0:j1], out)
		}
	}
	if len(rows)*d.M.Cols < 1<<16 { // too little work to share
		add(0, d.M.Cols)
		return
	}
	linalg.ParallelFor(d.M.Cols, 512, add)
}
