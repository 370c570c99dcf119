package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// dotCase fills a (float32 or float64) and x (float64 or float32) with
// random values of both signs and spread magnitudes.
func randSlice[T float](rng *rand.Rand, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(rng.NormFloat64() * math.Exp2(float64(rng.IntN(9)-4)))
	}
	return s
}

// dotBound returns the allowed difference between two summation orders of
// Σ|a[i]·x[i]| = abs over n terms with unit roundoff eps.
func dotBound(n int, abs, eps float64) float64 { return 2 * float64(n+4) * eps * abs }

// TestDot checks every dot kernel against the Go twin for every length
// 0…200 and misaligned starts, within a summation-order bound.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for n := 0; n <= 200; n++ {
				for off := range 4 {
					a32 := randSlice[float32](rng, n+off)[off:]
					a64 := randSlice[float64](rng, n+off)[off:]
					x64 := randSlice[float64](rng, n+off+1)[off+1:]
					x32 := randSlice[float32](rng, n+off+3)[off+3:]
					var abs1, abs2, abs3 float64
					for i := range n {
						abs1 += math.Abs(float64(a32[i]) * x64[i])
						abs2 += math.Abs(a64[i] * x64[i])
						abs3 += math.Abs(float64(a32[i]) * float64(x32[i]))
					}
					if got, want := k.DotF32F64(a32, x64), dotGeneric(a32, x64); math.Abs(got-want) > dotBound(n, abs1, 0x1p-53) {
						t.Fatalf("DotF32F64 n=%d off=%d: %v, twin %v", n, off, got, want)
					}
					if got, want := k.Dot64(a64, x64), dotGeneric(a64, x64); math.Abs(got-want) > dotBound(n, abs2, 0x1p-53) {
						t.Fatalf("Dot64 n=%d off=%d: %v, twin %v", n, off, got, want)
					}
					if got, want := k.Dot32(a32, x32), dotGeneric(a32, x32); math.Abs(float64(got-want)) > dotBound(n, abs3, 0x1p-24) {
						t.Fatalf("Dot32 n=%d off=%d: %v, twin %v", n, off, got, want)
					}
					var s32, s64 float64
					for i := range n {
						s32 += math.Abs(float64(a32[i]))
						s64 += math.Abs(a64[i])
					}
					if got, want := k.Sum32(a32), sumGeneric(a32); math.Abs(float64(got-want)) > dotBound(n, s32, 0x1p-24) {
						t.Fatalf("Sum32 n=%d off=%d: %v, twin %v", n, off, got, want)
					}
					if got, want := k.Sum64(a64), sumGeneric(a64); math.Abs(got-want) > dotBound(n, s64, 0x1p-53) {
						t.Fatalf("Sum64 n=%d off=%d: %v, twin %v", n, off, got, want)
					}
				}
			}
		})
	}
}

// TestDotRows4 checks that the four-row dots give exactly the bits of
// four DotF32F64 (Dot64) calls, for every length 0…200 and strides with padding.
func TestDotRows4(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for n := 0; n <= 200; n++ {
				for _, pad := range []int{0, 1, 7} {
					lda := n + pad
					a := randSlice[float32](rng, 3*lda+n)
					x := randSlice[float64](rng, n)
					var got [4]float64
					k.DotRows4F32F64(&got, a, lda, x)
					for r := range 4 {
						if want := k.DotF32F64(a[r*lda:][:n], x); math.Float64bits(got[r]) != math.Float64bits(want) {
							t.Fatalf("n=%d lda=%d row %d: %v, DotF32F64 %v", n, lda, r, got[r], want)
						}
					}
					a64 := randSlice[float64](rng, 3*lda+n)
					k.Dot64Rows4(&got, a64, lda, x)
					for r := range 4 {
						if want := k.Dot64(a64[r*lda:][:n], x); math.Float64bits(got[r]) != math.Float64bits(want) {
							t.Fatalf("Dot64Rows4 n=%d lda=%d row %d: %v, Dot64 %v", n, lda, r, got[r], want)
						}
					}
				}
			}
		})
	}
}

// TestSumRows4 checks the four-row sums on small integers (every order
// exact, so a dropped, doubled or padding element shows) for every length
// 0…200 and strides with padding, and against the Go twin on random data.
func TestSumRows4(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for n := 0; n <= 200; n++ {
				for _, pad := range []int{0, 3, 16} {
					lda := n + pad
					a32 := make([]float32, 3*lda+n)
					a64 := make([]float64, 3*lda+n)
					want := 0
					for i := range a32 {
						v := rng.IntN(19) - 9
						if i%lda >= n && lda > 0 {
							v = 1 << 20 // padding: must not be read
						} else {
							want += v
						}
						a32[i], a64[i] = float32(v), float64(v)
					}
					if got := k.Sum32Rows4(a32, lda, n); got != float32(want) {
						t.Fatalf("Sum32Rows4 n=%d lda=%d: %v, want %d", n, lda, got, want)
					}
					if got := k.Sum64Rows4(a64, lda, n); got != float64(want) {
						t.Fatalf("Sum64Rows4 n=%d lda=%d: %v, want %d", n, lda, got, want)
					}
					r64 := randSlice[float64](rng, 3*lda+n)
					var abs float64
					for r := range 4 {
						for _, v := range r64[r*lda:][:n] {
							abs += math.Abs(v)
						}
					}
					if got, want := k.Sum64Rows4(r64, lda, n), sumRows4Generic(r64, lda, n); math.Abs(got-want) > dotBound(4*n, abs, 0x1p-53) {
						t.Fatalf("Sum64Rows4 n=%d lda=%d: %v, twin %v", n, lda, got, want)
					}
				}
			}
		})
	}
}

// TestDotExact checks sums whose every order is exact (small integers), so
// that a kernel dropping or doubling an element cannot hide in the bound.
func TestDotExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for n := 0; n <= 200; n++ {
				a32, x32 := make([]float32, n), make([]float32, n)
				a64, x64 := make([]float64, n), make([]float64, n)
				var want, sum int
				for i := range n {
					p, q := rng.IntN(17)-8, rng.IntN(17)-8
					a32[i], x32[i], a64[i], x64[i] = float32(p), float32(q), float64(p), float64(q)
					want += p * q
					sum += p
				}
				for name, got := range map[string]float64{
					"DotF32F64": k.DotF32F64(a32, x64),
					"Dot64":     k.Dot64(a64, x64),
					"Dot32":     float64(k.Dot32(a32, x32)),
				} {
					if got != float64(want) {
						t.Fatalf("%s n=%d: %v, want %d", name, n, got, want)
					}
				}
				if got := k.Sum32(a32); got != float32(sum) {
					t.Fatalf("Sum32 n=%d: %v, want %d", n, got, sum)
				}
				if got := k.Sum64(a64); got != float64(sum) {
					t.Fatalf("Sum64 n=%d: %v, want %d", n, got, sum)
				}
			}
		})
	}
}

// TestAxpy checks both axpy kernels bit for bit against the Go twin for
// every length 0…200 and misaligned starts, with canaries around y.
func TestAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const guard = 8
	canary := math.Float64frombits(0x7ff4dead0000beef)
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for n := 0; n <= 200; n++ {
				for off := range 4 {
					alpha := rng.NormFloat64()
					a32 := randSlice[float32](rng, n+off)[off:]
					a64 := randSlice[float64](rng, n+off)[off:]
					y0 := randSlice[float64](rng, n)
					for name, run := range map[string]func(y []float64) []float64{
						"AxpyF32F64": func(y []float64) []float64 {
							k.AxpyF32F64(alpha, a32, y)
							w := append([]float64(nil), y0...)
							axpyGeneric(alpha, a32, w)
							return w
						},
						"Axpy64": func(y []float64) []float64 {
							k.Axpy64(alpha, a64, y)
							w := append([]float64(nil), y0...)
							axpyGeneric(alpha, a64, w)
							return w
						},
					} {
						buf := make([]float64, n+2*guard+off)
						for i := range buf {
							buf[i] = canary
						}
						y := buf[guard+off : guard+off+n]
						copy(y, y0)
						want := run(y)
						for i := range y {
							if math.Float64bits(y[i]) != math.Float64bits(want[i]) {
								t.Fatalf("%s n=%d off=%d: y[%d] = %v, twin %v", name, n, off, i, y[i], want[i])
							}
						}
						for i, v := range buf {
							if (i < guard+off || i >= guard+off+n) && math.Float64bits(v) != math.Float64bits(canary) {
								t.Fatalf("%s n=%d off=%d: guard %d overwritten", name, n, off, i)
							}
						}
					}
				}
			}
		})
	}
}

// TestDotSpecials checks NaN and infinity propagation at every position
// of lengths around the vector sizes.
func TestDotSpecials(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for _, n := range []int{1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100} {
				for pos := range n {
					for _, c := range []struct {
						name string
						v    float64
						want func(float64) bool
					}{
						{"NaN", nan, math.IsNaN},
						{"+Inf", inf, func(v float64) bool { return math.IsInf(v, 1) }},
						{"-Inf", -inf, func(v float64) bool { return math.IsInf(v, -1) }},
					} {
						a32, x32 := make([]float32, n), make([]float32, n)
						a64, x64 := make([]float64, n), make([]float64, n)
						for i := range n {
							a32[i], a64[i], x32[i], x64[i] = 1, 1, 0.5, 0.5
						}
						a32[pos], a64[pos] = float32(c.v), c.v
						for name, got := range map[string]float64{
							"DotF32F64": k.DotF32F64(a32, x64),
							"Dot64":     k.Dot64(a64, x64),
							"Dot32":     float64(k.Dot32(a32, x32)),
							"Sum32":     float64(k.Sum32(a32)),
							"Sum64":     k.Sum64(a64),
						} {
							if !c.want(got) {
								t.Fatalf("%s n=%d: %s at %d gives %v", name, n, c.name, pos, got)
							}
						}
						if c.name == "+Inf" && n > 1 {
							a64[(pos+1)%n], a32[(pos+1)%n] = -inf, float32(-inf)
							if v := k.Dot64(a64, x64); !math.IsNaN(v) {
								t.Fatalf("Dot64 n=%d: +Inf and -Inf give %v", n, v)
							}
							if v := k.Sum32(a32); !math.IsNaN(float64(v)) {
								t.Fatalf("Sum32 n=%d: +Inf and -Inf give %v", n, v)
							}
						}
						y := make([]float64, n)
						k.AxpyF32F64(1, a32, y)
						if !c.want(y[pos]) {
							t.Fatalf("AxpyF32F64 n=%d: %s at %d gives %v", n, c.name, pos, y[pos])
						}
					}
				}
			}
		})
	}
}

// TestDotPanics checks that mismatched lengths panic.
func TestDotPanics(t *testing.T) {
	for name, fn := range map[string]func(){
		"DotF32F64":  func() { DotF32F64(make([]float32, 3), make([]float64, 4)) },
		"Dot64":      func() { Dot64(make([]float64, 3), make([]float64, 2)) },
		"Dot32":      func() { Dot32(make([]float32, 9), make([]float32, 8)) },
		"AxpyF32F64": func() { AxpyF32F64(1, make([]float32, 3), make([]float64, 4)) },
		"Axpy64":     func() { Axpy64(1, make([]float64, 5), make([]float64, 4)) },
		"DotRows4":   func() { DotRows4F32F64(new([4]float64), make([]float32, 3*4+3), 4, make([]float64, 4)) },
		"Dot64Rows4": func() { Dot64Rows4(new([4]float64), make([]float64, 3*4+3), 4, make([]float64, 4)) },
		"SumRows4":   func() { Sum32Rows4(make([]float32, 3*8+7), 8, 8) },
		"SumRows4ld": func() { Sum64Rows4(make([]float64, 100), 4, 5) },
		"DotRows4ld": func() { DotRows4F32F64(new([4]float64), make([]float32, 100), 2, make([]float64, 4)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on mismatched lengths", name)
				}
			}()
			fn()
		}()
	}
}

// BenchmarkDot measures the level-1 kernels on an L2-resident length and
// on a Gram-row-sized one, in bytes of a (and x or y) moved.
func BenchmarkDot(b *testing.B) {
	for _, k := range available {
		for _, n := range []int{4096, 1 << 20} {
			a32, a64 := make([]float32, n), make([]float64, n)
			x32, x64 := make([]float32, n), make([]float64, n)
			name := func(op string) string { return fmt.Sprintf("op=%s/impl=%s/n=%d", op, k.name, n) }
			var sink float64
			b.Run(name("DotF32F64"), func(b *testing.B) {
				b.SetBytes(int64(12 * n))
				for b.Loop() {
					sink += k.DotF32F64(a32, x64)
				}
			})
			b.Run(name("DotRows4F32F64"), func(b *testing.B) {
				m := n / 4
				var d [4]float64
				b.SetBytes(int64(4*4*m + 8*m))
				for b.Loop() {
					k.DotRows4F32F64(&d, a32, m, x64[:m])
				}
				sink += d[0]
			})
			b.Run(name("Dot64"), func(b *testing.B) {
				b.SetBytes(int64(16 * n))
				for b.Loop() {
					sink += k.Dot64(a64, x64)
				}
			})
			b.Run(name("Dot32"), func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					sink += float64(k.Dot32(a32, x32))
				}
			})
			b.Run(name("AxpyF32F64"), func(b *testing.B) {
				b.SetBytes(int64(20 * n))
				for b.Loop() {
					k.AxpyF32F64(1e-9, a32, x64)
				}
			})
			b.Run(name("Axpy64"), func(b *testing.B) {
				b.SetBytes(int64(24 * n))
				for b.Loop() {
					k.Axpy64(1e-9, a64, x64)
				}
			})
			b.Run(name("Sum32"), func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					sink += float64(k.Sum32(a32))
				}
			})
			_ = sink
		}
	}
}
