package classify

import (
	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
)

// view is the kernel matrix K[rows, cols] of a larger Gram, read through
// index sets and never copied: the binary sub-problems of a multi-class
// machine and the folds of cross-validation are views of one Gram. It is a
// svm.KernelMatrix; products accumulate in float64.
//
// Like libsvm's kernel cache, a view keeps the rows the solver asks for,
// gathered into float64 the first time, up to cacheBytes: SMO touches only
// the rows of its working sets, again and again, and cross-validation
// solves the same sub-problem at every C of the grid, so each of those rows
// is gathered once per sub-problem rather than once per iteration.
type view[T linalg.Float] struct {
	k          linalg.Matrix[T]
	rows, cols []int
	cache      [][]float64 // cache[i]: row i gathered, or nil
	room       int         // rows the cache may still take
	arena      *rowArena   // where cached rows come from, or nil: the heap
	diag       []float64   // the diagonal of a square view, once asked for
}

// cacheBytes bounds the rows one view keeps (per sub-problem being solved).
const cacheBytes = 16 << 20

func newView[T linalg.Float](k linalg.Matrix[T], rows, cols []int) *view[T] {
	return &view[T]{k: k, rows: rows, cols: cols, room: cacheBytes / (8 * max(len(cols), 1))}
}

func (v *view[T]) Dims() (int, int) { return len(v.rows), len(v.cols) }

func (v *view[T]) At(i, j int) float64 { return float64(v.k.At(v.rows[i], v.cols[j])) }

// DiagTo copies the diagonal, read once per view (svm.Diagonal): SMO asks
// for it at every constant of a path.
func (v *view[T]) DiagTo(dst []float64) {
	if v.diag == nil {
		v.diag = make([]float64, min(len(v.rows), len(v.cols)))
		for i := range v.diag {
			v.diag[i] = v.At(i, i)
		}
	}
	copy(dst, v.diag)
}

// MulVec skips the zero entries of x: SMO multiplies by dual solutions,
// whose non-support vectors are exactly 0. A square view of one index set
// (a sub-problem's K[idx, idx], symmetric) sums the cached rows of the
// non-zero entries instead, contiguous reads rather than a gather per entry.
func (v *view[T]) MulVec(dst, x []float64) {
	if v.symmetric() && v.cacheable(x) {
		clear(dst)
		for c, xc := range x {
			if xc != 0 {
				asm.AxpyUnfused64(xc, v.CachedRow(c), dst)
			}
		}
		return
	}
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

// AddRows reads the cached rows where it has them.
func (v *view[T]) AddRows(dst []float64, rows []int, w []float64) {
	for k, r := range rows {
		wk := w[k]
		if c := v.CachedRow(r); c != nil {
			asm.AxpyUnfused64(wk, c, dst)
			continue
		}
		row := v.k.Row(v.rows[r])
		for c, j := range v.cols {
			dst[c] += float64(wk * float64(row[j])) // unfused, as the cached rows' sums
		}
	}
}

func (v *view[T]) RowTo(dst []float64, i int) {
	row := v.k.Row(v.rows[i])
	dst = dst[:len(v.cols)]
	for c, j := range v.cols {
		dst[c] = float64(row[j])
	}
}

// CachedRow returns row i from the cache, gathering it first if the cache
// has room, or nil (svm.RowCache).
func (v *view[T]) CachedRow(i int) []float64 {
	if v.cache == nil {
		if v.room == 0 {
			return nil
		}
		v.cache = make([][]float64, len(v.rows))
	}
	if r := v.cache[i]; r != nil {
		return r
	}
	if v.room == 0 {
		return nil
	}
	v.room--
	var r []float64
	if v.arena != nil {
		r = v.arena.take(len(v.cols))
	} else {
		r = make([]float64, len(v.cols))
	}
	v.RowTo(r, i)
	v.cache[i] = r
	return r
}

// symmetric reports whether the view is K[idx, idx] of one index set.
func (v *view[T]) symmetric() bool {
	return len(v.rows) == len(v.cols) && (len(v.rows) == 0 || &v.rows[0] == &v.cols[0])
}

// cacheable reports whether every row at a non-zero entry of x is cached
// or fits in the room left.
func (v *view[T]) cacheable(x []float64) bool {
	need := 0
	for c, xc := range x {
		if xc != 0 && (v.cache == nil || v.cache[c] == nil) {
			need++
		}
	}
	return need <= v.room
}

// rowArena is storage for the rows that views cache, handed out in order
// and taken back all at once. A cross-validation walk over the C values
// keeps its views, and their rows, to its end; the next walk then reuses
// the same memory without the allocator clearing it again (RowTo writes
// every element of a row before anything reads it).
type rowArena struct {
	chunks  [][]float64
	ci, off int // the next row starts at chunks[ci][off]
}

// arenaChunk is the size of the arena's chunks in float64s (512 KiB).
const arenaChunk = 1 << 16

// take returns m float64s of the arena, with unspecified contents.
func (a *rowArena) take(m int) []float64 {
	if m > arenaChunk {
		return make([]float64, m)
	}
	for {
		if a.ci == len(a.chunks) {
			a.chunks = append(a.chunks, make([]float64, arenaChunk))
		}
		if c := a.chunks[a.ci]; a.off+m <= len(c) {
			r := c[a.off : a.off+m : a.off+m]
			a.off += m
			return r
		}
		a.ci, a.off = a.ci+1, 0
	}
}

// reset takes every row back: the rows handed out must no longer be read.
func (a *rowArena) reset() { a.ci, a.off = 0, 0 }
