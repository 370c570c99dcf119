package ntk

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

// GramRowsInto writes rows [r0, r1) of the lower triangle of Θ(X, X) into
// ntk and of Σ(X, X) into nngp (either may be the zero Matrix to skip it):
// each output is (r1−r0)×r1, its row i−r0 holding row i of the Gram in
// columns 0…i; the elements above the diagonal are left as they were. Only
// rows 0…r1−1 of x are read. r0 must be a multiple of linalg.GramStrip.
//
// The values are, bit for bit, those of the same rows of GramInto on all
// of x (on the same kernel set, for any thread count): the inner products
// are the same strips of linalg.SyrkLowerRows and the recursion is
// elementwise, on the same column segments. A Gram too large for one
// machine is computed as bands by separate processes and assembled by
// mirroring their lower triangles. Errors as GramInto.
func GramRowsInto[T linalg.Float](ctx context.Context, x linalg.Matrix[T], p Params, o Options, r0, r1 int, ntk, nngp linalg.Matrix[T]) error {
	if r0 < 0 || r0 > r1 || r1 > x.Rows || r0%linalg.GramStrip != 0 {
		return fmt.Errorf("%w: ntk: Gram rows [%d, %d) of %d (the start must be a multiple of %d)",
			linalg.ErrShape, r0, r1, x.Rows, linalg.GramStrip)
	}
	return gramBand(ctx, x, p, o, r0, r1, ntk, nngp, false)
}

// gramBand is GramRowsInto without the check of the range; with mirror
// (only for the whole Gram, r0 = 0 and r1 = n) it also copies the lower
// triangle onto the upper one.
func gramBand[T linalg.Float](ctx context.Context, x linalg.Matrix[T], p Params, o Options, r0, r1 int, ntk, nngp linalg.Matrix[T], mirror bool) error {
	x = x.Slice(0, r1, 0, x.Cols)
	outs, err := checkOutputs(p, x, r1-r0, r1, ntk, nngp)
	if err != nil {
		return err
	}
	pl := newPlan(p, x.Cols)
	cols := pl.layerNorms(rowSquares(x))
	// X·Xᵀ, lower triangle, into the first output.
	g := outs[0]
	if err := linalg.SyrkLowerRows(ctx, 1, x, r0, r1, 0, g); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("ntk: Gram product: %w", err)
	}
	// Row blocks of gramRows rows, the largest (bottom) first; each is done
	// in tiles of gramRows×gramCols pairs, mirrored onto the upper triangle
	// (with mirror) while they are in cache. Column segments start at
	// multiples of gramCols whatever the rows, so a band's values are those
	// of the whole Gram.
	nb := (r1 - r0 + gramRows - 1) / gramRows
	return pl.chunks(ctx, o, nb, r1-r0, func(c int, sc *scratch) int {
		bi := nb - 1 - c
		i0, i1 := r0+bi*gramRows, min(r0+bi*gramRows+gramRows, r1)
		for j0 := 0; j0 < i1; j0 += gramCols {
			j1 := min(j0+gramCols, i1)
			for i := max(i0, j0); i < i1; i++ {
				je := min(j1, i+1)
				diag := -1
				if i < je {
					diag = i - j0
				}
				processSeg(pl, g.Row(i - r0)[j0:je], seg(ntk, i-r0, j0, je), seg(nngp, i-r0, j0, je), cols, cols, i, j0, diag, sc)
			}
			if mirror {
				for _, m := range outs {
					linalg.MirrorLower(m, i0, i1, j0, j1)
				}
			}
		}
		return i1 - i0
	})
}
