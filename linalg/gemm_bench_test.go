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

// BenchmarkGemmSmall times small products C = A·B on one thread through
// the direct kernels (path=direct, whatever the size threshold says) and
// through packing (path=packed), on the active kernel set if it has direct
// kernels. The last shapes probe the limits in directShape: directMaxWork
// (256³), directMaxBFrac (float64 64×64×2048 and 64×512×512) and
// directMaxRow (64×1024×128).
func BenchmarkGemmSmall(b *testing.B) {
	shapes := [][3]int{{16, 16, 16}, {32, 32, 32}, {64, 64, 64}, {128, 128, 128}, {256, 256, 256},
		{17, 33, 65}, {8, 512, 512}, {512, 8, 512}, {64, 64, 2048}, {64, 512, 512}, {64, 1024, 128}}
	benchGemmSmall[float32](b, "float32", shapes)
	benchGemmSmall[float64](b, "float64", shapes)
}

func benchGemmSmall[T Float](b *testing.B, dtype string, shapes [][3]int) {
	ks := asm.Active()
	mr, nr, f := directFor[T](ks)
	if f == nil {
		b.Skipf("%s has no direct kernels", ks.Name())
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		a := randMatrix[T](rng, m, k, 0)
		bb := randMatrix[T](rng, k, n, 0)
		c := New[T](m, n)
		for _, path := range []string{"direct", "packed"} {
			name := fmt.Sprintf("%s/impl=%s/path=%s/m=%d,n=%d,k=%d", dtype, ks.Name(), path, m, n, k)
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					if path == "packed" {
						if err := gemmWith(gemmConfig{kern: ks, threads: 1, noSmall: true}, NoTrans, NoTrans, 1, a, bb, 0, c); err != nil {
							b.Fatal(err)
						}
						continue
					}
					p := &gemmProblem[T]{alpha: 1, a: a, b: bb, c: c, m: m, n: n, k: k}
					p.directTiles(mr, nr, f, 1)
				}
				b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkPackA times packing op(A) = A, 128×10000 in k blocks of 512,
// scaled by alpha, with packA's interleaving loop ("loop") and with
// packAOp on the active set ("kernel": its scaled-transpose kernel when
// the set has one and mr is 8).
func BenchmarkPackA(b *testing.B) {
	const m, k, kc = 128, 10000, 512
	a := randMatrix[float32](rand.New(rand.NewPCG(1, 1)), m, k, 0)
	ks := asm.Active()
	for _, alpha := range []float32{1, 0.01} {
		p := &gemmProblem[float32]{a: a, alpha: alpha}
		p.mr, p.nr, p.tile = kernelFor[float32](ks)
		p.scaledTranspose = scaledTransposeFor[float32](ks)
		p.packRows8 = p.mr == 8 && ks.HasTranspose32()
		ws := make([]float32, roundUp(m, p.mr)*kc)
		b.Run(fmt.Sprintf("alpha=%g/loop", alpha), func(b *testing.B) {
			for b.Loop() {
				for pc := 0; pc < k; pc += kc {
					packA(ws, a, false, alpha, 0, m, pc, min(kc, k-pc), p.mr)
				}
			}
		})
		b.Run(fmt.Sprintf("alpha=%g/kernel", alpha), func(b *testing.B) {
			for b.Loop() {
				for pc := 0; pc < k; pc += kc {
					p.packAOp(ws, 0, m, pc, min(kc, k-pc))
				}
			}
		})
	}
}
