package svm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
)

// ExampleFit fits the soft-margin SVM with the mean objective (paper
// eq. 11): Fit solves the dual with the sum objective's λ·n, so C =
// 1/(nλ). A configuration is checked before any work.
func ExampleFit() {
	xs := []float64{-2, -1, 1, 2}
	y := []float64{-1, -1, 1, 1}
	k := linalg.New[float64](4, 4)
	for i := range xs {
		for j := range xs {
			k.Set(i, j, xs[i]*xs[j])
		}
	}
	cfg := svm.FitConfig{Machine: svm.MachineSVM, Solver: svm.SolverExact, Objective: svm.ObjectiveMean, Lambda: 0.025, Gap: 1e-9}
	r, err := svm.Fit(context.Background(), svm.NewDense(k), y, cfg, svm.FitHooks{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("C = %g, outputs %.2f\n", r.Info.C, r.Outputs)

	cfg.Machine = svm.MachineLogistic // no exact solver
	var fe *svm.FieldError
	if err := cfg.Validate(); errors.As(err, &fe) {
		fmt.Println(fe.Field, "→", fe.Reason)
	}
	fmt.Println(svm.StepsFromEpochs(300, 12665, 64), "steps for 300 epochs of MNIST 0/1 in batches of 64")
	// Output:
	// C = 10, outputs [-2.00 -1.00 1.00 2.00]
	// Solver → the logistic machine has no exact solver; use the subgradient solver
	// 59400 steps for 300 epochs of MNIST 0/1 in batches of 64
}
