package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// BenchmarkGemm times C = A·B on every kernel set and on 1 thread and all
// threads, reporting GFLOP/s. The generic set only runs the smallest shape.
func BenchmarkGemm(b *testing.B) {
	benchGemm[float32](b, "float32")
	benchGemm[float64](b, "float64")
}

func benchGemm[T Float](b *testing.B, dtype string) {
	// The last two are the paper's M-skinny products (M = 128 rows of
	// samples against N = 10000 columns).
	shapes := [][3]int{{64, 64, 64}, {256, 256, 256}, {1024, 1024, 1024}, {128, 10000, 784}, {128, 10000, 10000}}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, ks := range asm.Available() {
		for i, s := range shapes {
			if ks.Name() == "generic" && i > 1 {
				continue
			}
			m, n, k := s[0], s[1], s[2]
			a := randMatrix[T](rng, m, k, 0)
			bb := randMatrix[T](rng, k, n, 0)
			c := New[T](m, n)
			for _, th := range []int{1, Threads()} {
				name := fmt.Sprintf("%s/impl=%s/threads=%d/m=%d,n=%d,k=%d", dtype, ks.Name(), th, m, n, k)
				b.Run(name, func(b *testing.B) {
					cfg := gemmConfig{kern: ks, threads: th}
					for b.Loop() {
						if err := gemmWith(cfg, NoTrans, NoTrans, 1, a, bb, 0, c); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
				if th == Threads() {
					break
				}
			}
		}
	}
}

// BenchmarkGram times Gram on an MNIST-like 4096×784 matrix, counting the
// full 2·n²·k flops.
func BenchmarkGram(b *testing.B) {
	n, k := 4096, 784
	a := randMatrix[float32](rand.New(rand.NewPCG(2, 2)), n, k, 0)
	c := New[float32](n, n)
	for _, th := range []int{1, Threads()} {
		b.Run(fmt.Sprintf("impl=%s/threads=%d/n=%d,k=%d", asm.Implementation(), th, n, k), func(b *testing.B) {
			for b.Loop() {
				if err := gramWith(gemmConfig{threads: th}, a, c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(n*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		if th == Threads() {
			break
		}
	}
}
