package ibp

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// BenchmarkBound times one bound of a 2-layer NTK machine with n = 12,665
// training points of d = 784: both ends, and the one end Search uses.
func BenchmarkBound(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	km := randMachine(rng, 12665, 784, ntk.DefaultSpec(1))
	c, err := NewKernel(context.Background(), km, randMatrix(rng, 1, 784), KernelOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ball := Ball{Linf, 1e-4}
	b.Run("end=both", func(b *testing.B) {
		for b.Loop() {
			c.Bound(0, ball)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/12665, "ns/pair")
	})
	b.Run("end=lower", func(b *testing.B) {
		for b.Loop() {
			c.BoundEnd(0, ball, true)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/12665, "ns/pair")
	})
}
