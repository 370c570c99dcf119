package ntk

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// objective is Σ_i c_i f(x_i).
func objective(net *Network[float64], x linalg.Matrix[float64], c []float64) float64 {
	p, err := net.Forward(x)
	if err != nil {
		panic(err)
	}
	var s float64
	for i, f := range p.F {
		s += c[i] * f
	}
	return s
}

// TestGradientsFiniteDifferences checks Backward against central
// differences for every parameter of small networks.
func TestGradientsFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, tc := range []struct {
		d, m, L int
		sw, sb  float64
		n       int
	}{{5, 6, 1, 1, 0, 4}, {4, 7, 2, 1.3, 0.4, 3}, {3, 5, 3, 0.9, 1, 5}} {
		t.Run(fmt.Sprintf("d=%d,m=%d,L=%d", tc.d, tc.m, tc.L), func(t *testing.T) {
			net, err := NewNetwork[float64](tc.d, tc.m, tc.L, tc.sw, tc.sb, 11)
			if err != nil {
				t.Fatal(err)
			}
			x := randX(rng, tc.n, tc.d)
			c := make([]float64, tc.n)
			for i := range c {
				c[i] = rng.NormFloat64()
			}
			p, err := net.Forward(x)
			if err != nil {
				t.Fatal(err)
			}
			g, err := net.Backward(p, c)
			if err != nil {
				t.Fatal(err)
			}
			const h = 1e-6
			check := func(what string, w []float64, grad []float64) {
				for i := range w {
					old := w[i]
					w[i] = old + h
					up := objective(net, x, c)
					w[i] = old - h
					down := objective(net, x, c)
					w[i] = old
					fd := (up - down) / (2 * h)
					if math.Abs(fd-grad[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
						t.Fatalf("%s[%d]: gradient %v, finite difference %v", what, i, grad[i], fd)
					}
				}
			}
			for l := range net.W {
				check(fmt.Sprintf("W[%d]", l), net.W[l].Data, g.W[l].Data)
				if tc.sb != 0 {
					check(fmt.Sprintf("B[%d]", l), net.B[l], g.B[l])
				} else if g.B != nil || net.B != nil {
					t.Fatal("biases present with σ_b = 0")
				}
			}
		})
	}
}

// TestEmpiricalNTKGradients: the per-layer identity equals the inner
// products of per-sample gradients formed explicitly with Backward.
func TestEmpiricalNTKGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	net, err := NewNetwork[float64](4, 9, 2, 1.1, 0.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	x1, x2 := randX(rng, 6, 4), randX(rng, 3, 4)
	grads := func(x linalg.Matrix[float64]) [][]float64 {
		p, _ := net.Forward(x)
		var out [][]float64
		for i := range x.Rows {
			c := make([]float64, x.Rows)
			c[i] = 1
			g, err := net.Backward(p, c)
			if err != nil {
				t.Fatal(err)
			}
			var v []float64
			for l := range g.W {
				v = append(v, g.W[l].Data...)
				v = append(v, g.B[l]...)
			}
			out = append(out, v)
		}
		return out
	}
	g1, g2 := grads(x1), grads(x2)
	for _, tc := range []struct {
		a, b   linalg.Matrix[float64]
		ga, gb [][]float64
	}{{x1, x2, g1, g2}, {x1, x1, g1, g1}} {
		k, err := net.EmpiricalNTK(tc.a, tc.b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.a.Rows {
			for j := range tc.b.Rows {
				var want float64
				for q := range tc.ga[i] {
					want += tc.ga[i][q] * tc.gb[j][q]
				}
				if !relClose(k.At(i, j), want, 1e-12, 1e-12) {
					t.Fatalf("(%d,%d): %v, gradient inner product %v", i, j, k.At(i, j), want)
				}
			}
		}
	}
}

// TestEmpiricalNTKGram: the Gram Θ̂(X, X), whose products are computed in
// their lower triangles and whose sum is mirrored once, equals bit for bit
// the sum of full symmetric products (linalg.Gram) taken over the whole
// matrix, for both types, one and several hidden layers, and more rows
// than one mirror tile.
func TestEmpiricalNTKGram(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testEmpiricalNTKGram[float32](t) })
	t.Run("float64", func(t *testing.T) { testEmpiricalNTKGram[float64](t) })
}

func testEmpiricalNTKGram[T linalg.Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct{ n, depth int }{{1, 1}, {gramRows + 37, 1}, {2*gramRows + 5, 2}} {
		net, err := NewNetwork[T](5, 7, tc.depth, 1.2, 0.3, 4)
		if err != nil {
			t.Fatal(err)
		}
		x64 := randX(rng, tc.n, 5)
		x := linalg.New[T](tc.n, 5)
		for i, v := range x64.Data {
			x.Data[i] = T(v)
		}
		got, err := net.EmpiricalNTK(x, x)
		if err != nil {
			t.Fatal(err)
		}
		p, err := net.Forward(x)
		if err != nil {
			t.Fatal(err)
		}
		d := net.deltas(p)
		want := linalg.New[T](tc.n, tc.n)
		dd, aa := linalg.New[T](tc.n, tc.n), linalg.New[T](tc.n, tc.n)
		sb2 := T(net.BiasStd * net.BiasStd)
		for l := 0; l <= net.Depth; l++ {
			if err := linalg.Gram(d[l], dd); err != nil {
				t.Fatal(err)
			}
			if err := linalg.Gram(p.A[l], aa); err != nil {
				t.Fatal(err)
			}
			s := net.scale(l)
			s2 := T(s * s)
			for i, v := range dd.Data {
				want.Data[i] += s2*v*aa.Data[i] + sb2*v
			}
		}
		// Bitwise on amd64. Elsewhere the compiler may fuse x*y + z into
		// one FMA (the Go spec allows it; it does on arm64), differently
		// in the two expressions: a few units in the last place apart.
		tol := 0.0
		if runtime.GOARCH != "amd64" {
			tol = 16 * 0x1p-52
			if _, ok := any(T(0)).(float32); ok {
				tol = 16 * 0x1p-23
			}
		}
		for i := range tc.n {
			for j := range tc.n {
				g, w := float64(got.At(i, j)), float64(want.At(i, j))
				if d := math.Abs(g - w); (tol == 0 && math.Float64bits(g) != math.Float64bits(w)) || d > tol*max(1, math.Abs(w)) {
					t.Fatalf("n=%d depth=%d: Θ̂[%d,%d] = %v, the full products give %v", tc.n, tc.depth, i, j, g, w)
				}
			}
		}
	}
}

// TestEmpiricalNTKConvergence: Θ̂ → Θ as the width m grows, with a relative
// error falling like 1/√m. The table for m = 2⁸…2¹⁴ (2¹² with -short) is
// logged; the error is averaged over seeds.
func TestEmpiricalNTKConvergence(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	const n, d = 6, 10
	x := linalg.New[float64](n, d)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	maxLog := 14
	if testing.Short() {
		maxLog = 12
	}
	for _, L := range []int{1, 2} {
		top := maxLog
		if L == 2 {
			top = min(maxLog, 11) // W is m×m
		}
		want, err := gramOf(x, Spec{Depth: L, WeightStd: 1, BiasStd: 0.2})
		if err != nil {
			t.Fatal(err)
		}
		var norm float64
		for _, v := range want.Data {
			norm += v * v
		}
		norm = math.Sqrt(norm)
		const seeds = 4
		errs := map[int]float64{}
		t.Logf("L=%d: m, mean relative Frobenius error, error·√m", L)
		for lg := 8; lg <= top; lg++ {
			m := 1 << lg
			var e float64
			for s := range seeds {
				net, err := NewNetwork[float64](d, m, L, 1, 0.2, uint64(100*lg+s))
				if err != nil {
					t.Fatal(err)
				}
				k, err := net.EmpiricalNTK(x, x)
				if err != nil {
					t.Fatal(err)
				}
				var f float64
				for i, v := range k.Data {
					f += (v - want.Data[i]) * (v - want.Data[i])
				}
				e += math.Sqrt(f) / norm / seeds
			}
			errs[lg] = e
			t.Logf("  m=%6d  %.4f  %.3f", m, e, e*math.Sqrt(float64(m)))
		}
		// Least-squares slope of log error against log m: −1/2 in theory;
		// accept sampling noise of ±0.25.
		var sx, sy, sxx, sxy float64
		for lg := 8; lg <= top; lg++ {
			lx, ly := float64(lg)*math.Ln2, math.Log(errs[lg])
			sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
		}
		k := float64(top - 7)
		slope := (k*sxy - sx*sy) / (k*sxx - sx*sx)
		t.Logf("L=%d: slope of log error against log m: %.3f", L, slope)
		if slope > -0.25 || slope < -0.75 {
			t.Errorf("L=%d: error falls like m^%.2f, want about m^-0.5", L, slope)
		}
	}
}

// TestNetworkSeed: a seed gives the same weights every time (and the
// golden values of NewNormal(6) first), different seeds different ones,
// float32 the float64 weights rounded.
func TestNetworkSeed(t *testing.T) {
	a, _ := NewNetwork[float64](3, 4, 2, 1, 0.5, 6)
	b, _ := NewNetwork[float64](3, 4, 2, 1, 0.5, 6)
	c, _ := NewNetwork[float64](3, 4, 2, 1, 0.5, 7)
	f, _ := NewNetwork[float32](3, 4, 2, 1, 0.5, 6)
	golden := []uint64{0x3ffa515126d6554d, 0xbfd790f5329b07d2, 0x3fc9c6bed3890540, 0x3ff48dbb7ab91b8e}
	for i, w := range golden {
		if math.Float64bits(a.W[0].Data[i]) != w {
			t.Fatalf("W[0][%d] = %v, want golden %v", i, a.W[0].Data[i], math.Float64frombits(w))
		}
	}
	g := NewNormal(6)
	for l := range a.W {
		for i, v := range a.W[l].Data {
			if v != b.W[l].Data[i] || float32(v) != f.W[l].Data[i] {
				t.Fatalf("W[%d][%d]: %v %v %v: seed not reproducible", l, i, v, b.W[l].Data[i], f.W[l].Data[i])
			}
			if v != g.Float64() {
				t.Fatalf("W[%d][%d] out of stream order", l, i)
			}
		}
		for i := range a.B[l] {
			if a.B[l][i] != g.Float64() {
				t.Fatalf("B[%d][%d] out of stream order", l, i)
			}
		}
	}
	if a.W[0].Data[0] == c.W[0].Data[0] {
		t.Fatal("seeds 6 and 7 give the same first weight")
	}
}

func TestForwardFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	a, _ := NewNetwork[float64](20, 64, 2, 1, 0.1, 1)
	b, _ := NewNetwork[float32](20, 64, 2, 1, 0.1, 1)
	x := randX(rng, 9, 20)
	x32 := linalg.New[float32](9, 20)
	for i, v := range x.Data {
		x32.Data[i] = float32(v)
		x.Data[i] = float64(float32(v))
	}
	p, err := a.Forward(x)
	if err != nil {
		t.Fatal(err)
	}
	q, err := b.Forward(x32)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.F {
		if math.Abs(float64(q.F[i])-p.F[i]) > 1e-5*(1+math.Abs(p.F[i])) {
			t.Fatalf("f(x_%d): float32 %v, float64 %v", i, q.F[i], p.F[i])
		}
	}
}

func TestNetworkErrors(t *testing.T) {
	for name, f := range map[string]func() error{
		"d 0":     func() error { _, err := NewNetwork[float32](0, 4, 1, 1, 0, 1); return err },
		"width 0": func() error { _, err := NewNetwork[float32](3, 0, 1, 1, 0, 1); return err },
		"depth 0": func() error { _, err := NewNetwork[float32](3, 4, 0, 1, 0, 1); return err },
		"sigma_w": func() error { _, err := NewNetwork[float32](3, 4, 1, -1, 0, 1); return err },
		"too big": func() error { _, err := NewNetwork[float32](3, 1<<20, 3, 1, 0, 1); return err },
		"forward d": func() error {
			n, _ := NewNetwork[float32](3, 4, 1, 1, 0, 1)
			_, err := n.Forward(linalg.New[float32](2, 4))
			return err
		},
		"backward c": func() error {
			n, _ := NewNetwork[float32](3, 4, 1, 1, 0, 1)
			p, _ := n.Forward(linalg.New[float32](2, 3))
			_, err := n.Backward(p, make([]float32, 3))
			return err
		},
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestPassReuse: ForwardInto and BackwardInto on reused buffers, with batch
// sizes changing between calls, give what fresh Forward and Backward give.
func TestPassReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	for _, L := range []int{1, 2, 3, 4} {
		net, _ := NewNetwork[float64](5, 8, L, 1.2, 0.3, 5)
		var p Pass[float64]
		var g Grads[float64]
		for _, n := range []int{6, 6, 3, 9} {
			x := randX(rng, n, 5)
			c := make([]float64, n)
			for i := range c {
				c[i] = rng.NormFloat64()
			}
			if err := net.ForwardInto(&p, x); err != nil {
				t.Fatal(err)
			}
			if err := net.BackwardInto(&g, &p, c); err != nil {
				t.Fatal(err)
			}
			fp, _ := net.Forward(x)
			fg, _ := net.Backward(fp, c)
			for i := range fp.F {
				if fp.F[i] != p.F[i] {
					t.Fatalf("L=%d n=%d: f differs", L, n)
				}
			}
			for l := range fg.W {
				for i, v := range fg.W[l].Data {
					if g.W[l].Data[i] != v {
						t.Fatalf("L=%d n=%d: dW[%d] differs", L, n, l)
					}
				}
				for i, v := range fg.B[l] {
					if g.B[l][i] != v {
						t.Fatalf("L=%d n=%d: dB[%d] differs", L, n, l)
					}
				}
			}
		}
	}
}
