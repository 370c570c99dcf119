package ntk

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

// Blocks computes one kernel matrix of s, K(Z, X) of size z.Rows × x.Rows
// when z is given, else the Gram K(X, X), and hands it to emit in blocks of
// consecutive rows, in order: emit(i0, k) receives rows i0, i0+1, … of the
// kernel. It is how a kernel larger than memory reaches a file (a caller
// writes each block, as "ntksvm kernel" does to a .npy file) or any other
// consumer of rows.
//
// memCap bounds, in bytes, the kernel values held in memory at once (the
// inputs are not counted). When the whole matrix fits it is one block
// computed in memory (the Gram then uses its symmetry); otherwise each
// block is a cross kernel of its rows against X, which for a Gram costs
// twice the flops but needs only rows×n values. The values equal the
// in-memory ones, bit for bit for the cross kernel when a block holds at
// least linalg.GramStrip rows, to rounding for the Gram (the blocks'
// products are general GEMMs). memCap ≤ 0 means no cap. The
// parameters and inputs are checked before the first block is computed.
// k is only valid until emit returns (its storage is reused); an error
// from emit stops the computation and is returned. o.Progress, if set,
// reports rows computed.
func Blocks[T linalg.Float](ctx context.Context, s Spec, z *linalg.Matrix[T], x linalg.Matrix[T], o Options, memCap int64,
	emit func(i0 int, k linalg.Matrix[T]) error) error {
	if err := s.Validate(); err != nil {
		return err
	}
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	n := x.Rows
	var zero T
	size := int64(sizeOf(zero))
	full := int64(rows) * int64(n) * size
	if memCap <= 0 || full <= memCap {
		k := linalg.New[T](rows, n)
		var err error
		if z == nil {
			err = FillGram(ctx, s, x, o, k)
		} else {
			err = FillCross(ctx, s, *z, x, o, k)
		}
		if err != nil {
			return err
		}
		return emit(0, k)
	}
	block := int(memCap / (int64(n) * size))
	if block < 1 {
		return fmt.Errorf("ntk: memory cap %d B is below one row of the kernel (%d B)", memCap, int64(n)*size)
	}
	if z != nil && block >= linalg.GramStrip {
		// Blocks on the strip grid: bit for bit the in-memory cross kernel
		// (see FillCross).
		block -= block % linalg.GramStrip
	}
	if err := checkFinite("X", x); err != nil {
		return err
	}
	buf := linalg.New[T](min(block, rows), n)
	inner := o
	inner.Progress = nil
	for i0 := 0; i0 < rows; i0 += block {
		i1 := min(i0+block, rows)
		k := buf.Slice(0, i1-i0, 0, n)
		var err error
		if z == nil {
			err = fillRows(ctx, s, x.Slice(i0, i1, 0, x.Cols), x, k, inner, i0)
		} else {
			err = fillRows(ctx, s, z.Slice(i0, i1, 0, z.Cols), x, k, inner, -1)
		}
		if err != nil {
			return err
		}
		if err := emit(i0, k); err != nil {
			return err
		}
		if o.Progress != nil {
			o.Progress(i1, rows)
		}
	}
	return nil
}

func sizeOf[T linalg.Float](v T) int {
	if _, ok := any(v).(float32); ok {
		return 4
	}
	return 8
}
