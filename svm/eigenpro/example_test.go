package eigenpro_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/eigenpro"
)

// ExampleFit classifies points on a circle by their half (upper or
// lower) with one-hot targets, and predicts the class of new angles as the
// argmax of the two outputs.
func ExampleFit() {
	const n = 400
	x := linalg.New[float32](n, 2)
	labels := make([]int, n)
	for i := range n {
		a := 2 * math.Pi * (float64(i) + 0.5) / n
		x.Set(i, 0, float32(math.Cos(a)))
		x.Set(i, 1, float32(math.Sin(a)))
		if math.Sin(a) < 0 {
			labels[i] = 1
		}
	}
	y, err := eigenpro.OneHot(labels, 2)
	if err != nil {
		log.Fatal(err)
	}
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1, BiasStd: 0.1, Float32: true}
	ctx := context.Background()
	m, err := eigenpro.Fit(ctx, x, y, spec, eigenpro.Config{Shift: 1e-3, Epochs: 10, Subsample: 100, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	z := linalg.New[float32](2, 2)
	for i, a := range []float64{1, 4} { // radians: upper, lower
		z.Set(i, 0, float32(math.Cos(a)))
		z.Set(i, 1, float32(math.Sin(a)))
	}
	out, err := m.Predict(ctx, z, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(eigenpro.Argmax(out.Row(0)), eigenpro.Argmax(out.Row(1)))
	// Output: 0 1
}
