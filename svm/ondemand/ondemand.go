// Package ondemand is a training Gram that is never held whole: an
// svm.KernelMatrix whose rows are computed when a solver asks for them, in
// blocks of rows through the GEMM, and kept in a least-recently-used cache
// bounded in bytes. It is how the exact solvers (svm.SolveDual's SMO, as
// libsvm does it) run on more points than one n×n Gram fits in memory:
// the memory is the cache plus one block of rows, O(n) for a fixed cache,
// and a kernel row costs about n·d multiply-adds of its product and n
// evaluations of the arc-cosine recursion, cheap to recompute.
//
// # Use
//
// A Matrix is made from a RowFunc, which writes the kernel rows K[rows, :]
// of the n training points, and the diagonal K_ii (read at every step of an
// SMO, so it is kept). NewNTK builds both for the kernel of an ntk.Spec
// (an NTK or NNGP) over training inputs X (ntk.Prepared: X's norms
// prepared once, the diagonal pairs exact, as in the dense Gram):
//
//	k, err := ondemand.NewNTK[float32](ctx, x, ntk.DefaultSpec(1),
//		ondemand.Config{CacheBytes: 1 << 30})
//	res, err := svm.SolveDual(ctx, k, y, svm.DualConfig{Loss: svm.Hinge, Lambda: 0.064, Bias: true})
//
// The storage type (float32 above, half the memory per cached row) may
// differ from the inputs' type: rows are computed in the inputs' type (the
// recursion always in float64) and rounded once when stored. Every product
// the Matrix computes (MulVec, AddRows) accumulates in float64.
//
// # How the solver's requests are served
//
//   - RowTo (the SMO's two working-set rows per iteration) and At: from the
//     cache, or computed alone and cached, evicting the least recently used
//     row when the cache is full (at least two rows always fit).
//   - Prefetch (svm.RowPrefetcher): svm.SolveDual, before it asks for a
//     row that is not cached, asks for it together with the rows of the
//     variables that violate the optimality conditions most, so that
//     rows are computed a block at a time (a row alone costs as much as
//     dozens in one block: the GEMM packs all of X for either).
//   - AddRows (g = Kα over the support vectors): cached rows are used where
//     they are, the missing ones computed Config.BlockRows at a time in one
//     call of the RowFunc and then cached, since the support vectors' rows
//     are the ones the solver asks for next.
//   - MulVec (g = Kα when most points are support vectors): streamed, one
//     block of rows at a time, cached rows read and the others computed
//     but not cached (a full pass would only flush the cache).
//
// Results do not depend on the thread count: every row is computed the same
// way whatever block it is in (ntk.Prepared.Into), and each output element is
// summed in one fixed order. They may depend on the cache size in the last
// bit only where K(i, j) and K(j, i), computed from different rows, differ
// in rounding (At reads whichever row is cached).
//
// A Matrix is safe for concurrent use (one solver at a time is served; the
// RowFunc itself runs on linalg.Threads() goroutines).
package ondemand

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// RowFunc writes the kernel rows K[rows[r], :] of the training Gram into
// row r of dst (len(rows) × n). It is called with at most Config.BlockRows
// rows, never concurrently by one Matrix, and must return ctx's error once
// ctx is cancelled. Each row's values must depend only on the row index,
// not on the other rows of the call, for results that do not depend on the
// cache and block sizes.
type RowFunc[T linalg.Float] func(ctx context.Context, rows []int, dst linalg.Matrix[T]) error

// Config sizes a Matrix. The zero value caches DefaultCacheBytes of rows
// and computes blocks of DefaultBlockRows rows.
type Config struct {
	// CacheBytes bounds the row cache (rows of n elements of the storage
	// type). 0 means DefaultCacheBytes; it must leave room for two rows.
	CacheBytes int64
	// BlockRows is the number of rows computed in one call of the RowFunc
	// by MulVec and AddRows (the scratch block is BlockRows·n elements).
	// 0 means DefaultBlockRows.
	BlockRows int
	// PrefetchRows is the number of rows a solver asks for at once when
	// a row it needs is missing (svm.RowPrefetcher): that row and the
	// likeliest next ones, computed together. 0 means
	// DefaultPrefetchRows; it is capped at BlockRows and at half the
	// cache. 1 turns prefetching off.
	PrefetchRows int
}

// Defaults of Config.
const (
	DefaultCacheBytes = 256 << 20
	DefaultBlockRows  = 256
	// DefaultPrefetchRows: kernel rows computed in blocks cost a small
	// fraction of rows computed one at a time, because the GEMM packs all
	// of X for either (docs/performance.md, "Kernel rows on demand").
	DefaultPrefetchRows = 64
)

// Stats counts what a Matrix did since it was made.
type Stats struct {
	Hits, Misses int64 // row requests (RowTo, At, AddRows) served by, or missing from, the cache
	RowsComputed int64 // rows computed by the RowFunc, streamed ones included
	Evictions    int64 // cached rows dropped for newer ones
	CachedRows   int   // rows in the cache now
	CapacityRows int   // rows the cache holds at most
}

// Matrix is an n×n training Gram computed on demand; it implements
// svm.KernelMatrix. Make one with New or NewNTK.
type Matrix[T linalg.Float] struct {
	ctx  context.Context
	n    int
	diag []float64
	f    RowFunc[T]
	blk  int
	pre  int

	mu    sync.Mutex
	err   error
	stats Stats
	// The cache: capRows slots of n elements in slab, slotOf[i] the slot
	// holding row i (−1: none), pointOf the reverse; a doubly linked list
	// over the used slots, head the most recently used.
	capRows          int
	slab             []T
	slotOf, pointOf  []int32
	prev, next       []int32
	head, tail, used int32
	scratch          []T // BlockRows·n, for computed rows
	one              []int
}

// New returns the n×n Gram whose rows f computes and whose diagonal is
// diag (len n, copied). ctx is passed to every call of f: cancelling it
// makes the rows computed from then on NaN and Err return its error (a
// solver that checks the same ctx then stops). Errors: n < 1, a diagonal
// of the wrong length or with NaN, infinite or negative elements, and a
// Config that does not fit two rows in the cache or asks for a negative
// block.
func New[T linalg.Float](ctx context.Context, n int, diag []float64, f RowFunc[T], cfg Config) (*Matrix[T], error) {
	if n < 1 {
		return nil, fmt.Errorf("ondemand: %d points; want at least one", n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("ondemand: %d points; at most %d", n, math.MaxInt32)
	}
	if len(diag) != n {
		return nil, fmt.Errorf("ondemand: diagonal of %d elements for %d points", len(diag), n)
	}
	for i, v := range diag {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("ondemand: diagonal element %d is %v; a kernel's diagonal is finite and ≥ 0", i, v)
		}
	}
	if f == nil {
		return nil, errors.New("ondemand: no row function")
	}
	cache, blk := cfg.CacheBytes, cfg.BlockRows
	if cache == 0 {
		cache = DefaultCacheBytes
	}
	if blk == 0 {
		blk = DefaultBlockRows
	}
	if blk < 0 {
		return nil, fmt.Errorf("ondemand: block of %d rows", blk)
	}
	pre := cfg.PrefetchRows
	if pre == 0 {
		pre = DefaultPrefetchRows
	}
	if pre < 0 {
		return nil, fmt.Errorf("ondemand: prefetch of %d rows", pre)
	}
	rowBytes := RowBytes[T](n)
	if cache < 2*rowBytes {
		return nil, fmt.Errorf("ondemand: a cache of %d bytes does not hold the 2 rows of %d bytes an SMO step needs", cache, rowBytes)
	}
	capRows := int(min(cache/rowBytes, int64(n)))
	blk = min(blk, n)
	m := &Matrix[T]{
		ctx: ctx, n: n, diag: append([]float64(nil), diag...), f: f, blk: blk,
		pre:     max(1, min(pre, blk, capRows/2)),
		capRows: capRows,
		slab:    make([]T, capRows*n), // pages become resident as rows are cached
		slotOf:  make([]int32, n), pointOf: make([]int32, capRows),
		prev: make([]int32, capRows), next: make([]int32, capRows),
		head: -1, tail: -1,
		one: make([]int, 1),
	}
	for i := range m.slotOf {
		m.slotOf[i] = -1
	}
	m.stats.CapacityRows = capRows
	return m, nil
}

// RowBytes returns the bytes of one row of an n-point Gram of element
// type T: the unit of Config.CacheBytes.
func RowBytes[T linalg.Float](n int) int64 {
	var z T
	return int64(n) * int64(unsafe.Sizeof(z))
}

// Bytes returns the memory a Matrix of n points with cfg holds besides
// its RowFunc's own: the full cache, the scratch block and the
// bookkeeping.
func Bytes[T linalg.Float](n int, cfg Config) int64 {
	cache, blk := cfg.CacheBytes, cfg.BlockRows
	if cache == 0 {
		cache = DefaultCacheBytes
	}
	if blk <= 0 {
		blk = DefaultBlockRows
	}
	rb := RowBytes[T](n)
	capRows := min(cache/rb, int64(n))
	return capRows*rb + int64(min(blk, n))*rb + int64(n)*12 + capRows*12
}

// Dims implements svm.KernelMatrix.
func (m *Matrix[T]) Dims() (int, int) { return m.n, m.n }

// Diag returns the diagonal (not a copy: do not modify it).
func (m *Matrix[T]) Diag() []float64 { return m.diag }

// Err returns the first error of the RowFunc (ctx's error once it is
// cancelled), or nil. Rows that failed were set to NaN and not cached.
func (m *Matrix[T]) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Stats returns the counters.
func (m *Matrix[T]) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.stats
	s.CachedRows = int(m.used)
	return s
}

// At implements svm.KernelMatrix: the diagonal from Diag, else element j
// of row i or i of row j, whichever is cached, else row i computed (and
// cached).
func (m *Matrix[T]) At(i, j int) float64 {
	m.check(i)
	m.check(j)
	if i == j {
		return m.diag[i]
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.slotOf[i]; s >= 0 {
		m.stats.Hits++
		m.touch(s)
		return float64(m.slotRow(s)[j])
	}
	if s := m.slotOf[j]; s >= 0 {
		m.stats.Hits++
		m.touch(s)
		return float64(m.slotRow(s)[i])
	}
	return float64(m.rowLocked(i)[j])
}

// RowTo implements svm.KernelMatrix: row i from the cache, or computed
// alone and cached. It panics if i is out of range or len(dst) is not n
// (programmer errors).
func (m *Matrix[T]) RowTo(dst []float64, i int) {
	m.check(i)
	if len(dst) != m.n {
		panic(fmt.Sprintf("ondemand: RowTo: len(dst) %d for %d points", len(dst), m.n))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rowLocked(i)
	if d, ok := any(r).([]float64); ok {
		copy(dst, d)
		return
	}
	for j, v := range r {
		dst[j] = float64(v)
	}
}

// rowLocked returns row i (a cache slot, or the scratch block's first row
// holding NaN after an error); m.mu is held.
func (m *Matrix[T]) rowLocked(i int) []T {
	if s := m.slotOf[i]; s >= 0 {
		m.stats.Hits++
		m.touch(s)
		return m.slotRow(s)
	}
	m.stats.Misses++
	m.one[0] = i
	blk := m.compute(m.one)
	if blk.Data == nil {
		return m.scratchRow(0)
	}
	s := m.insert(i)
	copy(m.slotRow(s), blk.Row(0))
	return m.slotRow(s)
}

// Cached implements svm.RowPrefetcher: whether row i is in the cache.
func (m *Matrix[T]) Cached(i int) bool {
	m.check(i)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.slotOf[i] >= 0
}

// PrefetchRows implements svm.RowPrefetcher: Config.PrefetchRows, capped
// at BlockRows and half the cache.
func (m *Matrix[T]) PrefetchRows() int { return m.pre }

// Prefetch implements svm.RowPrefetcher: the rows not cached are computed
// together, BlockRows at a time, and cached (the cached ones become the
// most recently used, in the order given, before them). It panics if a row
// is out of range (a programmer error).
func (m *Matrix[T]) Prefetch(rows []int) {
	for _, r := range rows {
		m.check(r)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var missing []int
	for _, r := range rows {
		if s := m.slotOf[r]; s >= 0 {
			m.touch(s)
		} else if !slices.Contains(missing, r) {
			missing = append(missing, r)
		}
	}
	for b0 := 0; b0 < len(missing); b0 += m.blk {
		part := missing[b0:min(b0+m.blk, len(missing))]
		blk := m.compute(part)
		if blk.Data == nil {
			return
		}
		for k, r := range part {
			copy(m.slotRow(m.insert(r)), blk.Row(k))
		}
	}
}

// AddRows implements svm.KernelMatrix: dst += Σₖ w[k]·K[rows[k], :], one
// row at a time in the order given (linalg.AxpyWide, columns split over
// the threads), so that the sum does not depend on the thread count or on
// which rows were cached. Missing rows are computed BlockRows at a time
// and cached. It panics if the lengths do not match or a row is out of
// range (programmer errors).
func (m *Matrix[T]) AddRows(dst []float64, rows []int, w []float64) {
	if len(dst) != m.n || len(rows) != len(w) {
		panic(fmt.Sprintf("ondemand: AddRows: %d points, len(dst) %d, %d rows, %d weights", m.n, len(dst), len(rows), len(w)))
	}
	for _, r := range rows {
		m.check(r)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	src := make([][]T, 0, m.blk)
	var missing []int
	for b0 := 0; b0 < len(rows); {
		// A chunk of rows with at most blk missing ones and at most blk
		// rows in all; the cached rows of the chunk are pinned by not
		// inserting anything before the chunk is added.
		src, missing = src[:0], missing[:0]
		b1 := b0
		for b1 < len(rows) && len(src) < m.blk {
			r := rows[b1]
			if s := m.slotOf[r]; s >= 0 {
				m.stats.Hits++
				m.touch(s)
				src = append(src, m.slotRow(s))
			} else {
				m.stats.Misses++
				missing = append(missing, r)
				src = append(src, nil)
			}
			b1++
		}
		var blk linalg.Matrix[T]
		if len(missing) > 0 {
			blk = m.compute(missing)
			k := 0
			for t := range src {
				if src[t] == nil {
					src[t] = m.scratchRow(k)
					k++
				}
			}
		}
		ws := w[b0:b1]
		add := func(j0, j1 int) {
			out := dst[j0:j1]
			for k, r := range src {
				linalg.AxpyWide(ws[k], r[j0:j1], out)
			}
		}
		if len(src)*m.n < 1<<16 {
			add(0, m.n)
		} else {
			linalg.ParallelFor(m.n, 512, add)
		}
		if blk.Data != nil {
			for k, r := range missing {
				if m.slotOf[r] < 0 { // a row may appear twice in rows
					copy(m.slotRow(m.insert(r)), blk.Row(k))
				}
			}
		}
		b0 = b1
	}
}

// MulVec implements svm.KernelMatrix: dst = K·x, streamed BlockRows rows
// at a time; cached rows are read, the others computed and not cached.
// Each dst[i] is one float64 dot product of row i with x, in column
// order. It panics if the lengths do not match or dst overlaps x
// (programmer errors).
func (m *Matrix[T]) MulVec(dst, x []float64) {
	if len(dst) != m.n || len(x) != m.n {
		panic(fmt.Sprintf("ondemand: MulVec: %d points, len(dst) %d, len(x) %d", m.n, len(dst), len(x)))
	}
	if &dst[0] == &x[0] {
		panic("ondemand: MulVec: dst is x")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	src := make([][]T, m.blk)
	var missing []int
	for i0 := 0; i0 < m.n; i0 += m.blk {
		i1 := min(i0+m.blk, m.n)
		missing = missing[:0]
		for i := i0; i < i1; i++ {
			if s := m.slotOf[i]; s >= 0 {
				src[i-i0] = m.slotRow(s)
			} else {
				src[i-i0] = nil
				missing = append(missing, i)
			}
		}
		if len(missing) > 0 {
			m.compute(missing)
			k := 0
			for t := range i1 - i0 {
				if src[t] == nil {
					src[t] = m.scratchRow(k)
					k++
				}
			}
		}
		out := dst[i0:i1]
		linalg.ParallelFor(i1-i0, 8, func(a, b int) {
			for t := a; t < b; t++ {
				out[t] = dotWide(src[t], x)
			}
		})
	}
}

// dotWide is Σ r[j]·x[j] in float64, four partial sums.
func dotWide[T linalg.Float](r []T, x []float64) float64 {
	x = x[:len(r)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(r); j += 4 {
		s0 = math.FMA(float64(r[j]), x[j], s0)
		s1 = math.FMA(float64(r[j+1]), x[j+1], s1)
		s2 = math.FMA(float64(r[j+2]), x[j+2], s2)
		s3 = math.FMA(float64(r[j+3]), x[j+3], s3)
	}
	for ; j < len(r); j++ {
		s0 = math.FMA(float64(r[j]), x[j], s0)
	}
	return (s0 + s1) + (s2 + s3)
}

// compute runs the RowFunc on rows (at most blk) into the scratch block
// and returns the block; after an error the block is NaN, the error is
// kept and the zero Matrix is returned.
func (m *Matrix[T]) compute(rows []int) linalg.Matrix[T] {
	if m.scratch == nil {
		m.scratch = make([]T, m.blk*m.n)
	}
	blk := linalg.Matrix[T]{Rows: len(rows), Cols: m.n, Stride: m.n, Data: m.scratch[:len(rows)*m.n]}
	err := m.err
	if err == nil {
		err = m.ctx.Err()
	}
	if err == nil {
		err = m.f(m.ctx, rows, blk)
		m.stats.RowsComputed += int64(len(rows))
	}
	if err != nil {
		if m.err == nil {
			m.err = err
		}
		nan := T(math.NaN())
		for i := range blk.Data {
			blk.Data[i] = nan
		}
		return linalg.Matrix[T]{}
	}
	return blk
}

func (m *Matrix[T]) scratchRow(k int) []T { return m.scratch[k*m.n : (k+1)*m.n : (k+1)*m.n] }

func (m *Matrix[T]) slotRow(s int32) []T {
	o := int(s) * m.n
	return m.slab[o : o+m.n : o+m.n]
}

func (m *Matrix[T]) check(i int) {
	if uint(i) >= uint(m.n) {
		panic(fmt.Sprintf("ondemand: row %d out of range for %d points", i, m.n))
	}
}

// touch moves slot s to the head of the LRU list.
func (m *Matrix[T]) touch(s int32) {
	if m.head == s {
		return
	}
	m.unlink(s)
	m.pushFront(s)
}

func (m *Matrix[T]) unlink(s int32) {
	p, n := m.prev[s], m.next[s]
	if p >= 0 {
		m.next[p] = n
	} else {
		m.head = n
	}
	if n >= 0 {
		m.prev[n] = p
	} else {
		m.tail = p
	}
}

func (m *Matrix[T]) pushFront(s int32) {
	m.prev[s], m.next[s] = -1, m.head
	if m.head >= 0 {
		m.prev[m.head] = s
	}
	m.head = s
	if m.tail < 0 {
		m.tail = s
	}
}

// insert gives point i a slot (a free one, or the least recently used
// one's) at the head of the list and returns it; the caller fills it.
func (m *Matrix[T]) insert(i int) int32 {
	var s int32
	if int(m.used) < m.capRows {
		s = m.used
		m.used++
	} else {
		s = m.tail
		m.unlink(s)
		m.slotOf[m.pointOf[s]] = -1
		m.stats.Evictions++
	}
	m.slotOf[i], m.pointOf[s] = s, int32(i)
	m.pushFront(s)
	return s
}

// NewNTK returns the on-demand Gram of the kernel s over the rows of x,
// stored as S (float32 halves the cache's
// bytes per row; rows are computed in x's type, the recursion in float64,
// and rounded once). The diagonal and the rows' diagonal elements are the
// exact ones of the dense Gram (ntk.Prepared). x is referred to, not copied.
// Errors: those of ntk.Prepare and New.
func NewNTK[S, T linalg.Float](ctx context.Context, x linalg.Matrix[T], s ntk.Spec, cfg Config) (*Matrix[S], error) {
	f, diag, err := NTKRows[S](x, s)
	if err != nil {
		return nil, err
	}
	return New(ctx, x.Rows, diag, f, cfg)
}

// NTKRows returns the RowFunc of the Gram of s over the rows of x, stored
// as S, and its diagonal (see NewNTK). The function gathers the
// requested rows of x and calls ntk.Prepared.Into; it keeps scratch space
// between calls and must not be called concurrently.
func NTKRows[S, T linalg.Float](x linalg.Matrix[T], s ntk.Spec) (RowFunc[S], []float64, error) {
	c, err := ntk.Prepare(x, s)
	if err != nil {
		return nil, nil, err
	}
	diag := c.Diag()
	var z, tmp []T
	f := func(ctx context.Context, rows []int, dst linalg.Matrix[S]) error {
		if dst.Rows != len(rows) || dst.Cols != x.Rows {
			return fmt.Errorf("%w: ondemand: %d rows into a %d×%d block for %d points", linalg.ErrShape, len(rows), dst.Rows, dst.Cols, x.Rows)
		}
		if cap(z) < len(rows)*x.Cols {
			z = make([]T, len(rows)*x.Cols)
		}
		zm := linalg.Matrix[T]{Rows: len(rows), Cols: x.Cols, Stride: x.Cols, Data: z[:len(rows)*x.Cols]}
		for k, r := range rows {
			copy(zm.Row(k), x.Row(r))
		}
		out, direct := any(dst).(linalg.Matrix[T])
		if !direct {
			if cap(tmp) < len(rows)*x.Rows {
				tmp = make([]T, len(rows)*x.Rows)
			}
			out = linalg.Matrix[T]{Rows: len(rows), Cols: x.Rows, Stride: x.Rows, Data: tmp[:len(rows)*x.Rows]}
		}
		if err := c.Into(ctx, zm, rows, ntk.Options{}, out); err != nil || direct {
			return err
		}
		for k := range rows {
			d := dst.Row(k)
			for j, v := range out.Row(k) {
				d[j] = S(v)
			}
		}
		return nil
	}
	return f, diag, nil
}
