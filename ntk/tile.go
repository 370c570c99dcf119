package ntk

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// WriteNpy computes one kernel matrix and writes it to path as a 2-D .npy
// file of T's dtype, atomically (the file appears complete or not at all):
// K(Z, X) of size z.Rows × x.Rows when z is given, else the Gram K(X, X).
//
// memCap bounds, in bytes, the kernel values held in memory at once (the
// inputs are not counted). When the whole matrix fits it is computed in
// memory (the Gram then uses its symmetry); otherwise it is computed and
// written in blocks of rows, each block as a cross kernel of those rows
// against X, which for a Gram costs twice the flops but needs only
// rows×n values. The values equal the in-memory ones, bit for bit for the
// cross kernel when a block holds at least linalg.GramStrip rows, to
// rounding for the Gram (the blocks' products are general GEMMs). memCap ≤ 0
// means no cap. o.Progress, if set, reports rows written.
func WriteNpy[T linalg.Float](ctx context.Context, path string, z *linalg.Matrix[T], x linalg.Matrix[T], p Params, kind Kind, o Options, memCap int64) error {
	if kind != KindNTK && kind != KindNNGP {
		return fmt.Errorf("ntk: WriteNpy: unknown kind %v", kind)
	}
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	n := x.Rows
	var zero T
	size := int64(sizeOf(zero))
	full := int64(rows) * int64(n) * size
	outs := func(m linalg.Matrix[T]) (linalg.Matrix[T], linalg.Matrix[T]) {
		if kind == KindNTK {
			return m, linalg.Matrix[T]{}
		}
		return linalg.Matrix[T]{}, m
	}
	if memCap <= 0 || full <= memCap {
		k := linalg.New[T](rows, n)
		kn, kg := outs(k)
		var err error
		if z == nil {
			err = GramInto(ctx, x, p, o, kn, kg)
		} else {
			err = CrossInto(ctx, *z, x, p, o, kn, kg)
		}
		if err != nil {
			return err
		}
		return npy.Write(path, k)
	}
	block := int(memCap / (int64(n) * size))
	if block < 1 {
		return fmt.Errorf("ntk: memory cap %d B is below one row of the kernel (%d B)", memCap, int64(n)*size)
	}
	if z != nil && block >= linalg.GramStrip {
		// Blocks on the strip grid: bit for bit the in-memory cross kernel
		// (see CrossInto).
		block -= block % linalg.GramStrip
	}
	// Validate everything before creating the file.
	if err := p.Validate(); err != nil {
		return err
	}
	if err := checkFinite("X", x); err != nil {
		return err
	}
	w, err := npy.NewWriter[T](path, dtypeOf(zero), rows, n)
	if err != nil {
		return err
	}
	defer w.Discard()
	buf := linalg.New[T](min(block, rows), n)
	inner := o
	inner.Progress = nil
	for i0 := 0; i0 < rows; i0 += block {
		i1 := min(i0+block, rows)
		k := buf.Slice(0, i1-i0, 0, n)
		kn, kg := outs(k)
		if z == nil {
			err = crossInto(ctx, x.Slice(i0, i1, 0, x.Cols), x, p, inner, kn, kg, i0)
		} else {
			err = crossInto(ctx, z.Slice(i0, i1, 0, z.Cols), x, p, inner, kn, kg, -1)
		}
		if err != nil {
			return err
		}
		if err := w.WriteRows(k); err != nil {
			return err
		}
		if o.Progress != nil {
			o.Progress(i1, rows)
		}
	}
	return w.Close()
}

func sizeOf[T linalg.Float](v T) int {
	if _, ok := any(v).(float32); ok {
		return 4
	}
	return 8
}

func dtypeOf[T linalg.Float](v T) npy.Dtype {
	if _, ok := any(v).(float32); ok {
		return npy.Float32
	}
	return npy.Float64
}
