package regress_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/regress"
)

// Fit a kernel ridge regression on a smooth function of two features,
// choosing the depth and C by cross-validation, and score it on new points.
func Example() {
	data := func(n, offset int) (linalg.Matrix[float64], []float64) {
		x := linalg.New[float64](n, 2)
		y := make([]float64, n)
		for i := range n {
			a, b := math.Sin(float64(3*(i+offset))), math.Cos(float64(5*(i+offset)))
			x.Set(i, 0, a)
			x.Set(i, 1, b)
			y[i] = 100 + 20*a*b + 5*a
		}
		return x, y
	}
	x, y := data(80, 0)
	xt, yt := data(40, 1000)
	g := regress.DefaultGrid()
	g.Depths, g.BiasStds = []int{1, 2}, []float64{0, 1}
	r := regress.New(regress.Options{Machine: regress.KRR, Grid: g, Select: classify.SelectBest})
	ctx := context.Background()
	if err := r.Fit(ctx, x, y); err != nil {
		fmt.Println(err)
		return
	}
	m, _ := r.Score(ctx, xt, yt)
	var buf bytes.Buffer
	_ = r.Save(&buf)
	r2, _ := regress.Load(&buf)
	p1, _ := r.Predict(ctx, xt)
	p2, _ := r2.Predict(ctx, xt)
	fmt.Printf("%d grid points, test R² above 0.99: %v, same predictions after Load: %v\n",
		len(r.CV.Scores), m.R2 > 0.99, slices.Equal(p1, p2))
	// Output: 32 grid points, test R² above 0.99: true, same predictions after Load: true
}
