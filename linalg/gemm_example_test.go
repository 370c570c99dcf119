package linalg_test

import (
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
)

func ExampleGemm() {
	a, _ := linalg.FromSlice(2, 3, []float64{1, 2, 3, 4, 5, 6})
	b, _ := linalg.FromSlice(3, 2, []float64{1, 0, 0, 1, 1, 1})
	c := linalg.New[float64](2, 2)
	if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, 1, a, b, 0, c); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Row(0), c.Row(1))
	// Output: [4 5] [10 11]
}

func ExampleGram() {
	x, _ := linalg.FromSlice(3, 2, []float32{1, 0, 0, 2, 1, 1})
	g := linalg.New[float32](3, 3)
	if err := linalg.Gram(x, g); err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		fmt.Println(g.Row(i))
	}
	// Output:
	// [1 0 1]
	// [0 4 2]
	// [1 2 2]
}
