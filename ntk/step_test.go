package ntk

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestBackwardStep checks BackwardStep against BackwardInto followed by
// W ← β·W − η·G for the updated layers, in float64 and float32, for
// several depths, biases or none, β = 1, a decay and β = 0, and subsets of
// layers; that the bias and the other layers' gradients are BackwardInto's,
// bit for bit; and that Bound bounds the step.
func TestBackwardStep(t *testing.T) {
	for _, tc := range []struct {
		depth  int
		sb     float64
		update []bool
		beta   float64
	}{
		{1, 0, []bool{true, false}, 1},
		{2, 0, []bool{true, true, false}, 1},
		{2, 0.3, []bool{true, true, false}, 0.99},
		{3, 0, []bool{false, true, true, false}, 0},
		{2, 0.5, []bool{true, true, true}, 1},
		{2, 0, []bool{false, false, false}, 1},
	} {
		name := fmt.Sprintf("L=%d,sb=%v,update=%v,beta=%v", tc.depth, tc.sb, tc.update, tc.beta)
		t.Run(name+"/float64", func(t *testing.T) { testBackwardStep[float64](t, tc.depth, tc.sb, tc.update, tc.beta, 1e-12) })
		t.Run(name+"/float32", func(t *testing.T) { testBackwardStep[float32](t, tc.depth, tc.sb, tc.update, tc.beta, 1e-5) })
	}
}

func testBackwardStep[T linalg.Float](t *testing.T, depth int, sb float64, update []bool, beta float64, tol float64) {
	const d, m, n, eta = 7, 40, 9, 0.3
	rng := rand.New(rand.NewPCG(uint64(depth), 3))
	net, err := NewNetwork[T](d, m, depth, 1.1, sb, 4)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := NewNetwork[T](d, m, depth, 1.1, sb, 4)
	x := linalg.New[T](n, d)
	for i := range x.Data {
		x.Data[i] = T(rng.NormFloat64())
	}
	c := make([]T, n)
	for i := range c {
		c[i] = T(rng.NormFloat64())
	}
	p, err := ref.Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Backward(p, c)
	if err != nil {
		t.Fatal(err)
	}
	st := Step[T]{Eta: eta, Update: update, Beta: make([]T, depth+1), Bound: make([]float64, depth+1)}
	for l := range st.Beta {
		st.Beta[l] = T(beta)
	}
	q, err := net.Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	var got Grads[T]
	if err := net.BackwardStep(&got, q, c, &st); err != nil {
		t.Fatal(err)
	}
	for l := range net.W {
		if net.B != nil {
			for i, v := range want.B[l] {
				if got.B[l][i] != v {
					t.Fatalf("bias gradient %d[%d] = %v, BackwardInto gives %v", l, i, got.B[l][i], v)
				}
			}
		}
		if !update[l] {
			for i, v := range want.W[l].Data {
				if got.W[l].Data[i] != v || net.W[l].Data[i] != ref.W[l].Data[i] {
					t.Fatalf("layer %d (not updated): gradient or weight %d differs", l, i)
				}
			}
			if st.Bound[l] != 0 {
				t.Errorf("layer %d (not updated): bound %v, want 0", l, st.Bound[l])
			}
			continue
		}
		var step float64
		for i, w0 := range ref.W[l].Data {
			g := float64(want.W[l].Data[i])
			step = max(step, math.Abs(eta*g))
			w := beta*float64(w0) - eta*g
			if e := math.Abs(float64(net.W[l].Data[i]) - w); e > tol*(1+math.Abs(w)) {
				t.Fatalf("layer %d weight %d = %v, want %v", l, i, net.W[l].Data[i], w)
			}
		}
		if !(st.Bound[l] >= step) {
			t.Errorf("layer %d: bound %v below the largest step %v", l, st.Bound[l], step)
		}
	}
}

// TestBackwardStepErrors: slices of the wrong length are refused before
// anything changes, and a non-finite cotangent makes the bound NaN or +Inf.
func TestBackwardStepErrors(t *testing.T) {
	net, _ := NewNetwork[float64](3, 4, 2, 1, 0, 1)
	x := randX(rand.New(rand.NewPCG(1, 2)), 5, 3)
	p, _ := net.Forward(x)
	c := []float64{1, 2, 3, 4, 5}
	before := net.W[1].Clone()
	for _, st := range []Step[float64]{
		{Eta: 1, Update: make([]bool, 2), Beta: make([]float64, 3)},
		{Eta: 1, Update: make([]bool, 3), Beta: make([]float64, 4)},
		{Eta: 1, Update: []bool{true, true, true}, Beta: make([]float64, 3), Bound: make([]float64, 1)},
	} {
		var g Grads[float64]
		if err := net.BackwardStep(&g, p, c, &st); !errors.Is(err, linalg.ErrShape) {
			t.Errorf("%d update flags, %d factors, %d bounds: error %v, want ErrShape", len(st.Update), len(st.Beta), len(st.Bound), err)
		}
	}
	for i, v := range before.Data {
		if net.W[1].Data[i] != v {
			t.Fatal("a refused step changed the weights")
		}
	}
	st := Step[float64]{Eta: 1, Update: []bool{true, true, false}, Beta: []float64{1, 1, 1}, Bound: make([]float64, 3)}
	var g Grads[float64]
	c[2] = math.Inf(1)
	if err := net.BackwardStep(&g, p, c, &st); err != nil {
		t.Fatal(err)
	}
	if b := st.Bound[1]; !math.IsNaN(b) && !math.IsInf(b, 1) {
		t.Errorf("bound %v with an infinite cotangent, want NaN or +Inf", b)
	}
}
