package linalg

import (
	"context"
	"fmt"
)

// GramStrip is the number of rows of C that SyrkLowerContext,
// SyrkLowerRows and CrossGramContext compute per step: strips start at
// multiples of GramStrip, so a range of rows that starts on such a
// multiple is computed by the very products that compute it within the
// whole matrix. The strip height does not matter for speed (the strips'
// packing of the earlier rows is about 1/256 of their arithmetic;
// docs/performance.md, "Packing").
const GramStrip = 128

// SyrkLowerContext is SyrkLower computed in strips of GramStrip rows of C,
// checking ctx before each (see SyrkLowerRows), so a cancelled ctx stops
// it within one strip and returns ctx's error with C partly updated.
// Errors are those of SyrkLower.
func SyrkLowerContext[T Float](ctx context.Context, alpha T, a Matrix[T], beta T, c Matrix[T]) error {
	n := a.Rows
	if c.Rows != n || c.Cols != n {
		return fmt.Errorf("%w: SyrkLower: A is %d×%d, C is %d×%d", ErrShape, a.Rows, a.Cols, c.Rows, c.Cols)
	}
	return SyrkLowerRows(ctx, alpha, a, 0, n, beta, c)
}

// SyrkLowerRows computes rows [r0, r1) of the lower triangle of
// alpha·A·Aᵀ + beta·C: c is (r1−r0)×r1, its row i−r0 holding row i of the
// product in columns 0…i; the elements above the diagonal are neither read
// nor written. Only rows 0…r1−1 of A are read. r0 must be a multiple of
// GramStrip.
//
// The rows are computed in strips [s, min(s+GramStrip, r1)) for s a
// multiple of GramStrip: one Gemm for the strip's columns left of its
// diagonal block, one SyrkLower for that block. They are therefore, bit
// for bit, the same rows as SyrkLowerContext gives for all of A (on the
// same kernel set, for any thread count, Gemm and SyrkLower being
// independent of it), which lets a Gram matrix be computed in row bands
// by separate processes or machines. ctx is checked before each strip.
func SyrkLowerRows[T Float](ctx context.Context, alpha T, a Matrix[T], r0, r1 int, beta T, c Matrix[T]) error {
	if r0 < 0 || r0 > r1 || r1 > a.Rows || r0%GramStrip != 0 {
		return fmt.Errorf("%w: SyrkLowerRows: rows [%d, %d) of a %d-row A (the start must be a multiple of %d)",
			ErrShape, r0, r1, a.Rows, GramStrip)
	}
	if c.Rows != r1-r0 || c.Cols != r1 {
		return fmt.Errorf("%w: SyrkLowerRows: rows [%d, %d) need a %d×%d C, not %d×%d", ErrShape, r0, r1, r1-r0, r1, c.Rows, c.Cols)
	}
	for s0 := r0; s0 < r1; s0 += GramStrip {
		if err := ctx.Err(); err != nil {
			return err
		}
		s1 := min(s0+GramStrip, r1)
		as := a.Slice(s0, s1, 0, a.Cols)
		if s0 > 0 {
			if err := Gemm(NoTrans, Trans, alpha, as, a.Slice(0, s0, 0, a.Cols), beta, c.Slice(s0-r0, s1-r0, 0, s0)); err != nil {
				return err
			}
		}
		if err := SyrkLower(alpha, as, beta, c.Slice(s0-r0, s1-r0, s0, s1)); err != nil {
			return err
		}
	}
	return nil
}

// CrossGramContext is CrossGram computed in strips of GramStrip rows of A
// and C, checking ctx before each. The rows of C computed from rows
// [r0, r1) of A alone, for r0 a multiple of GramStrip, are bit for bit
// those computed from all of A.
func CrossGramContext[T Float](ctx context.Context, a, b, c Matrix[T]) error {
	if c.Rows != a.Rows {
		return fmt.Errorf("%w: CrossGram: A is %d×%d, B is %d×%d, C is %d×%d", ErrShape, a.Rows, a.Cols, b.Rows, b.Cols, c.Rows, c.Cols)
	}
	if a.Rows == 0 {
		return CrossGram(a, b, c)
	}
	for s0 := 0; s0 < a.Rows; s0 += GramStrip {
		if err := ctx.Err(); err != nil {
			return err
		}
		s1 := min(s0+GramStrip, a.Rows)
		if err := CrossGram(a.Slice(s0, s1, 0, a.Cols), b, c.Slice(s0, s1, 0, c.Cols)); err != nil {
			return err
		}
	}
	return nil
}
