package linalg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkLanczos compares a converged Lanczos result with the exact extreme
// eigenvalues: the Ritz values must lie inside the spectrum, the true
// values inside the error intervals, and the errors within the tolerance.
func checkLanczos(t *testing.T, name string, r LanczosResult, lmin, lmax, tol float64) {
	t.Helper()
	anorm := max(math.Abs(lmin), math.Abs(lmax))
	slack := 1e-13 * anorm // rounding in the reference and in Lanczos
	if !r.Converged {
		t.Fatalf("%s: not converged: %+v", name, r)
	}
	if r.Min < lmin-slack || r.Max > lmax+slack {
		t.Fatalf("%s: Ritz values [%v, %v] outside the spectrum [%v, %v]", name, r.Min, r.Max, lmin, lmax)
	}
	if lmin < r.MinLower()-slack || lmax > r.MaxUpper()+slack {
		t.Fatalf("%s: λ_min %v not in [%v, %v] or λ_max %v not in [%v, %v]",
			name, lmin, r.MinLower(), r.Min, lmax, r.Max, r.MaxUpper())
	}
	if r.MinErr > tol*anorm*1.0001 || r.MaxErr > tol*anorm*1.0001 {
		t.Fatalf("%s: errors %v, %v above tolerance %v", name, r.MinErr, r.MaxErr, tol*anorm)
	}
	if math.Abs(r.Min-lmin) > tol*anorm+slack || math.Abs(r.Max-lmax) > tol*anorm+slack {
		t.Fatalf("%s: |θ_min−λ_min| = %.3g, |θ_max−λ_max| = %.3g, tolerance %.3g",
			name, math.Abs(r.Min-lmin), math.Abs(r.Max-lmax), tol*anorm)
	}
}

func TestLanczosVsFullSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := 200
	if testing.Short() {
		n = 80
	}
	clustered := make([]float64, n)
	for i := range clustered {
		clustered[i] = 1 + 9*rng.Float64()
	}
	for i := range 6 { // a tight cluster at the bottom, a pair at the top
		clustered[i] = 0.01 + float64(i)*1e-7
	}
	clustered[n-1], clustered[n-2] = 10.5, 10.5-1e-8
	// Wishart matrix G·Gᵀ/3n, G n×3n: eigenvalues in about [0.18, 3.2].
	g := New[float64](n, 3*n)
	for i := range g.Data {
		g.Data[i] = rng.NormFloat64()
	}
	wishart := New[float64](n, n)
	gemmRef(false, true, 1/float64(3*n), g, g, 0, wishart)
	for i := range n {
		for j := range i {
			wishart.Data[j*n+i] = wishart.Data[i*n+j]
		}
	}
	tests := []struct {
		name string
		a    Matrix[float64]
	}{
		{"random SPD", spdMatrix[float64](rng, n, 1e-3)},
		{"Wishart", wishart},
		{"clustered", withSpectrum(rng, clustered)},
	}
	for _, tt := range tests {
		ev, err := EigenvaluesSym(tt.a)
		if err != nil {
			t.Fatal(err)
		}
		for _, tol := range []float64{1e-6, 1e-10} {
			name := fmt.Sprintf("%s/tol=%g", tt.name, tol)
			r, err := LanczosSym(context.Background(), tt.a, LanczosOptions{Tol: tol, Seed: 1})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkLanczos(t, name, r, ev[0], ev[n-1], tol)
			t.Logf("%s: %d steps, λ_min %v ± %.2g, λ_max %v ± %.2g", name, r.Iterations, r.Min, r.MinErr, r.Max, r.MaxErr)
		}
		// float32 storage of the same matrix.
		r, err := LanczosSym(context.Background(), convertMatrix[float32](tt.a), LanczosOptions{Tol: 1e-8})
		if err != nil || math.Abs(r.Max-ev[n-1]) > 1e-5*ev[n-1] || math.Abs(r.Min-ev[0]) > 1e-5*ev[n-1] {
			t.Fatalf("%s float32: %+v %v, want [%v, %v]", tt.name, r, err, ev[0], ev[n-1])
		}
	}
}

// TestLanczosInvariant: an operator with three distinct eigenvalues has a
// three-dimensional Krylov space; Lanczos must stop there with exact values.
func TestLanczosInvariant(t *testing.T) {
	n := 50
	mul := func(dst, x []float64) {
		for i := range x {
			dst[i] = float64(i%3-1) * 2 * x[i] // eigenvalues −2, 0, 2
		}
	}
	r, err := Lanczos(context.Background(), n, mul, LanczosOptions{Tol: 1e-14, Seed: 7})
	if err != nil || r.Iterations != 3 {
		t.Fatalf("got %+v, %v; want convergence in 3 steps", r, err)
	}
	if math.Abs(r.Min+2) > 1e-14 || math.Abs(r.Max-2) > 1e-14 {
		t.Fatalf("got [%v, %v], want [−2, 2]", r.Min, r.Max)
	}
	// n = 1 and the zero operator.
	r, err = Lanczos(context.Background(), 1, func(dst, x []float64) { dst[0] = 3 * x[0] }, LanczosOptions{})
	if err != nil || r.Min != 3 || r.Max != 3 {
		t.Fatalf("1×1: %+v %v", r, err)
	}
	r, err = Lanczos(context.Background(), 4, func(dst, x []float64) { clear(dst) }, LanczosOptions{})
	if err != nil || r.Min != 0 || r.Max != 0 {
		t.Fatalf("zero operator: %+v %v", r, err)
	}
}

func TestLanczosReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	a := spdMatrix[float64](rng, 60, 0.01)
	calls := 0
	r1, err1 := LanczosSym(context.Background(), a, LanczosOptions{Seed: 5, Progress: func(r LanczosResult) {
		calls++
		if r.Iterations != calls {
			t.Errorf("progress call %d reports %d iterations", calls, r.Iterations)
		}
	}})
	if calls != r1.Iterations {
		t.Errorf("%d progress calls for %d iterations", calls, r1.Iterations)
	}
	r2, err2 := LanczosSym(context.Background(), a, LanczosOptions{Seed: 5})
	r3, err3 := LanczosSym(context.Background(), a, LanczosOptions{Seed: 6})
	if err1 != nil || err2 != nil || err3 != nil || r1 != r2 {
		t.Fatalf("same seed gave %+v and %+v (%v, %v, %v)", r1, r2, err1, err2, err3)
	}
	if r3 == r1 {
		t.Fatal("a different seed gave a bitwise identical result")
	}
}

func TestLanczosErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	a := spdMatrix[float64](rng, 100, 1e-4)
	ev, _ := EigenvaluesSym(a)
	r, err := LanczosSym(context.Background(), a, LanczosOptions{MaxIter: 4, Tol: 1e-12})
	if !errors.Is(err, ErrNoConvergence) || r.Converged || r.Iterations != 4 {
		t.Fatalf("MaxIter 4: %+v %v", r, err)
	}
	if r.Min < ev[0]-1e-12 || r.Max > ev[99]+1e-12 || r.MinErr == 0 {
		t.Fatalf("unconverged result inconsistent: %+v vs [%v, %v]", r, ev[0], ev[99])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := LanczosSym(ctx, a, LanczosOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	nanOp := func(dst, x []float64) { dst[0] = math.NaN() }
	if _, err := Lanczos(context.Background(), 3, nanOp, LanczosOptions{}); err == nil {
		t.Fatal("NaN from the operator accepted")
	}
	if _, err := Lanczos(context.Background(), 0, nanOp, LanczosOptions{}); !errors.Is(err, ErrShape) {
		t.Fatalf("n = 0: %v", err)
	}
	if _, err := Lanczos(context.Background(), 3, nanOp, LanczosOptions{Tol: -1}); err == nil {
		t.Fatal("negative tolerance accepted")
	}
	if _, err := LanczosSym(context.Background(), New[float64](3, 4), LanczosOptions{}); !errors.Is(err, ErrShape) {
		t.Fatalf("non-square: %v", err)
	}
}
