package svm

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
)

// KRR solves kernel ridge regression exactly: α = (K + cI)⁻¹y by a
// Cholesky factorisation of K + cI (K is n×n, symmetric positive
// semi-definite; c > 0 makes the system positive definite, c = 0 needs K
// itself positive definite).
//
// The shift c for the paper's objectives (the minimiser of the objective
// over g = Kα):
//
//	sum:  λ/2‖β‖² + Σ (yᵢ − gᵢ)²      → c = λ/2  (paper eq. 7; Table 3's λ is in these units)
//	mean: λ/2‖β‖² + (1/n) Σ (yᵢ − gᵢ)² → c = nλ/2
//
// (KRRShift computes it.) The factorisation (linalg.SolveSPD, blocked on
// the GEMM) is float64 whatever K's type; it needs n² float64 of memory
// besides K (KRRInPlace needs no n×n copy for a float64 K the caller does
// not keep). KRR returns an error if K + cI is not positive definite.
// ctx is checked before the factorisation and between its blocks of 256
// columns (linalg.SolveSPDScratchContext): a cancelled ctx returns its
// error.
func KRR(ctx context.Context, k KernelMatrix, y []float64, c float64) (*KernelMachine, error) {
	n, cols := k.Dims()
	if err := krrCheck(ctx, n, cols, y, c); err != nil {
		return nil, err
	}
	a := linalg.New[float64](n, n)
	for i := range n {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k.RowTo(a.Row(i), i)
		a.Data[i*n+i] += c
	}
	return krrSolve(ctx, a, y, c)
}

// KRRInPlace is KRR for a caller that does not keep K: it adds c to the
// diagonal of k and overwrites k's lower triangle with the Cholesky factor
// of K + cI, so that the solve needs no n×n copy (peak memory about one
// Gram, against two for KRR; a Gram computed in float32 can be widened to
// float64 in its own storage first, see linalg.NewWidenable). Only the
// lower triangle of k, diagonal included, is read: a Gram computed with
// ntk.Options.Lower, or linalg.SyrkLower, will do. The strict upper
// triangle is not read but is the factorisation's workspace
// (linalg.SolveSPDScratchContext), so that the solve's only n-sized
// buffer is one panel of 256 columns (n·256 float64, 26 MB for
// n = 12,665). On return (error or not) k no longer holds K. α is bit for
// bit KRR's for the same lower triangle. The training outputs g = Kα,
// which K can no longer give, are y − cα (since (K + cI)α = y); the
// ntksvm command's exact KRR path should call this when it does not keep
// the Gram. Errors as KRR, and an error if k has NaN or infinite elements
// in its lower triangle.
func KRRInPlace(ctx context.Context, k linalg.Matrix[float64], y []float64, c float64) (*KernelMachine, error) {
	if err := krrCheck(ctx, k.Rows, k.Cols, y, c); err != nil {
		return nil, err
	}
	if len(k.Data) < (k.Rows-1)*k.Stride+k.Cols || k.Stride < k.Cols {
		return nil, inputErr("training Gram storage: %d elements, stride %d, for %d×%d", len(k.Data), k.Stride, k.Rows, k.Cols)
	}
	for i := range k.Rows {
		k.Data[i*k.Stride+i] += c
	}
	return krrSolve(ctx, k, y, c)
}

// krrCheck returns KRR's errors for an n×cols Gram, targets y and shift c.
func krrCheck(ctx context.Context, n, cols int, y []float64, c float64) error {
	if n != cols {
		return inputErr("training Gram is %d×%d, not square", n, cols)
	}
	if len(y) != n {
		return inputErr("%d targets for a Gram of %d points", len(y), n)
	}
	if !(c >= 0) || math.IsInf(c, 0) {
		return inputErr("ridge shift c = %v; want a finite c ≥ 0", c)
	}
	if err := checkLabels(Squared, y); err != nil {
		return err
	}
	return ctx.Err()
}

// krrSolve solves (K + cI)α = y given a = K + cI (lower triangle read,
// overwritten by the factor; the strict upper triangle is workspace).
func krrSolve(ctx context.Context, a linalg.Matrix[float64], y []float64, c float64) (*KernelMachine, error) {
	alpha := make([]float64, len(y))
	copy(alpha, y)
	b, _ := linalg.FromSlice(len(y), 1, alpha)
	if err := linalg.SolveSPDScratchContext(ctx, a, b); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return nil, err
		}
		var nspd *linalg.NotSPDError
		if errors.As(err, &nspd) {
			return nil, fmt.Errorf("svm: KRR: K + %gI is not positive definite (pivot %d is %.3g); use a larger ridge c: %w",
				c, nspd.Index, nspd.Pivot, err)
		}
		return nil, fmt.Errorf("svm: KRR: %w", err)
	}
	return &KernelMachine{Alpha: alpha}, nil
}

// KRRShift returns the diagonal shift c of KRR for the squared loss with
// regularisation λ in objective obj over n points: λ/2 (ObjectiveSum) or nλ/2 (ObjectiveMean).
func KRRShift(lambda float64, obj Objective, n int) float64 {
	if obj == ObjectiveMean {
		return float64(n) * lambda / 2
	}
	return lambda / 2
}
