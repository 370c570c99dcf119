package svm

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// TestPredictKernel: prediction with the kernel computed in row blocks
// equals Predict on the whole cross kernel of the same Spec, in float64 and
// float32, for memory caps from one row to the whole matrix; bad shapes are
// refused.
func TestPredictKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	x, y := blobs(rng, 30, 1)
	z, _ := blobs(rng, 11, 1)
	ctx := context.Background()
	for _, s := range []ntk.Spec{
		{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1, BiasStd: 0.1},
		{Kind: ntk.KindNNGP, Depth: 1, WeightStd: 1.5},
		{Kind: ntk.KindNTK, Depth: 0, WeightStd: 1, BiasStd: 1},
		{Kind: ntk.KindNTK, Depth: 3, WeightStd: 1, Float32: true},
	} {
		k, err := ntk.Gram(ctx, s, x, ntk.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := SolveDual(ctx, NewDense(k), y, DualConfig{Loss: Hinge, Lambda: 0.1, Bias: true})
		if err != nil {
			t.Fatal(err)
		}
		kz, err := ntk.Cross(ctx, s, z, x, ntk.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, z.Rows)
		if err := r.Machine.Predict(want, NewDense(kz)); err != nil {
			t.Fatal(err)
		}
		elem := int64(8)
		tol := 1e-12
		if s.Float32 {
			elem, tol = 4, 1e-5
			kz32, err := ntk.Cross(ctx, s, linalg.Convert[float32](z), linalg.Convert[float32](x), ntk.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Machine.Predict(want, NewDense(kz32)); err != nil {
				t.Fatal(err)
			}
		}
		for _, memCap := range []int64{0, 30 * elem, 3 * 30 * elem, 1 << 20} {
			got := make([]float64, z.Rows)
			done := 0
			o := ntk.Options{Progress: func(d, _ int) { done = d }}
			if err := PredictKernel(ctx, &r.Machine, got, s, z, x, o, memCap); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > tol*max(1, math.Abs(want[i])) {
					t.Fatalf("%v cap %d: g[%d] = %g, want %g", s, memCap, i, got[i], want[i])
				}
			}
			if done != z.Rows {
				t.Errorf("%v cap %d: progress %d of %d points", s, memCap, done, z.Rows)
			}
		}
	}
	s := ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}
	m := &KernelMachine{Alpha: make([]float64, x.Rows)}
	for _, tc := range []struct {
		name string
		dst  []float64
		z, x linalg.Matrix[float64]
		s    ntk.Spec
	}{
		{"training inputs", make([]float64, z.Rows), z, z, s},
		{"output length", make([]float64, 3), z, x, s},
		{"features", make([]float64, z.Rows), z.Slice(0, z.Rows, 0, 1), x, s},
		{"kernel", make([]float64, z.Rows), z, x, ntk.Spec{Kind: ntk.KindNTK, Depth: 1}},
	} {
		if err := PredictKernel(ctx, m, tc.dst, tc.s, tc.z, tc.x, ntk.Options{}, 0); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
