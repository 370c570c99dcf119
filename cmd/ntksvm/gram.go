package main

import (
	"context"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/cmd/internal/progress"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// convertMatrix returns x with elements of type T (x itself for float64).
func convertMatrix[T linalg.Float](x linalg.Matrix[float64]) linalg.Matrix[T] {
	if m, ok := any(x).(linalg.Matrix[T]); ok {
		return m
	}
	m := linalg.New[T](x.Rows, x.Cols)
	for i := range x.Rows {
		r := m.Row(i)
		for j, v := range x.Row(i) {
			r[j] = T(v)
		}
	}
	return m
}

// computeKernel computes K(Z, X) (z nil: the Gram K(X, X)) of element type
// T with a progress report labelled what.
func computeKernel[T linalg.Float](ctx context.Context, e *env, what string, z, x *linalg.Matrix[float64], p ntk.Params, kind ntk.Kind) (linalg.Matrix[T], error) {
	xt := convertMatrix[T](*x)
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	k := linalg.New[T](rows, x.Rows)
	var out, other linalg.Matrix[T]
	if kind == ntk.KindNTK {
		out = k
	} else {
		other = k
	}
	pr := progress.New(e.stderr, e.isTerminal, what, int64(rows))
	o := ntk.Options{Progress: func(done, _ int) { pr.Set(int64(done)) }}
	var err error
	if z == nil {
		err = ntk.GramInto(ctx, xt, p, o, out, other)
	} else {
		err = ntk.CrossInto(ctx, convertMatrix[T](*z), xt, p, o, out, other)
	}
	pr.Done()
	return k, err
}

// checkFinite returns an error naming the first non-finite output: the
// kernel overflowed for that point.
func checkFinite(what string, out []float64) error {
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: the output for point %d is %v: the kernel overflows (inputs too large; rescale them)", what, i, v)
		}
	}
	return nil
}
