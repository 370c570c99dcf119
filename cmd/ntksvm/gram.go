package main

import (
	"context"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/cmd/internal/progress"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// computeKernel computes K(Z, X) (z nil: the Gram K(X, X)) of element type
// T with a progress report labelled what.
func computeKernel[T linalg.Float](ctx context.Context, e *env, what string, z, x *linalg.Matrix[float64], p ntk.Params, kind ntk.Kind) (linalg.Matrix[T], error) {
	xt := linalg.Convert[T](*x)
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
		err = ntk.CrossInto(ctx, linalg.Convert[T](*z), xt, p, o, out, other)
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
