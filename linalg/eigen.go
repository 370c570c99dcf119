package linalg

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrNoConvergence is wrapped by the errors of the iterative eigenvalue
// routines when they stop before reaching their accuracy.
var ErrNoConvergence = errors.New("linalg: eigenvalue iteration did not converge")

// EigenvaluesSym returns all eigenvalues of the symmetric n×n matrix A in
// ascending order. Only the lower triangle of A (diagonal included) is read;
// A is not modified. The work is done in float64 whatever T is.
//
// The method is Householder reduction to tridiagonal form (4n³/3 flops)
// followed by the implicit QL iteration with Wilkinson-type shifts. Each
// computed eigenvalue is exact for a matrix within a few n·u·‖A‖ of A (u =
// 2⁻⁵³), so its absolute error is about that much. The reduction runs on up
// to Threads() goroutines (the result does not depend on their number) but
// is not blocked, so the routine is meant for n up to a few thousand; use
// Lanczos for the extremes of larger matrices. A non-square matrix (an
// error wrapping ErrShape) and NaN or infinite elements are errors.
func EigenvaluesSym[T Float](a Matrix[T]) ([]float64, error) {
	vals, _, err := eigenSym(a, false)
	return vals, err
}

// EigenSym returns the eigenvalues of the symmetric matrix A in ascending
// order, as EigenvaluesSym does, and an orthonormal set of eigenvectors:
// row i of vecs is a unit eigenvector for vals[i], so that
// A = vecsᵀ·diag(vals)·vecs. Computing the vectors costs about 3 times the
// flops of the values alone; the residuals ‖A·v − λ·v‖ are a few n·u·‖A‖.
func EigenSym[T Float](a Matrix[T]) (vals []float64, vecs Matrix[float64], err error) {
	return eigenSym(a, true)
}

func eigenSym[T Float](a Matrix[T], wantVecs bool) ([]float64, Matrix[float64], error) {
	fn := "EigenvaluesSym"
	if wantVecs {
		fn = "EigenSym"
	}
	if err := checkMatrix("A", a); err != nil {
		return nil, Matrix[float64]{}, fmt.Errorf("linalg: %s: %w", fn, err)
	}
	if a.Rows != a.Cols {
		return nil, Matrix[float64]{}, fmt.Errorf("%w: %s: A is %d×%d, not square", ErrShape, fn, a.Rows, a.Cols)
	}
	n := a.Rows
	// float64 copy of the lower triangle.
	w := New[float64](n, n)
	for i := range n {
		for j, v := range a.Data[i*a.Stride : i*a.Stride+i+1] {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, Matrix[float64]{}, fmt.Errorf("linalg: %s: A[%d, %d] is %g", fn, i, j, f)
			}
			w.Data[i*n+j] = f
		}
	}
	var z Matrix[float64] // Zᵀ: its rows become the eigenvectors
	if wantVecs {
		z = New[float64](n, n)
		for i := range n {
			z.Data[i*n+i] = 1
		}
	} else {
		z = Matrix[float64]{Rows: n, Cols: 0, Stride: 0}
	}
	d, e := tridiagonalize(w, z)
	if err := tridiagQL(d, e, z); err != nil {
		return nil, Matrix[float64]{}, fmt.Errorf("linalg: %s: %w", fn, err)
	}
	sortEigen(d, z)
	if !wantVecs {
		z = Matrix[float64]{}
	}
	return d, z, nil
}

// tridiagonalize reduces the symmetric matrix whose lower triangle is in a
// (destroyed) to a tridiagonal matrix T = Qᵀ·A·Q by n−2 Householder
// reflections: it returns the diagonal d (length n) and the subdiagonal e
// (length n, e[i] coupling i and i+1, e[n−1] = 0). The reflections are also
// applied from the left to the n×c matrix z (c may be 0): z ← Qᵀ·z.
func tridiagonalize(a, z Matrix[float64]) (d, e []float64) {
	n := a.Rows
	d, e = make([]float64, n), make([]float64, n)
	v := make([]float64, n)
	p := make([]float64, n)
	zr := make([]float64, z.Cols)
	var scatter [eigMaxBands][]float64
	for b := range eigBandCount(n) {
		scatter[b] = make([]float64, n)
	}
	for k := 0; k+2 < n; k++ {
		// x = A[k+1:n, k]; the reflection H = I − β·v·vᵀ maps x to α·e₁.
		m := n - k - 1
		x := v[:m]
		var scale float64
		for i := range m {
			x[i] = a.Data[(k+1+i)*a.Stride+k]
			scale = max(scale, math.Abs(x[i]))
		}
		d[k] = a.Data[k*a.Stride+k]
		if scale == 0 {
			e[k] = 0
			continue
		}
		var ss float64
		for i := range m {
			x[i] /= scale
			ss += x[i] * x[i]
		}
		norm := math.Sqrt(ss)
		alpha := -math.Copysign(norm, x[0])
		e[k] = alpha * scale
		x[0] -= alpha // v = x − α·e₁, ‖v‖² = 2(‖x‖² − α·x₀)
		vv := 2 * (ss - alpha*(x[0]+alpha))
		if vv == 0 {
			continue
		}
		beta := 2 / vv
		// p = β·A22·v using the lower triangle of A22 = A[k+1:, k+1:]:
		// row i gives its own dot product and scatters aᵢⱼ·vᵢ to j < i
		// into its band's buffer; the buffers are summed in band order, so
		// the result does not depend on the thread count.
		q := p[:m]
		nb := eigBandCount(m)
		cuts := eigTriangleCuts(m, nb)
		for b := range nb {
			clear(scatter[b][:m])
		}
		eigRunBands(nb, func(b int) {
			sb := scatter[b][:m]
			for i := cuts[b]; i < cuts[b+1]; i++ {
				row := a.Data[(k+1+i)*a.Stride+k+1 : (k+1+i)*a.Stride+k+1+i+1]
				vi := x[i]
				var s float64
				for j, aij := range row[:i] {
					s += aij * x[j]
					sb[j] += aij * vi
				}
				q[i] = s + row[i]*vi
			}
		})
		for b := range nb {
			for j, v := range scatter[b][:m] {
				q[j] += v
			}
		}
		var vp float64
		for i := range m {
			q[i] *= beta
			vp += x[i] * q[i]
		}
		// w = p − (β·vᵀp/2)·v; A22 −= v·wᵀ + w·vᵀ (lower triangle).
		kk := beta * vp / 2
		for i := range m {
			q[i] -= kk * x[i]
		}
		eigRunBands(nb, func(b int) {
			for i := cuts[b]; i < cuts[b+1]; i++ {
				row := a.Data[(k+1+i)*a.Stride+k+1 : (k+1+i)*a.Stride+k+1+i+1]
				vi, wi := x[i], q[i]
				for j := range row {
					row[j] -= vi*q[j] + wi*x[j]
				}
			}
		})
		// z[k+1:] ← (I − β·v·vᵀ)·z[k+1:]: r = vᵀ·z by column bands, then
		// the rows.
		if z.Cols > 0 {
			zb := nb
			ccuts := evenCuts(z.Cols, 8, zb)
			eigRunBands(zb, func(b int) {
				c0, c1 := ccuts[b], ccuts[b+1]
				r := zr[c0:c1]
				clear(r)
				for i := range m {
					triAxpy(x[i], z.Row(k + 1 + i)[c0:c1], r)
				}
			})
			rcuts := evenCuts(m, 1, zb)
			eigRunBands(zb, func(b int) {
				for i := rcuts[b]; i < rcuts[b+1]; i++ {
					triAxpy(-beta*x[i], zr, z.Row(k+1+i))
				}
			})
		}
	}
	switch {
	case n >= 2:
		d[n-2] = a.Data[(n-2)*a.Stride+n-2]
		e[n-2] = a.Data[(n-1)*a.Stride+n-2]
		d[n-1] = a.Data[(n-1)*a.Stride+n-1]
	case n == 1:
		d[0] = a.Data[0]
	}
	return d, e
}

// eigMaxBands is the most bands the reduction splits its work into; the
// band count depends only on the order, never on the thread count, so
// results are the same on any number of threads.
const eigMaxBands = 4

// eigBandCount returns the number of bands for a trailing matrix of order
// m: one below 256 (the goroutines would cost more than they save).
func eigBandCount(m int) int {
	if m < 256 {
		return 1
	}
	return eigMaxBands
}

// eigTriangleCuts splits the rows [0, m) of a lower triangle into nb bands
// of about equal area: band b is rows [cuts[b], cuts[b+1]).
func eigTriangleCuts(m, nb int) []int {
	cuts := make([]int, nb+1)
	for b := 1; b < nb; b++ {
		cuts[b] = int(float64(m) * math.Sqrt(float64(b)/float64(nb)))
	}
	cuts[nb] = m
	return cuts
}

// eigRunBands runs fn(0), …, fn(nb−1) on up to Threads() goroutines.
func eigRunBands(nb int, fn func(b int)) {
	t := max(1, min(Threads(), nb))
	parallel(t, func(w int) {
		for b := w; b < nb; b += t {
			fn(b)
		}
	})
}

// tridiagQL computes the eigenvalues of the symmetric tridiagonal matrix
// with diagonal d and subdiagonal e (e[i] couples i and i+1; e[n−1] is
// ignored) by the implicit QL iteration with Wilkinson-type shifts. d is
// overwritten with the eigenvalues (unsorted) and e destroyed. The plane
// rotations are applied to the rows of the n×c matrix z (c may be 0), which
// holds the transpose of the eigenvector matrix: starting from the identity
// its row i ends as the unit eigenvector of d[i]; starting from the column
// eₙ₋₁ (c = 1), z[i] ends as the last component of that eigenvector.
func tridiagQL(d, e []float64, z Matrix[float64]) error {
	n := len(d)
	if n == 0 {
		return nil
	}
	e[n-1] = 0
	const eps = 0x1p-52
	for l := 0; l < n; l++ {
		for iter := 0; ; iter++ {
			m := l
			for ; m < n-1; m++ {
				dd := math.Abs(d[m]) + math.Abs(d[m+1])
				if math.Abs(e[m]) <= eps*dd || math.Abs(e[m]) < 0x1p-1022 {
					break
				}
			}
			if m == l {
				break
			}
			if iter == 60 {
				return fmt.Errorf("%w: QL on the tridiagonal matrix: eigenvalue %d after %d iterations", ErrNoConvergence, l, iter)
			}
			// Shift from the leading 2×2 block: the eigenvalue closer to d[l].
			g := (d[l+1] - d[l]) / (2 * e[l])
			r := math.Hypot(g, 1)
			g = d[m] - d[l] + e[l]/(g+math.Copysign(r, g))
			s, c, p := 1.0, 1.0, 0.0
			i := m - 1
			for ; i >= l; i-- {
				f := s * e[i]
				b := c * e[i]
				r = math.Hypot(f, g)
				e[i+1] = r
				if r == 0 { // underflow: deflate and start again
					d[i+1] -= p
					e[m] = 0
					break
				}
				s, c = f/r, g/r
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
				if z.Cols > 0 {
					zi, zj := z.Row(i), z.Row(i+1)
					for k, f := range zj {
						zj[k] = s*zi[k] + c*f
						zi[k] = c*zi[k] - s*f
					}
				}
			}
			if r == 0 && i >= l {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
	}
	return nil
}

// sortEigen sorts d ascending, permuting the rows of z alongside.
func sortEigen(d []float64, z Matrix[float64]) {
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return d[idx[a]] < d[idx[b]] })
	d2 := make([]float64, len(d))
	for i, k := range idx {
		d2[i] = d[k]
	}
	copy(d, d2)
	if z.Cols > 0 {
		z2 := New[float64](z.Rows, z.Cols)
		for i, k := range idx {
			copy(z2.Row(i), z.Row(k))
		}
		for i := range z.Rows {
			copy(z.Row(i), z2.Row(i))
		}
	}
}
