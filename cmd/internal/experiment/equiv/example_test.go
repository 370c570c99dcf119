package equiv_test

import (
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/equiv"
)

// The paper's Fig. 1 as runs: every width at the first step size, the
// widest width at the second.
func ExamplePreset() {
	c, err := equiv.Preset("fig1", false)
	if err != nil {
		panic(err)
	}
	for _, r := range c.Runs(128) {
		fmt.Printf("m = %d, η = %g: %d steps (t = %g)\n", r.Width, r.LR, r.Steps, float64(r.Steps)*r.LR)
	}
	// Output:
	// m = 10000, η = 0.1: 10000 steps (t = 1000)
	// m = 900, η = 0.1: 10000 steps (t = 1000)
	// m = 10000, η = 0.01: 100000 steps (t = 1000)
}

// A gap that shrinks like 1/√m has a log–log slope of −1/2.
func ExampleFitLogLog() {
	widths := []float64{256, 1024, 4096, 16384}
	gaps := make([]float64, len(widths))
	for i, m := range widths {
		gaps[i] = 3 / math.Sqrt(m)
	}
	slope, se, _ := equiv.FitLogLog(widths, gaps)
	fmt.Printf("slope %.3f ± %.3f\n", slope, se)
	// Output: slope -0.500 ± 0.000
}
