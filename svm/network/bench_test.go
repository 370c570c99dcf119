package network

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// BenchmarkNetworkStep is one full-batch step of the paper's Fig. 1
// network (L = 2 hidden layers of m = 10,000, n = 128 MNIST-sized inputs,
// d = 784, float32, mean hinge, λ = 0.001, η = 0.1): forward, backward and
// the in-place update with the penalty. It reports GFLOP/s counting
// 2·n·P for the forward pass and 4·n·P for the backward pass, P the
// number of weights.
func BenchmarkNetworkStep(b *testing.B) {
	const d, m, depth, n = 784, 10000, 2, 128
	net, err := ntk.NewNetwork[float32](d, m, depth, 1, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x := linalg.New[float32](n, d)
	for i := range x.Data {
		x.Data[i] = rng.Float32()
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(1 - 2*(i%2))
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	params := float64(m*d + m*m*(depth-1) + m)
	for _, reg := range []Regularization{RegPaper, RegTheory} {
		b.Run(fmt.Sprintf("reg=%v/L=%d,m=%d,n=%d,d=%d", reg, depth, m, n, d), func(b *testing.B) {
			s, err := NewStepper(net, x, y, linalg.Matrix[float32]{}, Config{
				Loss: svm.Hinge, Lambda: 0.001, Objective: svm.ObjectiveMean, Reg: reg})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Step(all, 0.1); err != nil { // allocate the workspace
				b.Fatal(err)
			}
			for b.Loop() {
				if err := s.Step(all, 0.1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(6*n*params*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
