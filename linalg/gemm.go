package linalg

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Op says whether an operand of Gemm is used as stored or transposed.
type Op bool

const (
	NoTrans Op = false // use the matrix as stored
	Trans   Op = true  // use its transpose
)

// Gemm computes C = alpha·op(A)·op(B) + beta·C. When beta is 0, C is
// overwritten and its previous contents (even NaN) are ignored, as in BLAS.
// It returns an error wrapping ErrShape if the shapes do not match, and an
// error if C shares storage with A or B.
//
// Large products are cache-blocked in the Goto/BLIS manner on the
// micro-kernel of asm.Active() and run on up to Threads() goroutines; the
// result is bitwise the same for any thread count. Small products (up to
// about 256³, with B in cache) skip packing where the kernel set has
// direct kernels (AVX-512, AVX2 and NEON: asm.GemmDirect32/64, reading A
// and B in place); tiny ones use a plain loop.
func Gemm[T Float](opA, opB Op, alpha T, a, b Matrix[T], beta T, c Matrix[T]) error {
	return gemmWith(gemmConfig{}, opA, opB, alpha, a, b, beta, c)
}

// GemmContext is Gemm that stops early once ctx is done: the workers
// check ctx between the panels of B they compute (every few milliseconds
// on a large product), so a cancelled ctx ends the product within about
// one panel. It then returns ctx's error and C is partly updated: only a
// product whose C is scratch, or is discarded on error, should be
// cancelled. The panels are the same as Gemm's, so a product that runs to
// its end is bitwise Gemm's. Products too small for the blocked path run
// whole.
func GemmContext[T Float](ctx context.Context, opA, opB Op, alpha T, a, b Matrix[T], beta T, c Matrix[T]) error {
	if ctx.Done() == nil { // never cancelled
		return Gemm(opA, opB, alpha, a, b, beta, c)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var stop atomic.Bool
	unregister := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer unregister()
	if err := gemmWith(gemmConfig{stop: &stop}, opA, opB, alpha, a, b, beta, c); err != nil {
		return err
	}
	if stop.Load() {
		return ctx.Err()
	}
	return nil
}

// gemmWith is Gemm with an explicit configuration (kernel set, threads,
// block sizes); tests and benchmarks use it.
func gemmWith[T Float](cfg gemmConfig, opA, opB Op, alpha T, a, b Matrix[T], beta T, c Matrix[T]) error {
	m, k := a.Rows, a.Cols
	if opA {
		m, k = k, m
	}
	kb, n := b.Rows, b.Cols
	if opB {
		kb, n = n, kb
	}
	if k != kb || c.Rows != m || c.Cols != n {
		return fmt.Errorf("%w: Gemm: op(A) is %d×%d, op(B) is %d×%d, C is %d×%d",
			ErrShape, m, k, kb, n, c.Rows, c.Cols)
	}
	if err := checkMatrix("A", a); err != nil {
		return err
	}
	if err := checkMatrix("B", b); err != nil {
		return err
	}
	if err := checkMatrix("C", c); err != nil {
		return err
	}
	if overlaps(c.Data, a.Data) || overlaps(c.Data, b.Data) {
		return fmt.Errorf("linalg: Gemm: C shares storage with A or B")
	}
	p := &gemmProblem[T]{
		tA: bool(opA), tB: bool(opB), alpha: alpha, beta: beta,
		a: a, b: b, c: c, m: m, n: n, k: k,
	}
	p.run(cfg)
	return nil
}

// checkMatrix reports a Matrix value whose fields are inconsistent (a
// hand-built value with too little Data or a bad Stride), so that the
// kernels never index out of range.
func checkMatrix[T Float](name string, x Matrix[T]) error {
	if x.Rows < 0 || x.Cols < 0 || (x.Rows > 1 && x.Stride < x.Cols) {
		return fmt.Errorf("%w: %s is %d×%d with stride %d", ErrShape, name, x.Rows, x.Cols, x.Stride)
	}
	if need := minLen(x.Rows, x.Cols, x.Stride); len(x.Data) < need {
		return fmt.Errorf("%w: %s is %d×%d with stride %d but has %d elements, needs %d",
			ErrShape, name, x.Rows, x.Cols, x.Stride, len(x.Data), need)
	}
	return nil
}
