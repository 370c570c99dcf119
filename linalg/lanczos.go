package linalg

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// LanczosOptions control Lanczos. The zero value asks for the defaults.
type LanczosOptions struct {
	// Tol is the accuracy asked for, relative to ‖A‖: iteration stops when
	// the error bounds of both extreme eigenvalues are at most
	// max(AbsTol, Tol·‖A‖), ‖A‖ being estimated by max(|θ_min|, |θ_max|).
	// Default 1e-10.
	Tol float64
	// AbsTol is an absolute accuracy that is also good enough (default 0).
	AbsTol float64
	// MaxIter bounds the number of Lanczos steps (matrix-vector products)
	// and so the memory, MaxIter vectors of length n. Default min(n, 500).
	MaxIter int
	// Seed selects the random start vector; the same seed, operator and
	// options give the same result.
	Seed uint64
	// Progress, if not nil, is called after every step with the current
	// estimates; Converged is true on the call that meets the tolerance.
	Progress func(LanczosResult)
}

// LanczosResult holds the extreme eigenvalue estimates of Lanczos with
// their error bounds.
type LanczosResult struct {
	// Min and Max are the extreme Ritz values θ_min and θ_max. Ritz values
	// lie inside the spectrum: λ_min ≤ θ_min and θ_max ≤ λ_max.
	Min, Max float64
	// MinErr and MaxErr are the residual norms ‖A·y − θ·y‖ = |β_k·s_ki| of
	// the two Ritz pairs: each interval [θ − err, θ + err] holds an
	// eigenvalue of A.
	MinErr, MaxErr float64
	Iterations     int  // Lanczos steps taken (matrix-vector products)
	Converged      bool // both errors reached the requested tolerance
}

// MinLower returns θ_min − MinErr, the lower end of the interval
// [θ_min − MinErr, θ_min] that holds λ_min (see Lanczos for when).
func (r LanczosResult) MinLower() float64 { return r.Min - r.MinErr }

// MaxUpper returns θ_max + MaxErr, the upper end of the interval
// [θ_max, θ_max + MaxErr] that holds λ_max.
func (r LanczosResult) MaxUpper() float64 { return r.Max + r.MaxErr }

// Lanczos estimates the smallest and the largest eigenvalue of a symmetric
// linear operator on ℝⁿ, given as mulVec(dst, x) setting dst = A·x, by the
// Lanczos process with full reorthogonalization (every new vector is
// orthogonalized twice against all previous ones), started from a random
// vector drawn from opts.Seed.
//
// Guarantee: after k steps with tridiagonal T_k = S·Θ·Sᵀ, the Ritz pair
// (θ_i, y_i = V_k·s_i) has residual ‖A·y_i − θ_i·y_i‖ = |β_k·s_ki|, so
// some eigenvalue of A lies within MinErr of θ_min and within MaxErr of
// θ_max; and θ_min ≥ λ_min, θ_max ≤ λ_max always. Hence λ_min ∈
// [θ_min − MinErr, θ_min] and λ_max ∈ [θ_max, θ_max + MaxErr] provided the
// eigenvalue located is the extreme one; that fails only when the start
// vector is almost orthogonal to the extreme eigenvector (probability ~0
// for a random start, but not impossible, and undetectable by any Krylov
// method). These bounds hold in exact arithmetic; in floating point they
// carry an extra error of order u·‖A‖ (u = 2⁻⁵³), which full
// reorthogonalization keeps from growing.
//
// Lanczos iterates until both errors are ≤ max(opts.AbsTol, opts.Tol·‖A‖),
// returning Converged = true, or until MaxIter steps (or an invariant
// subspace, where the bounds become exact) and then returns the current
// estimates together with an error wrapping ErrNoConvergence if they are
// not accurate enough. It also stops with ctx's error when ctx is done.
func Lanczos(ctx context.Context, n int, mulVec func(dst, x []float64), opts LanczosOptions) (LanczosResult, error) {
	if n < 1 {
		return LanczosResult{}, fmt.Errorf("%w: Lanczos: operator dimension %d < 1", ErrShape, n)
	}
	tol := opts.Tol
	if tol == 0 {
		tol = 1e-10
	}
	if tol < 0 || opts.AbsTol < 0 || math.IsNaN(tol) || math.IsNaN(opts.AbsTol) {
		return LanczosResult{}, fmt.Errorf("linalg: Lanczos: negative or NaN tolerance (Tol %g, AbsTol %g)", opts.Tol, opts.AbsTol)
	}
	maxIter := opts.MaxIter
	if maxIter <= 0 {
		maxIter = min(n, 500)
	}
	maxIter = min(maxIter, n)
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))

	var vs [][]float64 // orthonormal Lanczos vectors
	var alpha, beta []float64
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	lzNormalize(v)
	w := make([]float64, n)
	var res LanczosResult
	for k := 0; k < maxIter; k++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		vs = append(vs, v)
		mulVec(w, v)
		a := lzDot(v, w)
		for _, x := range w {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return res, fmt.Errorf("linalg: Lanczos: the operator returned %g at step %d", x, k)
			}
		}
		// w −= α·v + β·v_prev, then twice against every previous vector.
		lzAxpy(-a, v, w)
		if k > 0 {
			lzAxpy(-beta[k-1], vs[k-1], w)
		}
		for range 2 {
			for _, u := range vs {
				lzAxpy(-lzDot(u, w), u, w)
			}
		}
		b := math.Sqrt(lzDot(w, w))
		alpha = append(alpha, a)
		beta = append(beta, b)

		// Ritz values of T_k and the last components of their vectors.
		m := k + 1
		d, e := make([]float64, m), make([]float64, m)
		copy(d, alpha)
		copy(e, beta[:m-1])
		zm := New[float64](m, 1) // last components of the eigenvectors of T_k
		zm.Data[m-1] = 1
		if err := tridiagQL(d, e, zm); err != nil {
			return res, fmt.Errorf("linalg: Lanczos: %w", err)
		}
		sortEigen(d, zm)
		z := zm.Data
		anorm := max(math.Abs(d[0]), math.Abs(d[m-1]))
		invariant := b <= 64*0x1p-53*anorm*math.Sqrt(float64(m)) || m == n
		if invariant {
			b = 0
		}
		res = LanczosResult{Min: d[0], Max: d[m-1], MinErr: math.Abs(b * z[0]), MaxErr: math.Abs(b * z[m-1]),
			Iterations: m}
		goal := max(opts.AbsTol, tol*anorm)
		res.Converged = res.MinErr <= goal && res.MaxErr <= goal
		if opts.Progress != nil {
			opts.Progress(res)
		}
		if res.Converged {
			return res, nil
		}
		if invariant {
			break
		}
		v = make([]float64, n)
		for i, x := range w {
			v[i] = x / b
		}
	}
	return res, fmt.Errorf("%w: Lanczos: after %d steps the error bounds are %.3g (min) and %.3g (max), asked for %.3g",
		ErrNoConvergence, res.Iterations, res.MinErr, res.MaxErr, max(opts.AbsTol, tol*max(math.Abs(res.Min), math.Abs(res.Max))))
}

// LanczosSym runs Lanczos on the symmetric n×n matrix A (all of A is read;
// it must be symmetric), with the matrix-vector products in float64 on up to
// Threads() goroutines. It is the tool for λ_min and λ_max = ‖A‖ of a large
// kernel Gram matrix.
func LanczosSym[T Float](ctx context.Context, a Matrix[T], opts LanczosOptions) (LanczosResult, error) {
	if err := checkMatrix("A", a); err != nil {
		return LanczosResult{}, fmt.Errorf("linalg: LanczosSym: %w", err)
	}
	if a.Rows != a.Cols {
		return LanczosResult{}, fmt.Errorf("%w: LanczosSym: A is %d×%d, not square", ErrShape, a.Rows, a.Cols)
	}
	n := a.Rows
	t := max(1, min(Threads(), n*n/(1<<16)))
	cuts := evenCuts(n, 8, t)
	mul := func(dst, x []float64) {
		parallel(t, func(w int) {
			for i := cuts[w]; i < cuts[w+1]; i++ {
				dst[i] = lzDotMixed(a.Data[i*a.Stride:i*a.Stride+n], x)
			}
		})
	}
	return Lanczos(ctx, n, mul, opts)
}

func lzNormalize(v []float64) {
	s := 1 / math.Sqrt(lzDot(v, v))
	for i := range v {
		v[i] *= s
	}
}

func lzDot(x, y []float64) float64 { return cholDot(x, y) }

func lzDotMixed[T Float](row []T, x []float64) float64 {
	x = x[:len(row)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(row); i += 4 {
		s0 += float64(row[i]) * x[i]
		s1 += float64(row[i+1]) * x[i+1]
		s2 += float64(row[i+2]) * x[i+2]
		s3 += float64(row[i+3]) * x[i+3]
	}
	for ; i < len(row); i++ {
		s0 += float64(row[i]) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func lzAxpy(alpha float64, x, y []float64) { triAxpy(alpha, x, y) }
