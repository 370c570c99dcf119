package asm_test

import (
	"fmt"
	"math"
	"slices"

	"github.com/ntksvm/ntksvm/asm"
)

func ExampleReLU32() {
	x := []float32{-2, -0.0, 0.5, float32(math.Inf(-1)), float32(math.NaN()), 3}
	y := make([]float32, len(x))
	asm.ReLU32(y, x)
	fmt.Println(y)

	// The backward pass: the upstream gradient where x > 0, else 0.
	g := []float32{10, 10, 10, 10, 10, 10}
	asm.ReLUGrad32(g, g, x) // in place
	fmt.Println(g)
	// Output:
	// [0 0 0.5 0 NaN 3]
	// [0 0 10 0 0 10]
}

// One 2×2 corner of a micro-tile of C += A·B with k = 2, computed by every
// kernel set this CPU can run: each set has its own tile shape MR×NR, and
// all give the same result.
func ExampleKernels_GemmTile64() {
	var results []string
	for _, k := range asm.Available() {
		mr, nr := k.Tile64()
		const kc = 2
		a := make([]float64, kc*mr) // packed: a[p*mr+i] = A[i,p]
		b := make([]float64, kc*nr) // packed: b[p*nr+j] = B[p,j]
		for p := range kc {
			for i := range mr {
				a[p*mr+i] = float64(i + p)
			}
			for j := range nr {
				b[p*nr+j] = float64(j - p)
			}
		}
		c := make([]float64, 2*2)
		k.GemmTile64(kc, 2, 2, a, b, c, 2) // only the 2×2 corner of C
		results = append(results, fmt.Sprint(c))
	}
	fmt.Println(results[0])
	fmt.Println("all sets agree:", slices.Equal(results, slices.Repeat(results[:1], len(results))))
	// Output:
	// [-1 0 -2 1]
	// all sets agree: true
}
