package genbound_test

import (
	"fmt"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/genbound"
)

// The paper's Fig. B.2 setting, and what a valid bound needs: δ defaults to
// 0.01, while the authors' generalization.py used 0.99.
func ExamplePreset() {
	c, err := genbound.Preset("figB2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d training points, width %d, L = %d, η = %g for %d steps (t = %g), λ = %g, %s %s loss, %s penalty\n",
		c.NTrain, c.Width, c.Depth, c.LR, c.Steps, c.LR*float64(c.Steps), c.Lambda, c.Objective, c.Loss, c.Reg)
	c.Width = 0
	fmt.Println(c.Validate())
	// Output:
	// 1000 training points, width 100, L = 1, η = 0.1 for 100 steps (t = 10), λ = 0.001, mean hinge loss, paper penalty
	// genbound: bad configuration: width = 0; want ≥ 1
}
