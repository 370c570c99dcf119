package svm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// benchGram returns an n×n RBF Gram of random 2-D blobs and its labels.
func benchGram(n int) (linalg.Matrix[float64], []float64) {
	x, y := blobs(rand.New(rand.NewPCG(uint64(n), 3)), n, 0.7)
	return rbfGram(x, x, 0.5), y
}

// BenchmarkMulVec is the full-batch step K·α; it reports the Gram read rate.
func BenchmarkMulVec(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		k, _ := benchGram(n)
		alpha := make([]float64, n)
		for i := range alpha {
			alpha[i] = float64(i%5) - 2
		}
		g := make([]float64, n)
		for _, km := range []struct {
			name  string
			k     KernelMatrix
			bytes int64
		}{{"float32", NewDense(to32(k)), 4}, {"float64", NewDense(k), 8}} {
			b.Run(fmt.Sprintf("dtype=%s/n=%d", km.name, n), func(b *testing.B) {
				b.SetBytes(km.bytes * int64(n) * int64(n))
				for b.Loop() {
					km.k.MulVec(g, alpha)
				}
			})
		}
	}
}

// BenchmarkAddRows is one minibatch update g += K[B, :]ᵀΔα with |B| = 64.
func BenchmarkAddRows(b *testing.B) {
	const n = 4096
	k, _ := benchGram(n)
	rows := make([]int, 64)
	w := make([]float64, 64)
	for i := range rows {
		rows[i], w[i] = (i*61)%n, 0.01
	}
	g := make([]float64, n)
	for _, km := range []struct {
		name  string
		k     KernelMatrix
		bytes int64
	}{{"float32", NewDense(to32(k)), 4}, {"float64", NewDense(k), 8}} {
		b.Run("dtype="+km.name+"/n=4096,B=64", func(b *testing.B) {
			b.SetBytes(km.bytes * 64 * n)
			for b.Loop() {
				km.k.AddRows(g, rows, w)
			}
		})
	}
}

// BenchmarkSolveDual is the exact soft-margin SVM solve to a relative
// duality gap of 1e-3.
func BenchmarkSolveDual(b *testing.B) {
	k, y := benchGram(2000)
	for _, bias := range []bool{false, true} {
		b.Run(fmt.Sprintf("n=2000,bias=%v", bias), func(b *testing.B) {
			for b.Loop() {
				if _, err := SolveDual(context.Background(), NewDense(k), y, DualConfig{Loss: Hinge, Lambda: 0.01, Bias: bias}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSolveDualCPath is model selection's use of the solver: a small
// sub-problem (150 points) solved with libsvm's stopping rule at each C of
// 10⁻²…10⁴, each solve warm-started from the one before.
func BenchmarkSolveDualCPath(b *testing.B) {
	k, y := benchGram(150)
	kd := NewDense(k)
	for b.Loop() {
		var init []float64
		for _, c := range []float64{1e-2, 1e-1, 1, 10, 100, 1e3, 1e4} {
			res, err := SolveDual(context.Background(), kd, y, DualConfig{Loss: Hinge, Lambda: 1 / c, Bias: true, KKT: 1e-3, Init: init})
			if err != nil {
				b.Fatal(err)
			}
			init = res.Dual
		}
	}
}
