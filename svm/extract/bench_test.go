package extract

import (
	"github.com/ntksvm/ntksvm/svm"

	"math/rand/v2"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// BenchmarkExtract times one Extractor observation (forward pass,
// per-layer Θ̂ on n×n, accumulation) against one full-batch training step
// (forward, backward, update) of the Fig. B.2 network: n = 1000, d = 784,
// L = 1, m = 100, float64, mean hinge, the paper's penalty; the same in
// float32; and a case bound by the n² passes over the kernel (n = 2000,
// small d and m, two hidden layers). The two are interleaved in every
// iteration, so machine load hits both alike, and the ratio is reported
// as observe/step.
func BenchmarkExtract(b *testing.B) {
	b.Run("dtype=float64/n=1000,d=784,m=100", func(b *testing.B) { benchmarkExtract[float64](b, 1000, 784, 100, 1) })
	b.Run("dtype=float32/n=1000,d=784,m=100", func(b *testing.B) { benchmarkExtract[float32](b, 1000, 784, 100, 1) })
	b.Run("dtype=float64/n=2000,d=50,m=50,L=2", func(b *testing.B) { benchmarkExtract[float64](b, 2000, 50, 50, 2) })
}

func benchmarkExtract[T linalg.Float](b *testing.B, n, d, m, depth int) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := linalg.New[T](n, d)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(1 - 2*(i%2))
		for j := range d {
			if rng.Float64() < 0.2 { // MNIST-like: about a fifth of the pixels are ink
				x.Set(i, j, T(rng.Float64()))
			}
		}
	}
	net, err := ntk.NewNetwork[T](d, m, depth, 1, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	rate, _ := DecayRate("paper", 0.001, m)
	e, err := NewExtractor(x, y, linalg.Matrix[T]{}, Config{Loss: svm.Hinge, Objective: svm.ObjectiveMean, Decay: rate, SubtractInit: true})
	if err != nil {
		b.Fatal(err)
	}
	g, err := newNetGD(net, x, y, svm.Hinge, svm.ObjectiveMean, 0.001, "paper", true)
	if err != nil {
		b.Fatal(err)
	}
	if err := e.Observe(net, 0, nil); err != nil {
		b.Fatal(err)
	}
	var step, obs time.Duration
	k := 0
	for b.Loop() {
		k++
		t0 := time.Now()
		if err := g.step(0.1, nil); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := e.Observe(net, 0.1*float64(k), nil); err != nil {
			b.Fatal(err)
		}
		step += t1.Sub(t0)
		obs += time.Since(t1)
	}
	b.ReportMetric(float64(step.Nanoseconds())/float64(k), "ns/step")
	b.ReportMetric(float64(obs.Nanoseconds())/float64(k), "ns/observe")
	b.ReportMetric(float64(obs)/float64(step), "observe/step")
}
