package ntk

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

// gramBand writes rows [r0, r1) of the lower triangle of Θ(X, X) of s's
// depth, σ's and fixed layers into ntk and of Σ(X, X) into nngp (either
// may be the zero Matrix to skip it, not both): each output is
// (r1−r0)×r1, its row i−r0 holding row i of the Gram in columns 0…i; the
// elements above the diagonal are left as they were, except with mirror
// (only for the whole Gram, r0 = 0 and r1 = n), which copies the lower
// triangle onto the upper one. Only rows 0…r1−1 of x are read; r0 must be
// a multiple of linalg.GramStrip (the callers check the range).
//
// The values are, bit for bit, those of the same rows of the whole Gram
// (for any thread count, on the same kernel set): the inner products are
// the same strips of linalg.SyrkLowerRows and the recursion is
// elementwise, on the same column segments. A Gram too large for one
// machine is computed as bands by separate processes and assembled by
// mirroring their lower triangles. It returns an error for bad shapes or
// a non-finite x (naming the row), and ctx's error if it is cancelled
// (the outputs are then incomplete).
func gramBand[T linalg.Float](ctx context.Context, x linalg.Matrix[T], s Spec, o Options, r0, r1 int, ntk, nngp linalg.Matrix[T], mirror bool) error {
	x = x.Slice(0, r1, 0, x.Cols)
	outs, err := checkOutputs(s, x, r1-r0, r1, ntk, nngp)
	if err != nil {
		return err
	}
	pl := newPlan(s, x.Cols)
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
