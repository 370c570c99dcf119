package svm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestDenseProducts checks MulVec and AddRows of float32 and float64
// Dense matrices against float64 loops over the same elements (the float32
// path must keep float64 accuracy), and that both give the same bits on
// 1, 2 and 3 threads (the 150×1500 case is large enough for both to
// split).
func TestDenseProducts(t *testing.T) {
	defer linalg.SetThreads(0)
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct{ rows, cols int }{{1, 1}, {5, 3}, {9, 70}, {70, 9}, {33, 1500}, {300, 257}, {150, 1500}} {
		k64 := linalg.New[float64](c.rows, c.cols)
		for i := range k64.Data {
			k64.Data[i] = float64(float32(rng.NormFloat64())) // exact in float32
		}
		k32 := linalg.New[float32](c.rows, c.cols)
		for i, v := range k64.Data {
			k32.Data[i] = float32(v)
		}
		x := make([]float64, c.cols)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		// 48 rows (some repeated): with 1500 columns, enough work for
		// AddRows to split the columns over the threads.
		rows, w := make([]int, 48), make([]float64, 48)
		for q := range rows {
			rows[q], w[q] = rng.IntN(c.rows), rng.NormFloat64()
		}
		g0 := make([]float64, c.cols)
		for j := range g0 {
			g0[j] = rng.NormFloat64()
		}
		wantMV := make([]float64, c.rows)
		for i := range c.rows {
			var s float64
			for j, v := range k64.Row(i) {
				s += v * x[j]
			}
			wantMV[i] = s
		}
		for _, km := range []struct {
			name string
			k    KernelMatrix
		}{{"float32", NewDense(k32)}, {"float64", NewDense(k64)}} {
			t.Run(fmt.Sprintf("%s/%dx%d", km.name, c.rows, c.cols), func(t *testing.T) {
				var refMV, refAR []float64
				for _, th := range []int{1, 2, 3} {
					linalg.SetThreads(th)
					mv := make([]float64, c.rows)
					km.k.MulVec(mv, x)
					for i := range c.rows {
						var abs float64
						for j, v := range k64.Row(i) {
							abs += math.Abs(v * x[j])
						}
						if d := math.Abs(mv[i] - wantMV[i]); d > 2*float64(c.cols+4)*0x1p-53*abs {
							t.Fatalf("threads=%d: MulVec[%d] = %v, want %v", th, i, mv[i], wantMV[i])
						}
					}
					ar := append([]float64(nil), g0...)
					km.k.AddRows(ar, rows, w)
					for j := range ar {
						want := g0[j]
						for q, r := range rows {
							want = math.FMA(w[q], k64.At(r, j), want)
						}
						if ar[j] != want {
							t.Fatalf("threads=%d: AddRows[%d] = %v, want %v", th, j, ar[j], want)
						}
					}
					if refMV == nil {
						refMV, refAR = mv, ar
						continue
					}
					for i := range mv {
						if math.Float64bits(mv[i]) != math.Float64bits(refMV[i]) {
							t.Fatalf("MulVec[%d] on %d threads differs from 1 thread", i, th)
						}
					}
					for j := range ar {
						if math.Float64bits(ar[j]) != math.Float64bits(refAR[j]) {
							t.Fatalf("AddRows[%d] on %d threads differs from 1 thread", j, th)
						}
					}
				}
			})
		}
	}
}
