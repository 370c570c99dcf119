package ntk

import (
	"context"

	"github.com/ntksvm/ntksvm/linalg"
)

// nngpOf returns the NNGP of s's depth and standard deviations.
func nngpOf(s Spec) Spec {
	s.Kind, s.Fixed = KindNNGP, 0
	return s
}

// gramOf is Gram of s on x with the default options.
func gramOf[T linalg.Float](x linalg.Matrix[T], s Spec) (linalg.Matrix[T], error) {
	return Gram(context.Background(), s, x, Options{})
}

// crossOf is Cross of s on z and x with the default options.
func crossOf[T linalg.Float](z, x linalg.Matrix[T], s Spec) (linalg.Matrix[T], error) {
	return Cross(context.Background(), s, z, x, Options{})
}

// kernels returns Θ(X, X) (of s's fixed layers) and Σ(X, X) of s's depth
// and standard deviations, both from one pass of the recursion.
func kernels[T linalg.Float](x linalg.Matrix[T], s Spec) (ntk, nngp linalg.Matrix[T], err error) {
	ntk, nngp = linalg.New[T](x.Rows, x.Rows), linalg.New[T](x.Rows, x.Rows)
	return ntk, nngp, gramInto(context.Background(), x, s, Options{}, ntk, nngp)
}

// gramInto writes both outputs of the Gram (either may be the zero
// Matrix), mirrored unless o.Lower.
func gramInto[T linalg.Float](ctx context.Context, x linalg.Matrix[T], s Spec, o Options, ntk, nngp linalg.Matrix[T]) error {
	return gramBand(ctx, x, s, o, 0, x.Rows, ntk, nngp, !o.Lower)
}

// diags returns the NTK's and the NNGP's diagonals of s.
func diags[T linalg.Float](x linalg.Matrix[T], s Spec) (ntk, nngp []T, err error) {
	if ntk, err = Diag(s, x); err != nil {
		return nil, nil, err
	}
	nngp, err = Diag(nngpOf(s), x)
	return ntk, nngp, err
}
