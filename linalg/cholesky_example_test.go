package linalg_test

import (
	"errors"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

func ExampleSolveSPD() {
	// Kernel ridge regression: solve (K + c·I)·α = y, the ridge c·I already
	// added to the diagonal of K.
	k, _ := linalg.FromSlice(3, 3, []float64{
		4, 2, 0,
		2, 5, 1,
		0, 1, 3,
	})
	y, _ := linalg.FromSlice(3, 1, []float64{2, 1, 4})
	if err := linalg.SolveSPD(k, y); err != nil { // k now holds its Cholesky factor
		fmt.Println(err)
		return
	}
	fmt.Printf("α = %.4f %.4f %.4f\n", y.At(0, 0), y.At(1, 0), y.At(2, 0))
	// Output: α = 0.6818 -0.3636 1.4545
}

func ExampleCholesky() {
	a, _ := linalg.FromSlice(2, 2, []float64{1, 2, 2, 1}) // eigenvalues 3 and −1
	err := linalg.Cholesky(a)
	var nse *linalg.NotSPDError
	if errors.As(err, &nse) {
		fmt.Println("not positive definite at pivot", nse.Index, "value", nse.Pivot)
	}
	// Output: not positive definite at pivot 1 value -3
}
