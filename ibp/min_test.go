package ibp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// TestMinThresholds checks Min's output, bound and radius on certifiers
// whose radii are known: the radius of the minimum is the smallest.
func TestMinThresholds(t *testing.T) {
	a := &threshold{out: []float64{1, 2, -1}, slope: 100}  // radii 0.01, 0.02, 0.01
	b := &threshold{out: []float64{3, 0.5, 1}, slope: 200} // radii 0.015, 0.0025, 0.005
	m, err := NewMin(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 || m.Output(0) != 1 || m.Output(1) != 0.5 || m.Output(2) != -1 {
		t.Fatalf("Len %d, outputs %v %v %v", m.Len(), m.Output(0), m.Output(1), m.Output(2))
	}
	if iv := m.Bound(1, Ball{Linf, 0.001}); iv.Lo != 0.3 || iv.Hi != 0.7 {
		t.Errorf("bound %v, want [0.3, 0.7]", iv)
	}
	for i, want := range []float64{0.01, 0.0025} {
		r := Search(m, i, Linf, KernelSearch())
		if r.Radius > want || r.Radius < want*(1-3e-3) { // the tolerance 1e-3 is on the margin
			t.Errorf("point %d: radius %v, want just below %v", i, r.Radius, want)
		}
	}
	// A negative minimum certifies that the minimum stays negative: here
	// until a's output −1 can reach min(b's upper end) = 1 + 200δ... never;
	// a's own upper end −1 + 100δ < 0 decides it.
	if r := Search(m, 2, Linf, KernelSearch()); r.Radius > 0.01 || r.Radius < 0.01*(1-1e-3) {
		t.Errorf("point 2: radius %v, want just below 0.01", r.Radius)
	}
	if _, err := NewMin(); err == nil {
		t.Error("NewMin(): no error")
	}
	if _, err := NewMin(a, &threshold{out: []float64{1}}); err == nil {
		t.Error("NewMin of different lengths: no error")
	}
}

// TestMinKernels checks Min over kernel machines in the paper's case: the
// search infers steps as for one machine (the same radii and steps as the
// reference search, fewer bounds), with and without Grow, and every
// certified radius keeps every machine's sign; the exact outputs are the
// minimum of the machines'.
func TestMinKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	z := randMatrix(rng, 30, 40)
	var parts []Certifier
	for range 3 {
		km := randMachine(rng, 200, 40, ntk.DefaultSpec(1))
		km.Bias = 2 // mostly positive outputs
		c, err := NewKernel(context.Background(), km, z, KernelOptions{})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, c)
	}
	m, err := NewMin(parts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, norm := range []Norm{Linf, L2} {
		sameSearch(t, m, norm)
		o := KernelSearch()
		o.Grow = true
		sameSearchWith(t, m, norm, o)
		for i := range z.Rows {
			r := Search(m, i, norm, o)
			for k, p := range parts {
				if iv := p.Bound(i, Ball{norm, r.Radius}); r.Output > 0 && iv.Lo < 0 {
					t.Errorf("%v point %d radius %v: machine %d's bound %v", norm, i, r.Radius, k, iv)
				}
			}
		}
	}
	xs := Sample(rng, z.Row(0), Ball{Linf, 0.1}, 8, false)
	got, err := m.Eval(xs)
	if err != nil {
		t.Fatal(err)
	}
	for s := range xs.Rows {
		want := math.Inf(1)
		for _, p := range parts {
			v, _ := p.(*Kernel).Eval(xs.Slice(s, s+1, 0, xs.Cols))
			want = min(want, v[0])
		}
		if got[s] != want {
			t.Errorf("sample %d: Eval %v, the minimum %v", s, got[s], want)
		}
	}
	// Off the paper's case for one part, no step is inferred.
	km := randMachine(rng, 50, 40, ntk.Spec{Depth: 2, WeightStd: 1})
	deep, err := NewKernel(context.Background(), km, z, KernelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := NewMin(parts[0], deep)
	if _, ok := m2.marginSlack(0, Ball{Linf, 0.3}); ok {
		t.Error("a slack for a part without one")
	}
}
