package ondemand_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/ondemand"
)

// ExampleNewNTK solves the soft-margin SVM on an NTK Gram that is computed
// a block of rows at a time behind a cache of 8 rows, never held whole,
// and gets the dense Gram's optimum.
func ExampleNewNTK() {
	// 40 points on two interleaved arcs, labelled by arc.
	x := linalg.New[float64](40, 2)
	y := make([]float64, 40)
	for i := range 40 {
		t := float64(i%20) / 20
		if i < 20 {
			x.Set(i, 0, t)
			x.Set(i, 1, 1-t*t)
			y[i] = 1
		} else {
			x.Set(i, 0, t+0.5)
			x.Set(i, 1, 0.5-(1-t)*(1-t))
			y[i] = -1
		}
	}
	ctx := context.Background()
	p := ntk.DefaultSpec(2)
	cfg := svm.DualConfig{Loss: svm.Hinge, Lambda: 0.01, Bias: true, Tol: 1e-10}
	k, err := ondemand.NewNTK[float32](ctx, x, p,
		ondemand.Config{CacheBytes: 8 * ondemand.RowBytes[float32](40), BlockRows: 8})
	if err != nil {
		log.Fatal(err)
	}
	r, err := svm.SolveDual(ctx, k, y, cfg)
	if err != nil {
		log.Fatal(err)
	}
	g, err := ntk.Gram(ctx, p, x, ntk.Options{})
	if err != nil {
		log.Fatal(err)
	}
	want, err := svm.SolveDual(ctx, svm.NewDense(g), y, cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("training accuracy %.2f, dual optimum %.6g (dense Gram: %.6g)\n",
		svm.Accuracy(r.Outputs, y), r.DualObj, want.DualObj)
	fmt.Println("at most 8 rows cached:", k.Stats().CachedRows <= 8)
	// Output:
	// training accuracy 0.95, dual optimum 562.807 (dense Gram: 562.807)
	// at most 8 rows cached: true
}
