package network

import (
	"math"

	"github.com/ntksvm/ntksvm/linalg"
)

func to32(m linalg.Matrix[float64]) linalg.Matrix[float32] {
	return linalg.Convert[float32](m)
}

func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / max(math.Abs(a), math.Abs(b), 1e-300)
}
