package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// axpyWideRef is AxpyWide in plain Go: one fused multiply-add per element.
func axpyWideRef[T Float](alpha float64, x []T, y []float64) {
	for i, v := range x {
		y[i] = math.FMA(alpha, float64(v), y[i])
	}
}

// sameBits reports whether a and b are equal bit for bit, any NaN equal to
// any NaN.
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func testAxpyWide[T Float](t *testing.T, rng *rand.Rand) {
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 0x1p-140, 1e30}
	for n := 0; n <= 100; n++ {
		for off := range 3 {
			x := make([]T, n+off)[off:]
			y := make([]float64, n+off+2)[off : off+n+2] // one canary after the end
			for i := range x {
				x[i] = T(rng.NormFloat64())
				y[i] = rng.NormFloat64()
				if rng.IntN(16) == 0 {
					x[i] = T(specials[rng.IntN(len(specials))])
				}
				if rng.IntN(16) == 0 {
					y[i] = specials[rng.IntN(len(specials))]
				}
			}
			y[n], y[n+1] = 7, 7
			want := append([]float64(nil), y...)
			alpha := rng.NormFloat64()
			axpyWideRef(alpha, x, want[:n])
			AxpyWide(alpha, x, y[:n])
			for i := range y {
				if !sameBits(y[i], want[i]) {
					t.Fatalf("n=%d off=%d: y[%d] = %v, want %v (index n or n+1: canary overwritten)", n, off, i, y[i], want[i])
				}
			}
		}
	}
}

// TestAxpyWide checks AxpyWide bit for bit against the plain-Go reference
// for float32 and float64 rows of every length across the kernels' unroll
// boundaries, misaligned, with special values.
func TestAxpyWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	t.Run("float32", func(t *testing.T) { testAxpyWide[float32](t, rng) })
	t.Run("float64", func(t *testing.T) { testAxpyWide[float64](t, rng) })
	defer func() {
		if recover() == nil {
			t.Error("AxpyWide with mismatched lengths did not panic")
		}
	}()
	AxpyWide(1, []float32{1, 2}, []float64{1})
}

func ExampleAxpyWide() {
	y := []float64{1, 1, 1}
	AxpyWide(0.5, []float32{2, 4, 0.1}, y)
	fmt.Println(y)
	// Output: [2 3 1.050000000745058]
}
