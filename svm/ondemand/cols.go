package ondemand

import "fmt"

// RowCols writes row i at the columns cols, dst[k] = K[i, cols[k]], from
// the cache, or computes row i (alone) and caches it. It is RowTo for a
// solver that works on a subset of the points (a binary sub-problem of a
// multi-class machine, an index view of the one Matrix): the whole row is
// computed and kept, so that the sub-problems sharing a point share its
// row. It panics if i or a column is out of range or len(dst) is not
// len(cols) (programmer errors).
func (m *Matrix[T]) RowCols(dst []float64, i int, cols []int) {
	m.check(i)
	if len(dst) != len(cols) {
		panic(fmt.Sprintf("ondemand: RowCols: len(dst) %d for %d columns", len(dst), len(cols)))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rowLocked(i)
	for k, j := range cols {
		dst[k] = float64(r[j])
	}
}
