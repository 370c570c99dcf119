//go:build (amd64 || arm64) && (linux || darwin)

package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotAtPageEnd puts every operand of the level-1 kernels flush against
// a PROT_NONE page (atPageEnd, neon_test.go), so that a load or store past
// the last element faults instead of reading a neighbour unnoticed; the
// results must be bitwise those of the same calls on ordinary memory.
func TestDotAtPageEnd(t *testing.T) {
	lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 100}
	for _, k := range available {
		t.Run("impl="+k.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(41, 42))
			for _, n := range lengths {
				where := fmt.Sprintf("n=%d", n)
				a32, x32 := randSlice[float32](rng, n), randSlice[float32](rng, n)
				a64, x64 := randSlice[float64](rng, n), randSlice[float64](rng, n)
				pa32, px32 := atPageEnd[float32](t, n), atPageEnd[float32](t, n)
				pa64, px64 := atPageEnd[float64](t, n), atPageEnd[float64](t, n)
				copy(pa32, a32)
				copy(px32, x32)
				copy(pa64, a64)
				copy(px64, x64)
				same := func(name string, got, want float64) {
					t.Helper()
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s %s at the page end: %v, elsewhere %v", name, where, got, want)
					}
				}
				same("DotF32F64", k.DotF32F64(pa32, px64), k.DotF32F64(a32, x64))
				same("Dot64", k.Dot64(pa64, px64), k.Dot64(a64, x64))
				same("Dot32", float64(k.Dot32(pa32, px32)), float64(k.Dot32(a32, x32)))
				same("Sum32", float64(k.Sum32(pa32)), float64(k.Sum32(a32)))
				same("Sum64", k.Sum64(pa64), k.Sum64(a64))

				y := randSlice[float64](rng, n)
				py := atPageEnd[float64](t, n)
				copy(py, y)
				k.Axpy64(0.75, pa64, py)
				k.Axpy64(0.75, a64, y)
				if i := firstDiff(py, y); i >= 0 {
					t.Fatalf("Axpy64 %s at the page end: y[%d] = %v, elsewhere %v", where, i, py[i], y[i])
				}
				k.AxpyF32F64(-1.25, pa32, py)
				k.AxpyF32F64(-1.25, a32, y)
				if i := firstDiff(py, y); i >= 0 {
					t.Fatalf("AxpyF32F64 %s at the page end: y[%d] = %v, elsewhere %v", where, i, py[i], y[i])
				}

				// Four rows of n with lda = n: the last row ends at the page.
				m32 := randSlice[float32](rng, 4*n)
				m64 := randSlice[float64](rng, 4*n)
				pm32, pm64 := atPageEnd[float32](t, 4*n), atPageEnd[float64](t, 4*n)
				copy(pm32, m32)
				copy(pm64, m64)
				var got, want [4]float64
				k.DotRows4F32F64(&got, pm32, n, px64)
				k.DotRows4F32F64(&want, m32, n, x64)
				for r := range 4 {
					same(fmt.Sprintf("DotRows4F32F64 row %d", r), got[r], want[r])
				}
				k.Dot64Rows4(&got, pm64, n, px64)
				k.Dot64Rows4(&want, m64, n, x64)
				for r := range 4 {
					same(fmt.Sprintf("Dot64Rows4 row %d", r), got[r], want[r])
				}
				same("Sum32Rows4", float64(k.Sum32Rows4(pm32, n, n)), float64(k.Sum32Rows4(m32, n, n)))
				same("Sum64Rows4", k.Sum64Rows4(pm64, n, n), k.Sum64Rows4(m64, n, n))
			}
		})
	}
}

// TestAxpySpecials checks both axpy kernels bit for bit against the Go
// twin on inputs with NaNs (signalling and quiet, with payloads), ±Inf,
// ±0 and subnormals in x and y, and special alphas, for lengths across
// the vector steps.
func TestAxpySpecials(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	alphas := []float64{1, -0.3, 0, math.Copysign(0, -1), math.Inf(1), 0x1p-1074}
	for _, k := range available {
		t.Run("impl="+k.name, func(t *testing.T) {
			for n := 0; n <= 40; n++ {
				for _, alpha := range alphas {
					x32 := make([]float32, n)
					x64 := make([]float64, n)
					y0 := make([]float64, n)
					randomWithSpecials(rng, x32)
					randomWithSpecials(rng, x64)
					randomWithSpecials(rng, y0)
					for name, run := range map[string]func(y []float64){
						"AxpyF32F64": func(y []float64) { k.AxpyF32F64(alpha, x32, y) },
						"Axpy64":     func(y []float64) { k.Axpy64(alpha, x64, y) },
					} {
						y := append([]float64(nil), y0...)
						want := append([]float64(nil), y0...)
						run(y)
						if name == "Axpy64" {
							axpy64Generic(alpha, x64, want)
						} else {
							axpyF32F64Generic(alpha, x32, want)
						}
						if i := firstDiff(y, want); i >= 0 {
							t.Fatalf("%s n=%d alpha=%v: y[%d] = %#x, twin %#x (y0 %#x)", name, n, alpha, i,
								math.Float64bits(y[i]), math.Float64bits(want[i]), math.Float64bits(y0[i]))
						}
					}
				}
			}
		})
	}
}
