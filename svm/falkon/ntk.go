package falkon

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// NTK is the Kernel of an infinite-width NTK or NNGP (ntk.Spec) over
// training inputs X of type T (float32 inputs get a float32 Gram product
// and a float64 recursion, as in package ntk). Blocks are computed by
// ntk.Prepared against the gathered centres, with the exact diagonal for a
// point against itself.
type NTK[T linalg.Float] struct {
	x    linalg.Matrix[T]
	s    ntk.Spec
	diag []float64
}

// NewNTK returns the kernel s over the rows of x (referred to, not
// copied). Errors: those of ntk.Prepare.
func NewNTK[T linalg.Float](x linalg.Matrix[T], s ntk.Spec) (*NTK[T], error) {
	c, err := ntk.Prepare(x, s)
	if err != nil {
		return nil, err
	}
	return &NTK[T]{x: x, s: s, diag: c.Diag()}, nil
}

// Len implements Kernel.
func (k *NTK[T]) Len() int { return k.x.Rows }

// Diag implements Kernel.
func (k *NTK[T]) Diag() []float64 { return k.diag }

// Centre implements Kernel: it gathers the centres' inputs (M×d) and
// prepares ntk.Prepared on them.
func (k *NTK[T]) Centre(cols []int) (Blocks, error) {
	c := linalg.New[T](len(cols), k.x.Cols)
	pos := make([]int, k.x.Rows)
	for i := range pos {
		pos[i] = -1
	}
	for j, r := range cols {
		if r < 0 || r >= k.x.Rows || pos[r] >= 0 {
			return nil, fmt.Errorf("%w: centre %d out of range or repeated", ErrInput, r)
		}
		pos[r] = j
		copy(c.Row(j), k.x.Row(r))
	}
	cr, err := ntk.Prepare(c, k.s)
	if err != nil {
		return nil, err
	}
	return &NTKBlocks[T]{k: k, cross: cr, pos: pos}, nil
}

// NTKBlocks are the blocks of an NTK against fixed centres. They keep
// scratch space between calls and must not be used concurrently.
type NTKBlocks[T linalg.Float] struct {
	k      *NTK[T]
	cross  *ntk.Prepared[T]
	pos    []int
	z, out []T
	same   []int
}

// Train implements Blocks.
func (b *NTKBlocks[T]) Train(ctx context.Context, rows []int, dst linalg.Matrix[float64]) error {
	x := b.k.x
	contiguous := true
	for i, r := range rows {
		if r < 0 || r >= x.Rows {
			return fmt.Errorf("%w: training point %d out of range", ErrInput, r)
		}
		contiguous = contiguous && r == rows[0]+i
	}
	var z linalg.Matrix[T]
	if contiguous && len(rows) > 0 {
		z = x.Slice(rows[0], rows[0]+len(rows), 0, x.Cols)
	} else {
		b.z = grow(b.z, len(rows)*x.Cols)
		z = linalg.Matrix[T]{Rows: len(rows), Cols: x.Cols, Stride: x.Cols, Data: b.z}
		for i, r := range rows {
			copy(z.Row(i), x.Row(r))
		}
	}
	b.same = b.same[:0]
	for _, r := range rows {
		b.same = append(b.same, b.pos[r])
	}
	return b.into(ctx, z, b.same, dst)
}

// Test returns the block function of Result.Predict for the inputs z
// (their kernel against the centres), or an error if z's features do not
// match X's.
func (b *NTKBlocks[T]) Test(z linalg.Matrix[T]) (func(ctx context.Context, i0, i1 int, dst linalg.Matrix[float64]) error, error) {
	if z.Cols != b.k.x.Cols {
		return nil, fmt.Errorf("%w: test inputs have %d features, training inputs %d", ErrInput, z.Cols, b.k.x.Cols)
	}
	return func(ctx context.Context, i0, i1 int, dst linalg.Matrix[float64]) error {
		return b.into(ctx, z.Slice(i0, i1, 0, z.Cols), nil, dst)
	}, nil
}

// into writes K(z, C) into dst (float64) through ntk.Prepared.
func (b *NTKBlocks[T]) into(ctx context.Context, z linalg.Matrix[T], same []int, dst linalg.Matrix[float64]) error {
	out, direct := any(dst).(linalg.Matrix[T])
	if !direct {
		b.out = grow(b.out, dst.Rows*dst.Cols)
		out = linalg.Matrix[T]{Rows: dst.Rows, Cols: dst.Cols, Stride: dst.Cols, Data: b.out}
	}
	if err := b.cross.Into(ctx, z, same, ntk.Options{}, out); err != nil || direct {
		return err
	}
	for i := range dst.Rows {
		d := dst.Row(i)
		for j, v := range out.Row(i) {
			d[j] = float64(v)
		}
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
