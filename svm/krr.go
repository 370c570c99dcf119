package svm

import (
	"context"
	"fmt"
	"math"
	"runtime"
)

// KRR solves kernel ridge regression exactly: α = (K + cI)⁻¹y by a
// Cholesky factorisation of K + cI (K is n×n, symmetric positive
// semi-definite; c > 0 makes the system positive definite, c = 0 needs K
// itself positive definite).
//
// The shift c for the paper's objectives (the minimiser of the objective
// over g = Kα):
//
//	sum:  λ/2‖β‖² + Σ (yᵢ − gᵢ)²      → c = λ/2  (paper Table 3, PROTOCOL §4.7)
//	mean: λ/2‖β‖² + (1/n) Σ (yᵢ − gᵢ)² → c = nλ/2
//
// (KRRShift computes it.) The factorisation is float64 whatever K's type.
// KRR returns an error if the matrix is not positive definite.
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
	a := make([]float64, n*n)
	for i := range n {
		k.RowTo(a[i*n:(i+1)*n], i)
		a[i*n+i] += c
	}
	if err := cholesky(ctx, a, n); err != nil {
		return nil, err
	}
	alpha := make([]float64, n)
	copy(alpha, y)
	cholSolve(a, n, alpha)
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

// cholesky overwrites the lower triangle of the n×n row-major a with L,
// a = L·Lᵀ (right-looking, blocked by row panels so rows stream from cache).
func cholesky(ctx context.Context, a []float64, n int) error {
	for j := range n {
		if j%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rj := a[j*n : j*n+j]
		d := a[j*n+j] - dotf(rj, rj)
		if !(d > 0) {
			return fmt.Errorf("svm: matrix is not positive definite (pivot %d is %.3g); add a ridge c > 0", j, d)
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		inv := 1 / d
		parallel(n-j-1, runtime.GOMAXPROCS(0), 32, func(lo, hi int) {
			for i := j + 1 + lo; i < j+1+hi; i++ {
				ri := a[i*n : i*n+j]
				a[i*n+j] = (a[i*n+j] - dotf(ri, rj)) * inv
			}
		})
	}
	return nil
}

// cholSolve solves L·Lᵀx = b in place for the factor of cholesky.
func cholSolve(l []float64, n int, b []float64) {
	for i := range n {
		b[i] = (b[i] - dotf(l[i*n:i*n+i], b[:i])) / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for p := i + 1; p < n; p++ {
			s -= l[p*n+i] * b[p]
		}
		b[i] = s / l[i*n+i]
	}
}

func dotf(a, b []float64) float64 { return dot(a, b) }
