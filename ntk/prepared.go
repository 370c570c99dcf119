package ntk

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

// Prepared is the kernel of a Spec against a fixed set of points X,
// prepared once for many blocks of rows K(Z, X): X is checked and its per-layer norms are
// computed when it is made, so that a block costs its Z·Xᵀ product
// and its recursion only. The solvers that compute kernel rows on demand
// (an SMO's working-set rows, the blocks of a Nyström solver) call Into
// many times against the same X.
//
// A Prepared refers to x (not copied): x must not change while it is used. It
// is safe for concurrent use.
type Prepared[T linalg.Float] struct {
	x    linalg.Matrix[T]
	s    Spec
	pl   *plan
	cols *layerNorms
}

// Prepare prepares the kernel of s against the rows of x. It returns an
// error for a bad s, an x without features, or a non-finite x (naming the
// row).
func Prepare[T linalg.Float](x linalg.Matrix[T], s Spec) (*Prepared[T], error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if x.Cols == 0 {
		return nil, fmt.Errorf("%w: ntk: inputs have no features", linalg.ErrShape)
	}
	if err := checkFinite("X", x); err != nil {
		return nil, err
	}
	pl := newPlan(s, x.Cols)
	return &Prepared[T]{x: x, s: s, pl: pl, cols: pl.layerNorms(rowSquares(x))}, nil
}

// Points returns the number of points of X (the columns of every block).
func (c *Prepared[T]) Points() int { return c.x.Rows }

// Diag returns the diagonal K(x_i, x_i) of X in float64, as Diag computes
// it (a new slice).
func (c *Prepared[T]) Diag() []float64 {
	return append([]float64(nil), pick(c.s.Kind, c.cols.diagNTK, c.cols.diagNNGP)...)
}

// Into writes the kernel K(Z, X) into k, z.Rows × Points(). same, if not
// nil, has one entry per row of z: same[i] = j ≥ 0 says that row i of z is
// the point x_j itself, and the pair (z_i, x_j) gets the exact diagonal
// value (as Gram gives it, rather than the recursion's value at a
// correlation rounded near 1); −1 says nothing. Every row of the result
// depends only on its row of z (and same[i]), never on the other rows of
// the block or the thread count. Errors: shapes, a non-finite z, k
// sharing storage with the inputs, an entry of same out of range, and
// ctx's error if it is cancelled (k is then incomplete).
func (c *Prepared[T]) Into(ctx context.Context, z linalg.Matrix[T], same []int, o Options, k linalg.Matrix[T]) error {
	kn, kg := slots(c.s.Kind, k)
	return c.into(ctx, z, same, o, kn, kg)
}

// into is Into writing Θ(Z, X) into ntk and Σ(Z, X) into nngp; either may
// be the zero Matrix to skip it, not both.
func (c *Prepared[T]) into(ctx context.Context, z linalg.Matrix[T], same []int, o Options, ntk, nngp linalg.Matrix[T]) error {
	if z.Cols != c.x.Cols {
		return fmt.Errorf("%w: ntk: Z has %d features, X has %d", linalg.ErrShape, z.Cols, c.x.Cols)
	}
	if same != nil && len(same) != z.Rows {
		return fmt.Errorf("%w: ntk: %d entries of same for %d rows of Z", linalg.ErrShape, len(same), z.Rows)
	}
	n := c.x.Rows
	for i, j := range same {
		if j < -1 || j >= n {
			return fmt.Errorf("ntk: same[%d] = %d: want −1 or a point 0…%d", i, j, n-1)
		}
	}
	if err := checkFinite("Z", z); err != nil {
		return err
	}
	var outs []linalg.Matrix[T]
	for _, out := range []struct {
		name string
		m    linalg.Matrix[T]
	}{{"NTK", ntk}, {"NNGP", nngp}} {
		if out.m.Data == nil && out.m.Rows == 0 && out.m.Cols == 0 {
			continue
		}
		if out.m.Rows != z.Rows || out.m.Cols != n {
			return fmt.Errorf("%w: ntk: %s output is %d×%d, want %d×%d", linalg.ErrShape, out.name, out.m.Rows, out.m.Cols, z.Rows, n)
		}
		if overlaps(out.m.Data, c.x.Data) || overlaps(out.m.Data, z.Data) {
			return fmt.Errorf("ntk: the %s output shares storage with the inputs", out.name)
		}
		outs = append(outs, out.m)
	}
	if len(outs) == 0 {
		return errNoOutput
	}
	if len(outs) == 2 && overlaps(ntk.Data, nngp.Data) {
		return fmt.Errorf("ntk: the NTK and NNGP outputs share storage")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	rows := c.pl.layerNorms(rowSquares(z))
	g := outs[0]
	if err := linalg.CrossGram(z, c.x, g); err != nil {
		return fmt.Errorf("ntk: cross Gram product: %w", err)
	}
	const chunk = 8
	m := z.Rows
	return c.pl.chunks(ctx, o, (m+chunk-1)/chunk, m, func(ch int, sc *scratch) int {
		i0, i1 := ch*chunk, min(ch*chunk+chunk, m)
		for i := i0; i < i1; i++ {
			d := -1
			if same != nil {
				d = same[i]
			}
			for j0 := 0; j0 < n; j0 += crossCols {
				j1 := min(j0+crossCols, n)
				diag := -1
				if d >= j0 && d < j1 {
					diag = d - j0
				}
				processSeg(c.pl, g.Row(i)[j0:j1], seg(ntk, i, j0, j1), seg(nngp, i, j0, j1), rows, c.cols, i, j0, diag, sc)
			}
		}
		return i1 - i0
	})
}
