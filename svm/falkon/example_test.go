package falkon_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/falkon"
)

// ExampleFit fits two outputs at once, sin and cos of the angle of points
// on a circle, with 30 of the 200 points as Nyström centres, and predicts
// at new angles.
func ExampleFit() {
	angle := func(i, n int) float64 { return 2 * math.Pi * float64(i) / float64(n) }
	x := linalg.New[float64](200, 2)
	y := linalg.New[float64](200, 2)
	for i := range 200 {
		a := angle(i, 200)
		x.Set(i, 0, math.Cos(a))
		x.Set(i, 1, math.Sin(a))
		y.Set(i, 0, math.Sin(2*a))
		y.Set(i, 1, math.Cos(3*a))
	}
	k, err := falkon.NewNTK(x, ntk.Spec{Depth: 2, WeightStd: 1, BiasStd: 0.5})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	res, err := falkon.Fit(ctx, k, y, falkon.Config{M: 30, Shift: 1e-6, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	z := linalg.New[float64](3, 2)
	for i := range 3 {
		a := angle(2*i+1, 14)
		z.Set(i, 0, math.Cos(a))
		z.Set(i, 1, math.Sin(a))
	}
	b, err := k.Centre(res.Centres)
	if err != nil {
		log.Fatal(err)
	}
	blocks, err := b.(*falkon.NTKBlocks[float64]).Test(z)
	if err != nil {
		log.Fatal(err)
	}
	out, err := res.Predict(ctx, z.Rows, blocks)
	if err != nil {
		log.Fatal(err)
	}
	for i := range 3 {
		a := angle(2*i+1, 14)
		fmt.Printf("sin 2a: %.2f (%.2f), cos 3a: %.2f (%.2f)\n", out.At(i, 0), math.Sin(2*a), out.At(i, 1), math.Cos(3*a))
	}
	fmt.Println("converged:", res.Converged)
	// Output:
	// sin 2a: 0.76 (0.78), cos 3a: 0.18 (0.22)
	// sin 2a: 0.44 (0.43), cos 3a: -0.63 (-0.62)
	// sin 2a: -0.98 (-0.97), cos 3a: 0.89 (0.90)
	// converged: true
}
