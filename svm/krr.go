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
// besides K. KRR returns an error if K + cI is not positive definite.
// ctx is checked before the factorisation and between its blocks of 256
// columns (linalg.SolveSPDContext): a cancelled ctx returns its error.
func KRR(ctx context.Context, k KernelMatrix, y []float64, c float64) (*KernelMachine, error) {
	n, cols := k.Dims()
	if n != cols {
		return nil, inputErr("training Gram is %d×%d, not square", n, cols)
	}
	if len(y) != n {
		return nil, inputErr("%d targets for a Gram of %d points", len(y), n)
	}
	if !(c >= 0) || math.IsInf(c, 0) {
		return nil, inputErr("ridge shift c = %v; want a finite c ≥ 0", c)
	}
	if err := checkLabels(Squared, y); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
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
	alpha := make([]float64, n)
	copy(alpha, y)
	b, _ := linalg.FromSlice(n, 1, alpha)
	if err := linalg.SolveSPDContext(ctx, a, b); err != nil {
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
// regularisation λ in objective obj over n points: λ/2 (Sum) or nλ/2 (Mean).
func KRRShift(lambda float64, obj Objective, n int) float64 {
	if obj == Mean {
		return float64(n) * lambda / 2
	}
	return lambda / 2
}
