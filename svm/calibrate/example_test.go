package calibrate_test

import (
	"fmt"

	"github.com/ntksvm/ntksvm/svm/calibrate"
)

func ExampleCouple() {
	// Three classes; r[i*3+j] is P(class i | class i or j).
	r := []float64{
		0, 0.6, 0.8,
		0.4, 0, 0.7,
		0.2, 0.3, 0,
	}
	p := make([]float64, 3)
	calibrate.Couple(p, r)
	fmt.Printf("%.3f %.3f %.3f\n", p[0], p[1], p[2])
	// Output: 0.520 0.342 0.137
}

func ExampleFitSigmoid() {
	dec := []float64{-2, -1.5, -0.3, 0.2, 0.4, 1.1, 1.8, 2.5}
	pos := []bool{false, false, true, false, true, true, true, true}
	s, _, _ := calibrate.FitSigmoid(dec, pos)
	fmt.Printf("P(+1 | f = 1) = %.3f\n", s.Prob(1))
	// Output: P(+1 | f = 1) = 0.764
}
