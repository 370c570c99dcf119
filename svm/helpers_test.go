package svm

import (
	"math"
	"math/rand/v2"

	"github.com/ntksvm/ntksvm/linalg"
)

// blobs returns n 2-D points in two Gaussian clusters around ±(sep, sep/2)
// with labels ±1 (alternating), plus the point matrix.
func blobs(rng *rand.Rand, n int, sep float64) (linalg.Matrix[float64], []float64) {
	x := linalg.New[float64](n, 2)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(1 - 2*(i%2))
		x.Set(i, 0, y[i]*sep+rng.NormFloat64())
		x.Set(i, 1, y[i]*sep/2+rng.NormFloat64())
	}
	return x, y
}

// rbfGram returns exp(−γ‖xᵢ − xⱼ‖²) for the rows of a against those of b.
func rbfGram(a, b linalg.Matrix[float64], gamma float64) linalg.Matrix[float64] {
	k := linalg.New[float64](a.Rows, b.Rows)
	for i := range a.Rows {
		for j := range b.Rows {
			var d float64
			for c := range a.Cols {
				v := a.At(i, c) - b.At(j, c)
				d += v * v
			}
			k.Set(i, j, math.Exp(-gamma*d))
		}
	}
	return k
}

// linearGram returns a·bᵀ.
func linearGram(a, b linalg.Matrix[float64]) linalg.Matrix[float64] {
	k := linalg.New[float64](a.Rows, b.Rows)
	for i := range a.Rows {
		for j := range b.Rows {
			var d float64
			for c := range a.Cols {
				d += a.At(i, c) * b.At(j, c)
			}
			k.Set(i, j, d)
		}
	}
	return k
}

func to32(m linalg.Matrix[float64]) linalg.Matrix[float32] {
	r := linalg.New[float32](m.Rows, m.Cols)
	for i := range m.Rows {
		for j := range m.Cols {
			r.Set(i, j, float32(m.At(i, j)))
		}
	}
	return r
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / max(math.Abs(a), math.Abs(b), 1e-300)
}

type linalgMatrix = linalg.Matrix[float64]
