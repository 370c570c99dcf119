package classify

import (
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/ondemand"
)

// odView is the sub-problem K[idx, idx] of an on-demand Gram over all the
// training points, read through the index set and never copied: the
// binary sub-problems of a multi-class machine share the Gram's one row
// cache, each row computed whole, so that a point's row serves every
// sub-problem it is in. It is a svm.KernelMatrix and, passing the
// solver's requests on to the Gram, a svm.RowPrefetcher.
type odView[T linalg.Float] struct {
	k    *ondemand.Matrix[T]
	idx  []int
	full []float64 // n, for AddRows
	rows []int
	w    []float64
}

func newODView[T linalg.Float](k *ondemand.Matrix[T], idx []int) *odView[T] {
	return &odView[T]{k: k, idx: idx}
}

// Dims implements svm.KernelMatrix.
func (v *odView[T]) Dims() (int, int) { return len(v.idx), len(v.idx) }

// At implements svm.KernelMatrix.
func (v *odView[T]) At(i, j int) float64 { return v.k.At(v.idx[i], v.idx[j]) }

// RowTo implements svm.KernelMatrix: the Gram's row at the view's columns.
func (v *odView[T]) RowTo(dst []float64, i int) { v.k.RowCols(dst, v.idx[i], v.idx) }

// AddRows implements svm.KernelMatrix through the Gram's AddRows (whole
// rows, in the order given, cached) into a scratch vector of all the
// points, of which the view's columns are added to dst.
func (v *odView[T]) AddRows(dst []float64, rows []int, w []float64) {
	if len(rows) == 0 {
		return
	}
	n, _ := v.k.Dims()
	if v.full == nil {
		v.full = make([]float64, n)
	}
	clear(v.full)
	v.rows = v.rows[:0]
	for _, r := range rows {
		v.rows = append(v.rows, v.idx[r])
	}
	v.k.AddRows(v.full, v.rows, w)
	for c, j := range v.idx {
		dst[c] += v.full[j]
	}
}

// MulVec implements svm.KernelMatrix: K is symmetric, so K·x is the sum of
// the rows at the non-zero entries of x (the SMO's support vectors), which
// costs those rows rather than a pass over the whole Gram.
func (v *odView[T]) MulVec(dst, x []float64) {
	clear(dst)
	var rows []int
	v.w = v.w[:0]
	for c, xc := range x {
		if xc != 0 {
			rows, v.w = append(rows, c), append(v.w, xc)
		}
	}
	v.AddRows(dst, rows, v.w)
}

// Cached implements svm.RowPrefetcher.
func (v *odView[T]) Cached(i int) bool { return v.k.Cached(v.idx[i]) }

// PrefetchRows implements svm.RowPrefetcher.
func (v *odView[T]) PrefetchRows() int { return v.k.PrefetchRows() }

// Prefetch implements svm.RowPrefetcher.
func (v *odView[T]) Prefetch(rows []int) {
	g := make([]int, len(rows))
	for k, r := range rows {
		g[k] = v.idx[r]
	}
	v.k.Prefetch(g)
}
