package linalg

import (
	"context"
	"fmt"
)

// syrkStrip is the number of rows of C that SyrkLowerContext computes
// between two checks of its context.
const syrkStrip = 1024

// SyrkLowerContext is SyrkLower computed in strips of 1024 rows of C,
// checking ctx before each: rows [r0, r1) of the lower triangle are
// alpha·A[r0:r1]·A[0:r0]ᵀ + beta·C by Gemm and the diagonal block by
// SyrkLower, so a cancelled ctx stops it within one strip (at most
// 2·1024·n·k flops) and returns ctx's error with C partly updated.
// Errors are those of SyrkLower.
func SyrkLowerContext[T Float](ctx context.Context, alpha T, a Matrix[T], beta T, c Matrix[T]) error {
	n := a.Rows
	if c.Rows != n || c.Cols != n {
		return fmt.Errorf("%w: SyrkLower: A is %d×%d, C is %d×%d", ErrShape, a.Rows, a.Cols, c.Rows, c.Cols)
	}
	if n <= syrkStrip {
		if err := ctx.Err(); err != nil {
			return err
		}
		return SyrkLower(alpha, a, beta, c)
	}
	for r0 := 0; r0 < n; r0 += syrkStrip {
		if err := ctx.Err(); err != nil {
			return err
		}
		r1 := min(r0+syrkStrip, n)
		ar := a.Slice(r0, r1, 0, a.Cols)
		if r0 > 0 {
			if err := Gemm(NoTrans, Trans, alpha, ar, a.Slice(0, r0, 0, a.Cols), beta, c.Slice(r0, r1, 0, r0)); err != nil {
				return err
			}
		}
		if err := SyrkLower(alpha, ar, beta, c.Slice(r0, r1, r0, r1)); err != nil {
			return err
		}
	}
	return nil
}
