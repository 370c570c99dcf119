package reproduce_test

import (
	"fmt"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/reproduce"
)

// Judge compares one of our numbers with the paper's as printed: a match
// to the paper's precision, a difference inside the row's tolerance, or
// outside it.
func ExampleJudge() {
	for _, ours := range []float64{7.97334e-3, 7.9743e-3, 8.3e-3} {
		v, d, _ := reproduce.Judge("7.9733e-3", ours, reproduce.Rel(0.02))
		fmt.Printf("%s: %s (%s)\n", reproduce.FormatLike("7.9733e-3", ours), v, reproduce.FormatDiff("7.9733e-3", d))
	}
	// Output:
	// 7.97334e-3: match (+0.00004e-3 (+0.0005 %))
	// 7.97430e-3: within tolerance (+0.00100e-3 (+0.013 %))
	// 8.30000e-3: differs (+0.32670e-3 (+4.1 %))
}

// The registry holds the paper's experiments in order; --only selects
// some of them by name.
func ExampleRegistry_Select() {
	sel, err := reproduce.Default.Select("figB2,table3")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range sel {
		fmt.Println(e.Name)
	}
	_, err = reproduce.Default.Select("table9")
	fmt.Println(err != nil)
	// Output:
	// table3
	// figB2
	// true
}
