package linalg

import (
	"context"
	"fmt"
	"math"
	"unsafe"
)

// cholBlock is the block size of Cholesky: the width of the panels and of
// the rank-k updates handed to SyrkLower. Diagonal blocks wider than
// cholLeaf are factored by the same blocked algorithm with block cholLeaf.
const (
	cholBlock = 256
	cholLeaf  = 64
)

// NotSPDError reports that Cholesky met a pivot that is not safely
// positive: the matrix is not symmetric positive definite, or is so only
// within rounding error (numerically singular).
type NotSPDError struct {
	Index     int     // 0-based row and column of the failing pivot
	Pivot     float64 // its value a_jj − Σ_{k<j} l_jk², as computed
	Threshold float64 // pivots ≤ Threshold fail: (j+1)·u·a_jj, u the unit roundoff
}

// Error names the failing pivot, its value and the threshold it missed.
func (e *NotSPDError) Error() string {
	return fmt.Sprintf("linalg: Cholesky: matrix is not positive definite: pivot %d is %g (must exceed %g)",
		e.Index, e.Pivot, e.Threshold)
}

// Cholesky factors the symmetric positive definite n×n matrix A as L·Lᵀ in
// place: the lower triangle of A, diagonal included, is read and replaced by
// L; the strict upper triangle is neither read nor written.
//
// The factorization is blocked and right-looking with blocks of 256: each
// diagonal block is factored the same way with blocks of 64 (whose own
// diagonal blocks an unblocked kernel factors), the panel below it is a
// triangular solve (recursive, its updates in Gemm) and the trailing matrix
// gets a lower-triangle rank-k update by SyrkLower, so nearly all of the
// n³/3 flops run in the multi-threaded GEMM.
//
// Pivot j (the value of l_jj² before its square root) must exceed
// (j+1)·u·a_jj, u being the unit roundoff of T (2⁻⁵³ for float64, 2⁻²⁴ for
// float32). That is the size of the rounding errors the pivot may carry, so
// a smaller pivot cannot be told from zero: the matrix is singular to
// working precision. Then, or for a non-positive or NaN pivot, Cholesky
// returns a *NotSPDError naming the pivot; A is partly overwritten. (The
// test is reliable for rank-deficient matrices whose leading blocks are well
// conditioned; otherwise, without pivoting, rounding may lift a zero pivot
// above the threshold, and the failure comes at a later pivot or not at
// all. Use the eigenvalues to judge numerical rank.)
// A NaN or infinite element in the lower triangle is an error found before
// any work is done; so is a shape mismatch (wrapping ErrShape).
func Cholesky[T Float](a Matrix[T]) error {
	return choleskyBlockedContext(context.Background(), a, cholBlock, cholLeaf)
}

// CholeskyContext is Cholesky that checks ctx between blocks of 256
// columns (each block's trailing update is at most n²·256 flops) and
// returns ctx's error, with A partly overwritten, once it is cancelled.
func CholeskyContext[T Float](ctx context.Context, a Matrix[T]) error {
	return choleskyBlockedContext(ctx, a, cholBlock, cholLeaf)
}

// choleskyBlocked is Cholesky with block size nb and leaf size leaf.
func choleskyBlocked[T Float](a Matrix[T], nb, leaf int) error {
	return choleskyBlockedContext(context.Background(), a, nb, leaf)
}

// choleskyBlockedContext is choleskyBlocked checking ctx between blocks.
func choleskyBlockedContext[T Float](ctx context.Context, a Matrix[T], nb, leaf int) error {
	return choleskyWith(ctx, a, nb, leaf, false)
}

// choleskyWith is choleskyBlockedContext; with scratch, the strict upper
// triangle of a holds the transposed panels (see SolveSPDScratchContext).
func choleskyWith[T Float](ctx context.Context, a Matrix[T], nb, leaf int, scratch bool) error {
	if err := checkMatrix("A", a); err != nil {
		return fmt.Errorf("linalg: Cholesky: %w", err)
	}
	if a.Rows != a.Cols {
		return fmt.Errorf("%w: Cholesky: A is %d×%d, not square", ErrShape, a.Rows, a.Cols)
	}
	n := a.Rows
	diag := make([]float64, n)
	for i := range n {
		for j, v := range a.Data[i*a.Stride : i*a.Stride+i+1] {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("linalg: Cholesky: A[%d, %d] is %g", i, j, f)
			}
		}
		diag[i] = float64(a.Data[i*a.Stride+i])
	}
	u := 0x1p-53 // unit roundoff of T
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		u = 0x1p-24
	}
	return cholFactor(ctx, a, 0, diag, u, nb, leaf, scratch)
}

// cholFactor factors the diagonal block a, which starts at row off of the
// whole matrix, with block size nb; diag is the original diagonal of the
// whole matrix and u the unit roundoff, for the pivot test. With scratch,
// the transposed panel Y of each block lives in the strict upper triangle
// of a, where A12 would be, and the solve reads a compact copy of L11 (so
// that no Gemm's output shares storage with its inputs); the arithmetic is
// the same, so is every bit of the factor.
func cholFactor[T Float](ctx context.Context, a Matrix[T], off int, diag []float64, u float64, nb, leaf int, scratch bool) error {
	n := a.Rows
	if n <= leaf {
		return cholUnblocked(a, off, diag, u)
	}
	if nb >= n {
		nb = leaf // a single block: split it at the leaf size
	}
	var ybuf, xbuf, lbuf []T
	if n > nb {
		if scratch {
			lbuf = make([]T, nb*nb)
		} else {
			ybuf = make([]T, nb*cholStride(n-nb))
		}
		xbuf = make([]T, (n-nb)*cholStride(nb))
	}
	for k := 0; k < n; k += nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		kb := min(nb, n-k)
		l11 := a.Slice(k, k+kb, k, k+kb)
		if err := cholFactor(ctx, l11, off+k, diag, u, leaf, leaf, scratch); err != nil {
			return err
		}
		m := n - k - kb
		if m == 0 {
			break
		}
		// Panel: L21 = A21·L11⁻ᵀ, solved as Y = L11⁻¹·A21ᵀ so that the
		// recursive solve splits Y by rows (disjoint storage for Gemm).
		a21 := a.Slice(k+kb, n, k, k+kb)
		ys, xs := cholStride(m), cholStride(kb)
		var y Matrix[T]
		l := l11
		if scratch {
			y = a.Slice(k, k+kb, k+kb, n)
			l = Matrix[T]{Rows: kb, Cols: kb, Stride: kb, Data: lbuf[:kb*kb]}
			for i := range kb {
				copy(l.Row(i)[:i+1], l11.Row(i)[:i+1])
			}
		} else {
			y = Matrix[T]{Rows: kb, Cols: m, Stride: ys, Data: ybuf[:minLen(kb, m, ys)]}
		}
		triTransposePar(y, a21)
		cholPanelSolve(l, y)
		x := Matrix[T]{Rows: m, Cols: kb, Stride: xs, Data: xbuf[:minLen(m, kb, xs)]}
		triTransposePar(x, y)
		cholCopyPar(a21, x)
		// Trailing update of the lower triangle: A22 -= L21·L21ᵀ, in strips
		// that check ctx when it can be cancelled (the update of a large
		// matrix takes seconds), each element computed as SyrkLower does.
		a22 := a.Slice(k+kb, n, k+kb, n)
		if ctx.Done() == nil {
			if err := SyrkLower(-1, x, 1, a22); err != nil {
				panic("linalg: Cholesky: " + err.Error()) // shapes and storage are ours
			}
		} else if err := SyrkLowerContext(ctx, -1, x, 1, a22); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			panic("linalg: Cholesky: " + err.Error())
		}
	}
	return nil
}

// cholPanelSolve overwrites y with L⁻¹·y for the lower triangular l, its
// columns (independent right-hand sides) split over Threads() goroutines so
// that the scalar leaves of the recursive solve run in parallel too.
func cholPanelSolve[T Float](l, y Matrix[T]) {
	t := max(1, min(Threads(), y.Cols/256))
	cuts := evenCuts(y.Cols, 8, t)
	parallel(t, func(w int) {
		if c0, c1 := cuts[w], cuts[w+1]; c0 < c1 {
			trsmLower(l, false, y.Slice(0, y.Rows, c0, c1))
		}
	})
}

// cholCopyPar copies src into dst (same shape), row bands on up to
// Threads() goroutines.
func cholCopyPar[T Float](dst, src Matrix[T]) {
	t := max(1, min(Threads(), src.Rows*src.Cols/(1<<16)))
	cuts := evenCuts(src.Rows, 8, t)
	parallel(t, func(w int) {
		for i := cuts[w]; i < cuts[w+1]; i++ {
			copy(dst.Row(i), src.Row(i))
		}
	})
}

// cholStride returns the row stride for a workspace of c columns: a
// multiple of 8 elements with an odd number of 8-element groups, so that
// successive rows fall in different cache sets (a power-of-two stride makes
// the transposes thrash).
func cholStride(c int) int {
	s := (c + 7) &^ 7
	if s/8%2 == 0 {
		s += 8
	}
	return s
}

// cholUnblocked factors the diagonal block a (order kb, starting at row k
// of the whole matrix) in place, row by row: l_ij = (a_ij − Σ_p l_ip·l_jp)
// / l_jj, with the sums accumulated in float64. diag holds the original
// diagonal of the whole matrix and u the unit roundoff, for the pivot test.
func cholUnblocked[T Float](a Matrix[T], k int, diag []float64, u float64) error {
	for i := range a.Rows {
		ri := a.Row(i)
		for j := range i {
			rj := a.Row(j)
			ri[j] = T((float64(ri[j]) - cholDot(ri[:j], rj[:j])) / float64(rj[j]))
		}
		d := float64(ri[i]) - cholDot(ri[:i], ri[:i])
		g := k + i
		thr := float64(g+1) * u * diag[g]
		if !(d > thr) || math.IsInf(d, 0) {
			return &NotSPDError{Index: g, Pivot: d, Threshold: thr}
		}
		ri[i] = T(math.Sqrt(d))
	}
	return nil
}

// cholDot returns Σ x_i·y_i accumulated in float64 (len(y) ≥ len(x)).
func cholDot[T Float](x, y []T) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i]) * float64(y[i])
		s1 += float64(x[i+1]) * float64(y[i+1])
		s2 += float64(x[i+2]) * float64(y[i+2])
		s3 += float64(x[i+3]) * float64(y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(y[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// CholeskySolve solves A·X = B given the Cholesky factor L of A (A = L·Lᵀ,
// as left in the lower triangle by Cholesky) and overwrites B (n×r) with X:
// a forward then a back substitution, blocked so that the work runs in
// Gemm. Errors as for SolveLower.
func CholeskySolve[T Float](l, b Matrix[T]) error {
	if err := checkTriangular("CholeskySolve", l, b); err != nil {
		return err
	}
	trsmLower(l, false, b)
	trsmUpper(l, true, b)
	return nil
}

// SolveSPD solves A·X = B for a symmetric positive definite A, overwriting
// the lower triangle of A with its Cholesky factor and B with X. It returns
// the errors of Cholesky (a *NotSPDError if A is not positive definite) and
// CholeskySolve; shapes and storage are checked before A is touched.
func SolveSPD[T Float](a, b Matrix[T]) error {
	return SolveSPDContext(context.Background(), a, b)
}

// SolveSPDContext is SolveSPD whose factorisation stops at ctx's
// cancellation (see CholeskyContext) and returns ctx's error.
func SolveSPDContext[T Float](ctx context.Context, a, b Matrix[T]) error {
	return solveSPD(ctx, a, b, false)
}

// SolveSPDScratchContext is SolveSPDContext for an A whose strict upper
// triangle the caller does not need: the factorisation keeps the
// transposed panel of each block of 256 columns there, where SolveSPD
// allocates a buffer of 256·n elements for it, and leaves that triangle
// overwritten. Its strict upper triangle (not read) may be anything, NaN
// included. The factor and X are bit for bit SolveSPDContext's; the
// errors are the same.
func SolveSPDScratchContext[T Float](ctx context.Context, a, b Matrix[T]) error {
	return solveSPD(ctx, a, b, true)
}

// solveSPD is SolveSPDContext, or SolveSPDScratchContext with scratch.
func solveSPD[T Float](ctx context.Context, a, b Matrix[T], scratch bool) error {
	if err := checkMatrix("B", b); err != nil {
		return fmt.Errorf("linalg: SolveSPD: %w", err)
	}
	if a.Rows != a.Cols || b.Rows != a.Rows {
		return fmt.Errorf("%w: SolveSPD: A is %d×%d and B is %d×%d", ErrShape, a.Rows, a.Cols, b.Rows, b.Cols)
	}
	if overlaps(a.Data, b.Data) {
		return fmt.Errorf("linalg: SolveSPD: B shares storage with A")
	}
	if err := choleskyWith(ctx, a, cholBlock, cholLeaf, scratch); err != nil {
		return err
	}
	return CholeskySolve(a, b)
}
