package ntk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// BenchmarkGram times the NTK Gram against the bare Gram GEMM of the same
// X (compare ns/op of the two); the difference is the recursion and mirror.
func BenchmarkGram(b *testing.B) {
	for _, n := range []int{1000, 3000} {
		const d = 784
		rng := rand.New(rand.NewPCG(1, 1))
		x := linalg.New[float64](n, d)
		for i := range x.Data {
			x.Data[i] = rng.Float64()
		}
		k := linalg.New[float64](n, n)
		b.Run(fmt.Sprintf("op=gemm/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := linalg.Gram(x, k); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, L := range []int{1, 3} {
			b.Run(fmt.Sprintf("op=ntk/n=%d/L=%d", n, L), func(b *testing.B) {
				for b.Loop() {
					if err := GramInto(context.Background(), x, DefaultParams(L), Options{}, k, linalg.Matrix[float64]{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
