package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks, named impl=<set>/… so that "benchstat -col /impl" compares
// the sets; "impl=copy" is the memory-copy baseline of the same size.

var reluSizes = []int{1 << 10, 1 << 16, 1 << 22}

func BenchmarkReLU(b *testing.B) {
	for _, n := range reluSizes {
		benchReLU[float32](b, "float32", n, func(k *Kernels) func(dst, x []float32) { return k.ReLU32 })
		benchReLU[float64](b, "float64", n, func(k *Kernels) func(dst, x []float64) { return k.ReLU64 })
	}
}

func benchReLU[T float](b *testing.B, dtype string, n int, fn func(*Kernels) func(dst, x []T)) {
	x := alignedFloats[T](n, 0)
	randomWithSpecials(rand.New(rand.NewPCG(5, 6)), x)
	dst := alignedFloats[T](n, 0)
	bytes := int64(2 * n * int(sizeOf[T]()))
	b.Run(fmt.Sprintf("impl=copy/dtype=%s/n=%d", dtype, n), func(b *testing.B) {
		b.SetBytes(bytes)
		for b.Loop() {
			copy(dst, x)
		}
	})
	for _, k := range available {
		relu := fn(k)
		b.Run(fmt.Sprintf("impl=%s/dtype=%s/n=%d", k.name, dtype, n), func(b *testing.B) {
			b.SetBytes(bytes)
			for b.Loop() {
				relu(dst, x)
			}
		})
	}
}

func BenchmarkReLUGrad(b *testing.B) {
	n := 1 << 16
	x := alignedFloats[float32](n, 0)
	g := alignedFloats[float32](n, 0)
	dst := alignedFloats[float32](n, 0)
	rng := rand.New(rand.NewPCG(7, 8))
	randomWithSpecials(rng, x)
	randomWithSpecials(rng, g)
	for _, k := range available {
		b.Run(fmt.Sprintf("impl=%s/dtype=float32/n=%d", k.name, n), func(b *testing.B) {
			b.SetBytes(int64(12 * n))
			for b.Loop() {
				k.ReLUGrad32(dst, g, x)
			}
		})
	}
}

// sizeOf is the size of T in bytes.
func sizeOf[T float]() uintptr {
	var z T
	if _, ok := any(z).(float32); ok {
		return 4
	}
	return 8
}

// BenchmarkGemmTile applies the full-tile kernel over packed panels that
// stay in L1/L2: 8 A panels × 4 B panels of depth k, as the macro-kernel
// of a blocked GEMM would, and reports GFLOP/s.
func BenchmarkGemmTile(b *testing.B) {
	for _, kc := range []int{64, 256, 384} {
		for _, k := range available {
			benchTile(b, k.name, "float32", kc, tiles32(k))
			benchTile(b, k.name, "float64", kc, tiles64(k))
		}
	}
}

func benchTile[T float](b *testing.B, name, dtype string, kc int, f tileFuncs[T]) {
	const ma, nb = 8, 4
	rng := rand.New(rand.NewPCG(9, 10))
	a := make([]T, ma*kc*f.mr)
	bp := make([]T, nb*kc*f.nr)
	for i := range a {
		a[i] = T(rng.Float64())
	}
	for i := range bp {
		bp[i] = T(rng.Float64())
	}
	ldc := nb * f.nr
	c := make([]T, ma*f.mr*ldc)
	b.Run(fmt.Sprintf("impl=%s/dtype=%s/m=%d,n=%d,k=%d", name, dtype, f.mr, f.nr, kc), func(b *testing.B) {
		for b.Loop() {
			for j := range nb {
				bj := bp[j*kc*f.nr : (j+1)*kc*f.nr]
				for i := range ma {
					f.raw(kc, a[i*kc*f.mr:(i+1)*kc*f.mr], bj, c[i*f.mr*ldc+j*f.nr:], ldc)
				}
			}
		}
		flops := 2 * float64(ma*nb*f.mr*f.nr*kc) * float64(b.N)
		b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	})
}

// BenchmarkPeakFMA measures each set's FMA peak, the baseline of
// BenchmarkGemmTile.
func BenchmarkPeakFMA(b *testing.B) {
	for _, k := range available {
		for _, tc := range []struct {
			dtype string
			fn    func(int) int
		}{{"float32", k.PeakFMA32}, {"float64", k.PeakFMA64}} {
			b.Run(fmt.Sprintf("impl=%s/dtype=%s", k.name, tc.dtype), func(b *testing.B) {
				flops := 0
				for b.Loop() {
					flops += tc.fn(1000)
				}
				b.ReportMetric(float64(flops)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
