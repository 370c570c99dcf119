package linalg_test

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

func ExampleLanczosSym() {
	// The path graph Laplacian-like matrix tridiag(−1, 2, −1) of order 100
	// has eigenvalues 2 − 2cos(kπ/101), k = 1…100.
	n := 100
	a := linalg.New[float64](n, n)
	for i := range n {
		a.Set(i, i, 2)
		if i > 0 {
			a.Set(i, i-1, -1)
			a.Set(i-1, i, -1)
		}
	}
	r, err := linalg.LanczosSym(context.Background(), a, linalg.LanczosOptions{Tol: 1e-12, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("λ_min ≈ %.8f, λ_max ≈ %.8f, converged %v\n", r.Min, r.Max, r.Converged)
	// Output: λ_min ≈ 0.00096744, λ_max ≈ 3.99903256, converged true
}

func ExampleEigenvaluesSym() {
	a, _ := linalg.FromSlice(3, 3, []float64{
		2, 0, 0,
		1, 2, 0, // only the lower triangle is read
		0, 1, 2,
	})
	ev, err := linalg.EigenvaluesSym(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", ev)
	// Output: [0.585786 2.000000 3.414214]
}
