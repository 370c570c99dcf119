package main

import (
	"context"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/internal/testhold"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// kernelProgress returns the kernel options that report the rows
// computed, of rows in all, on a progress line labelled what, and the
// function that ends the line.
func kernelProgress(e *env, what string, rows int) (ntk.Options, func()) {
	pr := progress.New(e.stderr, e.isTerminal, what, int64(rows))
	return ntk.Options{Progress: func(done, _ int) { pr.Set(int64(done)) }}, pr.Done
}

// gram returns the Gram matrix of s on the rows of x in T, with a progress
// line labelled what.
func gram[T linalg.Float](ctx context.Context, e *env, what string, s ntk.Spec, x linalg.Matrix[float64]) (linalg.Matrix[T], error) {
	o, done := kernelProgress(e, what, x.Rows)
	defer done()
	return ntk.Gram(testhold.Context(ctx, "gram"), s, linalg.Convert[T](x), o)
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
