package ntk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// BenchmarkGram times the NTK Gram against the bare Gram GEMM of the same
// X (compare ns/op of the two); the difference is the recursion and mirror
// (op=ntk-lower: the recursion alone, Options.Lower).
func BenchmarkGram(b *testing.B) {
	benchGram[float64](b, "float64")
	benchGram[float32](b, "float32")
}

func benchGram[T linalg.Float](b *testing.B, dtype string) {
	for _, n := range []int{1000, 3000} {
		const d = 784
		rng := rand.New(rand.NewPCG(1, 1))
		x := linalg.New[T](n, d)
		for i := range x.Data {
			x.Data[i] = T(rng.Float64())
		}
		k := linalg.New[T](n, n)
		b.Run(fmt.Sprintf("%s/op=gemm/n=%d", dtype, n), func(b *testing.B) {
			for b.Loop() {
				if err := linalg.Gram(x, k); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, L := range []int{1, 3} {
			for _, lower := range []bool{false, true} {
				op := "ntk"
				if lower {
					op = "ntk-lower"
				}
				b.Run(fmt.Sprintf("%s/op=%s/n=%d/L=%d", dtype, op, n, L), func(b *testing.B) {
					for b.Loop() {
						if err := FillGram(context.Background(), DefaultSpec(L), x, Options{Lower: lower}, k); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkForwardBackward is one forward+backward pass of an L = 2 network
// of width 4000 on a batch of 128 (the Fig. 1 shape at a smaller width).
func BenchmarkForwardBackward(b *testing.B) {
	const n, d, m = 128, 784, 4000
	net, err := NewNetwork[float32](d, m, 2, 1, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	x := linalg.New[float32](n, d)
	c := make([]float32, n)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range x.Data {
		x.Data[i] = float32(rng.Float64())
	}
	for i := range c {
		c[i] = float32(rng.NormFloat64())
	}
	var p Pass[float32]
	var g Grads[float32]
	flops := 6*float64(n)*(float64(d*m)+float64(m*m)+float64(m)) - 2*float64(n)*float64(d*m)
	for b.Loop() {
		if err := net.ForwardInto(&p, x); err != nil {
			b.Fatal(err)
		}
		if err := net.BackwardInto(&g, &p, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
