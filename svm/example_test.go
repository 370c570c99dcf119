package svm_test

import (
	"context"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
)

// Example trains the soft-margin SVM on four points of a line with a
// linear kernel, exactly and by subgradient descent.
func Example() {
	xs := []float64{-2, -1, 1, 2}
	y := []float64{-1, -1, 1, 1}
	k := linalg.New[float64](4, 4)
	for i := range xs {
		for j := range xs {
			k.Set(i, j, xs[i]*xs[j])
		}
	}
	gram := svm.NewDense(k)
	exact, err := svm.SolveDual(context.Background(), gram, y, svm.DualConfig{Loss: svm.Hinge, Lambda: 0.1, Tol: 1e-9})
	if err != nil {
		panic(err)
	}
	fmt.Printf("exact: objective %.4f, outputs %.2f\n", exact.Objective, exact.Outputs)

	sgd, err := svm.TrainSubgradient(context.Background(), gram, y, svm.SubgradientConfig{
		Loss: svm.Hinge, Lambda: 0.1, Objective: svm.ObjectiveSum, Pegasos: true, Steps: 2000})
	if err != nil {
		panic(err)
	}
	fmt.Printf("subgradient: objective %.3f\n", sgd.Objective)
	// Output:
	// exact: objective 0.0500, outputs [-2.00 -1.00 1.00 2.00]
	// subgradient: objective 0.050
}
