package extract_test

import (
	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/extract"
)

// ExampleExtractor trains a small network by full-batch gradient descent
// on the mean squared loss with the paper's penalty λ/2‖W_last/√m‖², lets
// an Extractor observe every step, and compares the network with the
// kernel machine K_T a + b of Theorem 4.1.
func ExampleExtractor() {
	x, _ := linalg.FromSlice(4, 2, []float64{
		1, 0.2,
		0.2, 1,
		-1, 0.3,
		0.4, -1,
	})
	y := []float64{1, -1, 0.5, -0.5}
	const width, lambda, eta, steps = 256, 0.1, 0.05, 100
	net, _ := ntk.NewNetwork[float64](2, width, 1, 1, 0, 1)
	rate, _ := extract.DecayRate("paper", lambda, width) // f decays at λ/m
	e, err := extract.NewExtractor(x, y, linalg.Matrix[float64]{}, extract.Config{
		Loss: svm.Squared, Objective: svm.ObjectiveMean, Decay: rate, Target: extract.DecayToZero,
	})
	if err != nil {
		panic(err)
	}
	_ = e.Observe(net, 0, nil) // the initialisation
	for k := 1; k <= steps; k++ {
		// One GD step: c = s·l'(f) for the loss, then the penalty's gradient.
		p, _ := net.Forward(x)
		c := make([]float64, len(y))
		for i := range c {
			c[i] = svm.Squared.Deriv(p.F[i], y[i]) / float64(len(y))
		}
		g, _ := net.Backward(p, c)
		for l := range net.W {
			for i := range net.W[l].Data {
				d := g.W[l].Data[i]
				if l == net.Depth {
					d += lambda * net.W[l].Data[i] / width
				}
				net.W[l].Data[i] -= eta * d
			}
		}
		_ = e.Observe(net, eta*float64(k), nil)
	}
	r, _ := e.Report()
	fmt.Printf("T = %.0f, a = %v, sign breaks: %d\n", r.T, e.Weights(), len(r.SignBreaks))
	for i := range y {
		fmt.Printf("network %+.3f  kernel machine %+.3f\n", r.TrainNN[i], r.TrainKM[i])
	}
	fmt.Printf("max difference below 0.01: %v\n", r.TrainMaxAbs < 0.01)
	// Output:
	// T = 5, a = [1 -1 1 -1], sign breaks: 0
	// network +0.579  kernel machine +0.582
	// network -0.413  kernel machine -0.412
	// network +0.099  kernel machine +0.096
	// network -0.278  kernel machine -0.277
	// max difference below 0.01: true
}
