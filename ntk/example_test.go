package ntk_test

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// The NTK of the paper's two-layer network (one hidden ReLU layer, σ_w = 1,
// no bias) for three points in R²: on the diagonal Θ(x, x) = ‖x‖²/d, and
// orthogonal inputs give Θ = ‖x‖‖x'‖/(2πd).
func ExampleGram() {
	x, _ := linalg.FromSlice(3, 2, []float64{
		1, 0,
		0, 2,
		-1, 0,
	})
	k, err := ntk.Gram(context.Background(), ntk.DefaultSpec(1), x, ntk.Options{})
	if err != nil {
		panic(err)
	}
	for i := range 3 {
		fmt.Printf("%.4f %.4f %.4f\n", k.At(i, 0), k.At(i, 1), k.At(i, 2))
	}
	// Output:
	// 0.5000 0.1592 0.0000
	// 0.1592 2.0000 0.1592
	// 0.0000 0.1592 0.5000
}

// A finite network of the paper's parameterisation and its empirical
// tangent kernel, which tends to the analytic NTK as the width grows.
func ExampleNetwork_EmpiricalNTK() {
	x, _ := linalg.FromSlice(2, 3, []float64{
		1, 0, 1,
		0, 1, 1,
	})
	analytic, _ := ntk.Gram(context.Background(), ntk.DefaultSpec(1), x, ntk.Options{})
	for _, width := range []int{16, 65536} {
		net, err := ntk.NewNetwork[float64](3, width, 1, 1, 0, 6)
		if err != nil {
			panic(err)
		}
		k, err := net.EmpiricalNTK(x, x)
		if err != nil {
			panic(err)
		}
		fmt.Printf("width %5d: Θ̂(x1, x2) = %.2f\n", width, k.At(0, 1))
	}
	fmt.Printf("infinite:    Θ(x1, x2) = %.2f\n", analytic.At(0, 1))
	// Output:
	// width    16: Θ̂(x1, x2) = 0.15
	// width 65536: Θ̂(x1, x2) = 0.32
	// infinite:    Θ(x1, x2) = 0.31
}
