package ibp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// mapRows is Preprocess's map written out for the test: (x − mean)/scale,
// then rows scaled to the norm √d.
func mapRows(x linalg.Matrix[float64], mean, scale []float64, unit bool) linalg.Matrix[float64] {
	y := x.Clone()
	for i := range y.Rows {
		r := y.Row(i)
		if mean != nil {
			for j := range r {
				r[j] = (r[j] - mean[j]) / scale[j]
			}
		}
		if n := linalg.Nrm2(r); unit && n > 0 {
			linalg.Scal(math.Sqrt(float64(len(r)))/n, r)
		}
	}
	return y
}

// TestKernelPreprocess samples balls in the units before an input map
// (standardisation with scales far from 1, the scaling to the norm √d,
// both) and checks the exact output of the mapped machine against the
// bound, and the fast path against the general one.
func TestKernelPreprocess(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d, samples = 40, 9, 32
	mean, scale := make([]float64, d), make([]float64, d)
	for j := range d {
		mean[j] = rng.Float64()
		scale[j] = math.Pow(10, 1.4*rng.Float64()-0.7) // 0.2 … 5
	}
	for _, in := range []struct {
		name string
		pre  Preprocess
	}{
		{"standardise", Preprocess{Mean: mean, Scale: scale}},
		{"unit", Preprocess{UnitNorm: true}},
		{"standardise+unit", Preprocess{Mean: mean, Scale: scale, UnitNorm: true}},
	} {
		for _, p := range []ntk.Spec{{Depth: 1, WeightStd: math.Sqrt2}, {Depth: 2, WeightStd: math.Sqrt2, BiasStd: 0.5}, {Depth: 3, WeightStd: 1, BiasStd: 1}} {
			for _, norm := range []Norm{Linf, L2} {
				for _, o := range []KernelOptions{{}, {Tight: true}, {Clip: true}, {Tight: true, Clip: true}} {
					name := fmt.Sprintf("%s/L=%d,sb=%g/%v/tight=%v,clip=%v", in.name, p.Depth, p.BiasStd, norm, o.Tight, o.Clip)
					t.Run(name, func(t *testing.T) {
						raw := randMatrix(rng, n, d)
						km := KernelMachine{X: mapRows(raw, in.pre.Mean, in.pre.Scale, in.pre.UnitNorm), Alpha: make([]float64, n), Bias: 0.3, Kernel: p}
						for i := range km.Alpha {
							km.Alpha[i] = rng.NormFloat64()
						}
						z := randMatrix(rng, 3, d)
						z.Row(2)[0] = mean[0] // near the mean: the ball reaches the origin of the unit map soon
						pre := in.pre
						o.Input = &pre
						c, err := NewKernel(context.Background(), km, z, o)
						if err != nil {
							t.Fatal(err)
						}
						o.general = true
						gen, err := NewKernel(context.Background(), km, z, o)
						if err != nil {
							t.Fatal(err)
						}
						radii := []float64{0, 1e-3, 0.02, 0.1, 0.5}
						if norm == L2 {
							radii = []float64{0, 0.01, 0.1, 0.5, 3}
						}
						zk := mapRows(z, in.pre.Mean, in.pre.Scale, in.pre.UnitNorm)
						want, err := ntk.Cross(context.Background(), p, zk, km.X, ntk.Options{})
						if err != nil {
							t.Fatal(err)
						}
						for i := range z.Rows {
							g := km.Bias + linalg.Dot(want.Row(i), km.Alpha)
							if math.Abs(c.Output(i)-g) > 1e-12*(1+math.Abs(g)) {
								t.Fatalf("point %d: output %v, the mapped machine %v", i, c.Output(i), g)
							}
							for _, r := range radii {
								b := Ball{norm, r}
								iv, ivg := c.Bound(i, b), gen.Bound(i, b)
								if math.Abs(iv.Lo-ivg.Lo) > 1e-12*(1+math.Abs(ivg.Lo)) || math.Abs(iv.Hi-ivg.Hi) > 1e-12*(1+math.Abs(ivg.Hi)) {
									t.Fatalf("point %d r=%g: fast path %v, general %v", i, r, iv, ivg)
								}
								xs := Sample(rng, z.Row(i), b, samples, o.Clip)
								th, err := ntk.Cross(context.Background(), p, mapRows(xs, in.pre.Mean, in.pre.Scale, in.pre.UnitNorm), km.X, ntk.Options{})
								if err != nil {
									t.Fatal(err)
								}
								out, err := c.Eval(xs)
								if err != nil {
									t.Fatal(err)
								}
								for s := range xs.Rows {
									v := km.Bias + linalg.Dot(th.Row(s), km.Alpha)
									if math.Abs(out[s]-v) > 1e-12*(1+math.Abs(v)) {
										t.Fatalf("point %d r=%g sample %d: Eval %v, the mapped machine %v", i, r, s, out[s], v)
									}
									if slack := 1e-10 * (1 + math.Abs(v)); v < iv.Lo-slack || v > iv.Hi+slack {
										t.Fatalf("point %d r=%g sample %d: g(x') = %v outside %v", i, r, s, v, iv)
									}
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestPreprocessIdentity checks that an input map that changes nothing
// gives the bounds of no map, to the last bit.
func TestPreprocessIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	km := randMachine(rng, 50, 10, ntk.DefaultSpec(1))
	z := randMatrix(rng, 3, 10)
	for _, o := range []KernelOptions{{}, {Tight: true}, {Clip: true}} {
		a, err := NewKernel(context.Background(), km, z, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Input = &Preprocess{}
		b, err := NewKernel(context.Background(), km, z, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range z.Rows {
			for _, norm := range []Norm{Linf, L2} {
				for _, r := range []float64{0.001, 0.05, 1} {
					if x, y := a.Bound(i, Ball{norm, r}), b.Bound(i, Ball{norm, r}); x != y {
						t.Errorf("%+v point %d %v r=%g: %v without a map, %v with the identity", o, i, norm, r, x, y)
					}
				}
			}
		}
	}
}

// TestOnSphere checks the chord bound of the unit-norm map against the
// worst case it describes: u' on the ball's boundary at the largest angle.
func TestOnSphere(t *testing.T) {
	for _, tc := range []struct{ un, eps float64 }{{1, 0}, {1, 1e-9}, {1, 0.3}, {2, 1.999}, {1, 1}, {0, 0.5}, {1, 5}} {
		g := onSphere(geometry{eps: tc.eps}, tc.un, 1)
		var want float64
		switch t := tc.eps / tc.un; {
		case tc.un == 0:
			want = 1
		case t >= 1:
			want = 2
		default:
			theta := math.Asin(t)
			want = 2 * math.Sin(theta/2)
		}
		if math.Abs(g.eps-want) > 1e-12 || g.eps < want*(1-1e-15) {
			t.Errorf("‖u‖ = %g, ε = %g: chord bound %v, worst case %v", tc.un, tc.eps, g.eps, want)
		}
	}
}

func TestPreprocessErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	km := randMachine(rng, 10, 3, ntk.DefaultSpec(1))
	z := randMatrix(rng, 2, 3)
	for _, pre := range []Preprocess{
		{Mean: []float64{0, 0}, Scale: []float64{1, 1}},
		{Mean: []float64{0, 0, 0}, Scale: []float64{1, 1}},
		{Mean: []float64{0, math.NaN(), 0}, Scale: []float64{1, 1, 1}},
		{Mean: []float64{0, 0, 0}, Scale: []float64{1, 0, 1}},
		{Mean: []float64{0, 0, 0}, Scale: []float64{1, math.Inf(1), 1}},
	} {
		if _, err := NewKernel(context.Background(), km, z, KernelOptions{Input: &pre}); err == nil {
			t.Errorf("%+v: no error", pre)
		}
	}
}

// TestGeometryPreprocess checks the first layer's view of a ball through an
// input map directly: for points of the ball (Sample's, and the ends of
// every axis), the mapped displacement has at most the ℓ2 norm eps and
// obeys the Hölder bounds, and the mapped norm lies in [nL, nU]; without
// the unit-norm map eps is attained (an ℓ∞ corner, or the ℓ2 ball's end
// along the axis of the smallest scale), so it is not loose either.
func TestGeometryPreprocess(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const d = 7
	mean, scale := make([]float64, d), make([]float64, d)
	for j := range d {
		mean[j] = rng.Float64()
		scale[j] = math.Pow(10, 2*rng.Float64()-1)
	}
	km := randMachine(rng, 5, d, ntk.DefaultSpec(1))
	for _, pre := range []Preprocess{{Mean: mean, Scale: scale}, {UnitNorm: true}, {Mean: mean, Scale: scale, UnitNorm: true}} {
		for _, o := range []KernelOptions{{}, {Tight: true}, {Clip: true}, {Tight: true, Clip: true}} {
			z := randMatrix(rng, 4, d)
			o.Input = &pre
			c, err := NewKernel(context.Background(), km, z, o)
			if err != nil {
				t.Fatal(err)
			}
			w := make([]float64, d)
			for j := range w {
				w[j] = 1
				if pre.Scale != nil {
					w[j] = 1 / pre.Scale[j]
				}
			}
			for k := range c.x.Rows {
				var l1, l2 float64
				for j, v := range c.x.Row(k) {
					l1 += w[j] * math.Abs(v)
					l2 += (w[j] * v) * (w[j] * v)
				}
				if math.Abs(c.xn1[k]-l1) > 1e-12*l1 || (c.xnw != nil && math.Abs(c.xnw[k]-math.Sqrt(l2)) > 1e-12*l1) {
					t.Fatalf("%+v training point %d: weighted norms %v and %v, want %v and %v", pre, k, c.xn1[k], c.xnw, l1, math.Sqrt(l2))
				}
			}
			for i := range z.Rows {
				zk := mapRows(z.Slice(i, i+1, 0, d), pre.Mean, pre.Scale, pre.UnitNorm).Row(0)
				for _, b := range []Ball{{Linf, 1e-3}, {Linf, 0.05}, {Linf, 0.4}, {L2, 0.01}, {L2, 0.3}, {L2, 2}} {
					g := c.geometry(i, b)
					xs := Sample(rng, z.Row(i), b, 64, o.Clip)
					for j := range d {
						for _, s := range []float64{-1, 1} {
							x := append([]float64(nil), z.Row(i)...)
							x[j] += s * b.Radius
							if o.Clip {
								x[j] = min(max(x[j], 0), 1)
							}
							xs.Data = append(xs.Data, x...)
							xs.Rows++
						}
					}
					most := 0.0
					xk := mapRows(xs, pre.Mean, pre.Scale, pre.UnitNorm)
					for s := range xk.Rows {
						dk := make([]float64, d)
						for j, v := range xk.Row(s) {
							dk[j] = v - zk[j]
						}
						e, nx := linalg.Nrm2(dk), linalg.Nrm2(xk.Row(s))
						most = max(most, e/g.eps)
						tol := 1e-12 * (1 + nx)
						if e > g.eps+tol || nx < g.nL-tol || nx > g.nU+tol {
							t.Fatalf("%+v %v point %d sample %d: ‖Δ‖ = %v, ‖x'‖ = %v; geometry %+v", pre, b, i, s, e, nx, g)
						}
						v := km.X.Row(s % km.X.Rows)
						var l1, l2 float64
						for j := range v {
							l1 += w[j] * math.Abs(v[j])
							l2 += (w[j] * v[j]) * (w[j] * v[j])
						}
						if dot := math.Abs(linalg.Dot(dk, v)); (g.l1 > 0 && dot > g.l1*l1+tol) || (g.l2 > 0 && dot > g.l2*math.Sqrt(l2)+tol) {
							t.Fatalf("%+v %v point %d sample %d: |Δ·v| = %v, Hölder %v, Cauchy–Schwarz %v", pre, b, i, s, dot, g.l1*l1, g.l2*math.Sqrt(l2))
						}
					}
					if !pre.UnitNorm && !o.Clip && most < 1-1e-9 {
						t.Errorf("%+v %v point %d: the samples reach %.4f of eps = %v", pre, b, i, most, g.eps)
					}
				}
			}
		}
	}
}
