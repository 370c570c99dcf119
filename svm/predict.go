package svm

import (
	"context"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// PredictKernel sets dst = g(Z) = K(Z, X)·α + b for the points z (one per
// row), with the kernel s between z and the machine's training inputs x.
// The kernel is computed in s's element type (float32 when s.Float32) in
// blocks of rows holding at most memCap bytes (ntk.Blocks; memCap ≤ 0: the
// whole K(Z, X) at once), so prediction on any number of points needs
// bounded memory; each block's outputs are those of the whole kernel.
// o.Progress, if set, reports the points done.
func PredictKernel(ctx context.Context, m *KernelMachine, dst []float64, s ntk.Spec, z, x linalg.Matrix[float64], o ntk.Options, memCap int64) error {
	if x.Rows != len(m.Alpha) {
		return inputErr("%d training inputs for a machine of %d points", x.Rows, len(m.Alpha))
	}
	if z.Cols != x.Cols {
		return inputErr("inputs have %d features, training inputs %d", z.Cols, x.Cols)
	}
	if len(dst) != z.Rows {
		return inputErr("%d predictions for %d inputs", len(dst), z.Rows)
	}
	if s.Float32 {
		return predictKernel(ctx, m, dst, s, linalg.Convert[float32](z), linalg.Convert[float32](x), o, memCap)
	}
	return predictKernel(ctx, m, dst, s, z, x, o, memCap)
}

func predictKernel[T linalg.Float](ctx context.Context, m *KernelMachine, dst []float64, s ntk.Spec, z, x linalg.Matrix[T], o ntk.Options, memCap int64) error {
	return ntk.Blocks(ctx, s, &z, x, o, memCap, func(i0 int, k linalg.Matrix[T]) error {
		return m.Predict(dst[i0:i0+k.Rows], NewDense(k))
	})
}
