package network_test

import (
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/network"
)

// ExampleStepper trains a small network with the mean hinge loss
// and the theory penalty on four points, full batch, as a driver would:
// Evaluate before the first step, then Step on every index.
func ExampleStepper() {
	x, _ := linalg.FromSlice(4, 2, []float64{
		1, 0.5,
		0.8, 1,
		-1, -0.4,
		-0.6, -1,
	})
	y := []float64{1, 1, -1, -1}
	net, err := ntk.NewNetwork[float64](2, 512, 1, 1, 0, 42)
	if err != nil {
		panic(err)
	}
	s, err := network.NewStepper(net, x, y, linalg.Matrix[float64]{}, network.Config{
		Loss: svm.Hinge, Lambda: 0.01, Objective: svm.ObjectiveMean, Reg: network.RegTheory})
	if err != nil {
		panic(err)
	}
	all := []int{0, 1, 2, 3}
	for step := 0; step <= 40; step++ {
		if step%20 == 0 {
			ev, err := s.Evaluate()
			if err != nil {
				panic(err)
			}
			fmt.Printf("step %2d: objective %.3f, outputs %+.2f\n", step, ev.Objective, ev.Train)
		}
		if err := s.Step(all, 1); err != nil {
			panic(err)
		}
	}
	// Output:
	// step  0: objective 1.000, outputs [+0.00 +0.00 +0.00 +0.00]
	// step 20: objective 0.021, outputs [+1.08 +1.17 -1.12 -1.21]
	// step 40: objective 0.018, outputs [+1.02 +1.10 -1.06 -1.12]
}
