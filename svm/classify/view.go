package classify

import (
	"github.com/ntksvm/ntksvm/linalg"
)

// view is the kernel matrix K[rows, cols] of a larger Gram, read through
// index sets and never copied: the binary sub-problems of a multi-class
// machine and the folds of cross-validation are views of one Gram. It is a
// svm.KernelMatrix; products accumulate in float64.
type view[T linalg.Float] struct {
	k          linalg.Matrix[T]
	rows, cols []int
}

func (v *view[T]) Dims() (int, int) { return len(v.rows), len(v.cols) }

func (v *view[T]) At(i, j int) float64 { return float64(v.k.At(v.rows[i], v.cols[j])) }

// MulVec skips the zero entries of x: SMO multiplies by dual solutions,
// whose non-support vectors are exactly 0.
func (v *view[T]) MulVec(dst, x []float64) {
	var cols []int
	var w []float64
	for c, xc := range x {
		if xc != 0 {
			cols, w = append(cols, v.cols[c]), append(w, xc)
		}
	}
	for r, i := range v.rows {
		row := v.k.Row(i)
		var s float64
		for c, j := range cols {
			s += float64(row[j]) * w[c]
		}
		dst[r] = s
	}
}

func (v *view[T]) AddRows(dst []float64, rows []int, w []float64) {
	for k, r := range rows {
		row, wk := v.k.Row(v.rows[r]), w[k]
		for c, j := range v.cols {
			dst[c] += wk * float64(row[j])
		}
	}
}

func (v *view[T]) RowTo(dst []float64, i int) {
	row := v.k.Row(v.rows[i])
	for c, j := range v.cols {
		dst[c] = float64(row[j])
	}
}
