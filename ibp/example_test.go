package ibp_test

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// Certify a two-point kernel machine of the 2-layer NTK (paper Theorem 4.2)
// at two test points, with the authors' binary search over ℓ∞ radii.
func ExampleCertifyAll() {
	x, _ := linalg.FromSlice(2, 3, []float64{
		1, 0, 0,
		0, 1, 0,
	})
	km := ibp.KernelMachine{X: x, Alpha: []float64{1, -1}, Kernel: ntk.DefaultSpec(1)}
	z, _ := linalg.FromSlice(2, 3, []float64{
		0.9, 0.1, 0.2,
		0.2, 0.8, 0.1,
	})
	c, err := ibp.NewKernel(context.Background(), km, z, ibp.KernelOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rs, err := ibp.CertifyAll(context.Background(), c, nil, ibp.Linf, ibp.KernelSearch(), 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rs {
		fmt.Printf("point %d: g = %+.4f, certified δ = %.4f\n", r.Index, r.Output, r.Radius)
	}
	// Output:
	// point 0: g = +0.2219, certified δ = 0.1071
	// point 1: g = -0.1741, certified δ = 0.0769
}
