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

// randMatrix returns an r×c matrix of pixel-like values in [0, 1], about
// a third of them 0 as in MNIST.
func randMatrix(rng *rand.Rand, r, c int) linalg.Matrix[float64] {
	m := linalg.New[float64](r, c)
	for i := range m.Data {
		if rng.IntN(3) > 0 {
			m.Data[i] = rng.Float64()
		}
	}
	return m
}

func randMachine(rng *rand.Rand, n, d int, p ntk.Spec) KernelMachine {
	a := make([]float64, n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	return KernelMachine{X: randMatrix(rng, n, d), Alpha: a, Kernel: p}
}

// paperBound is robust_svm.py's bound_ntk as App. H.1 writes it (eq.
// 63–66, u clipped to [−1, 1]), for the 2-layer NTK with σ_w = 1, σ_b = 0,
// written independently of the package for comparison.
func paperBound(km KernelMachine, z []float64, delta float64) (lo, hi float64) {
	d := float64(len(z))
	eps := math.Sqrt(d) * delta
	zn := linalg.Nrm2(z)
	nL, nU := math.Max(zn-eps, 0), zn+eps
	h := func(u float64) float64 { return 2*u*(math.Pi-math.Acos(u)) + math.Sqrt(1-u*u) }
	us, hs := uStar, hStar // robust_svm.py's −0.79410 and −0.429738, to 15 digits (TestBowMinimum)
	for i := range km.X.Rows {
		x := km.X.Row(i)
		xn := linalg.Nrm2(x)
		dot := linalg.Dot(z, x)
		dL, dU := dot-eps*xn, dot+eps*xn
		var uL, uU float64
		if dL >= 0 {
			uL = dL / (nU * xn)
		} else {
			uL = dL / (nL * xn)
		}
		if dU >= 0 {
			uU = dU / (nL * xn)
		} else {
			uU = dU / (nU * xn)
		}
		uL, uU = math.Max(uL, -1), math.Min(math.Max(uU, -1), 1)
		uL = math.Min(uL, 1)
		hL, hU := math.Min(h(uL), h(uU)), math.Max(h(uL), h(uU))
		if uL <= us && us <= uU {
			hL = hs
		}
		var tL, tU float64
		if hL >= 0 {
			tL = nL * hL
		} else {
			tL = nU * hL
		}
		if hU >= 0 {
			tU = nU * hU
		} else {
			tU = nL * hU
		}
		tL *= xn / (2 * math.Pi * d)
		tU *= xn / (2 * math.Pi * d)
		if a := km.Alpha[i]; a > 0 {
			lo += a * tL
			hi += a * tU
		} else {
			lo += a * tU
			hi += a * tL
		}
	}
	return lo, hi
}

// TestPaperBound checks that the default 2-layer bound is eq. 63–66.
func TestPaperBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	km := randMachine(rng, 300, 40, ntk.DefaultSpec(1))
	z := randMatrix(rng, 5, 40)
	c, err := NewKernel(context.Background(), km, z, KernelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range z.Rows {
		for _, delta := range []float64{0, 1e-4, 1e-3, 0.01, 0.05, 0.3, 2} {
			lo, hi := paperBound(km, z.Row(i), delta)
			iv := c.Bound(i, Ball{Linf, delta})
			tol := 1e-9 * (1 + math.Abs(lo) + math.Abs(hi))
			if math.Abs(iv.Lo-lo) > tol || math.Abs(iv.Hi-hi) > tol {
				t.Errorf("point %d δ=%g: got [%.12g, %.12g], paper [%.12g, %.12g]", i, delta, iv.Lo, iv.Hi, lo, hi)
			}
		}
		if g := c.Output(i); !c.Bound(i, Ball{Linf, 0}).Contains(g) && math.Abs(c.Bound(i, Ball{Linf, 0}).Lo-g) > 1e-12 {
			t.Errorf("point %d: output %v outside the radius-0 bound %v", i, g, c.Bound(i, Ball{Linf, 0}))
		}
	}
}

// pairBounds returns the intervals of Θ(x', x_i) for every active x_i.
func pairBounds(c *Kernel, i int, b Ball) (lo, hi []float64) {
	geo := c.geometry(i, b)
	sc := new(kernelScratch)
	g := c.g.Row(i)
	for j0 := 0; j0 < len(g); j0 += chunk {
		j1 := min(len(g), j0+chunk)
		c.chunkBounds(sc, &geo, g[j0:j1], j0)
		lo = append(lo, sc.tL[:j1-j0]...)
		hi = append(hi, sc.tU[:j1-j0]...)
	}
	return lo, hi
}

// TestKernelSound samples points in random balls and checks every exact
// kernel value Θ(x', x_i) and every output g(x') against its interval.
func TestKernelSound(t *testing.T) {
	type tc struct {
		depth       int
		sw, sb      float64
		norm        Norm
		tight, clip bool
		radii       []float64
	}
	var cases []tc
	for _, depth := range []int{1, 2, 3} {
		for _, s := range [][2]float64{{1, 0}, {1.5, 0.3}, {0.8, 1}} {
			for _, norm := range []Norm{Linf, L2} {
				for _, o := range [][2]bool{{false, false}, {true, false}, {true, true}, {false, true}} {
					r := []float64{1e-3, 0.02, 0.1}
					if norm == L2 {
						r = []float64{0.01, 0.3, 2}
					}
					cases = append(cases, tc{depth, s[0], s[1], norm, o[0], o[1], r})
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d, samples = 40, 12, 24
	for _, k := range cases {
		name := fmt.Sprintf("L=%d/sw=%g,sb=%g/%v/tight=%v,clip=%v", k.depth, k.sw, k.sb, k.norm, k.tight, k.clip)
		t.Run(name, func(t *testing.T) {
			p := ntk.Spec{Depth: k.depth, WeightStd: k.sw, BiasStd: k.sb}
			km := randMachine(rng, n, d, p)
			km.X.Row(3)[0], km.X.Row(3)[1] = 0, 0
			for j := range km.X.Row(5) {
				km.X.Row(5)[j] = 0 // a zero training input
			}
			z := randMatrix(rng, 3, d)
			for j := range 12 { // nearly opposite pairs (ρ near −1, around u*) and signed data
				r := km.X.Row(10 + j)
				for t, v := range z.Row(j % 3) {
					r[t] = -v*(1+0.3*rng.Float64()) + 0.05*float64(j)*rng.NormFloat64()
				}
			}
			c, err := NewKernel(context.Background(), km, z, KernelOptions{Tight: k.tight, Clip: k.clip})
			if err != nil {
				t.Fatal(err)
			}
			gen, err := NewKernel(context.Background(), km, z, KernelOptions{Tight: k.tight, Clip: k.clip, general: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := range z.Rows {
				for _, r := range k.radii {
					b := Ball{k.norm, r}
					lo, hi := pairBounds(gen, i, b)
					if a, g := c.Bound(i, b), gen.Bound(i, b); math.Abs(a.Lo-g.Lo) > 1e-12*(1+math.Abs(g.Lo)) || math.Abs(a.Hi-g.Hi) > 1e-12*(1+math.Abs(g.Hi)) {
						t.Fatalf("point %d r=%g: fast path %v, general %v", i, r, a, g)
					}
					iv := c.Bound(i, b)
					xs := Sample(rng, z.Row(i), b, samples, k.clip)
					th, err := ntk.Cross(context.Background(), p, xs, gen.x, ntk.Options{})
					if err != nil {
						t.Fatal(err)
					}
					out, _ := c.Eval(xs)
					for s := range xs.Rows {
						for j, v := range th.Row(s) {
							slack := 1e-12 * (1 + math.Abs(v))
							if v < lo[j]-slack || v > hi[j]+slack {
								t.Fatalf("point %d r=%g sample %d: Θ(x', x_%d) = %.15g outside [%.15g, %.15g]", i, r, s, j, v, lo[j], hi[j])
							}
						}
						if slack := 1e-10 * (1 + math.Abs(out[s])); out[s] < iv.Lo-slack || out[s] > iv.Hi+slack {
							t.Fatalf("point %d r=%g: g(x') = %v outside %v", i, r, out[s], iv)
						}
					}
				}
			}
		})
	}
}

// TestKernelTighter checks that Tight, Clip and the deep propagation at
// L = 1 never give a looser interval than the paper's bound.
func TestKernelTighter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	km := randMachine(rng, 200, 30, ntk.DefaultSpec(1))
	z := randMatrix(rng, 4, 30)
	paper, err := NewKernel(context.Background(), km, z, KernelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []KernelOptions{{Tight: true}, {Clip: true}, {Tight: true, Clip: true}} {
		c, err := NewKernel(context.Background(), km, z, o)
		if err != nil {
			t.Fatal(err)
		}
		strictly := false
		for i := range z.Rows {
			for _, delta := range []float64{1e-3, 0.01, 0.05, 0.2} {
				a, b := paper.Bound(i, Ball{Linf, delta}), c.Bound(i, Ball{Linf, delta})
				tol := 1e-12 * (math.Abs(a.Lo) + math.Abs(a.Hi))
				if b.Lo < a.Lo-tol || b.Hi > a.Hi+tol {
					t.Errorf("%+v point %d δ=%g: %v looser than the paper's %v", o, i, delta, b, a)
				}
				strictly = strictly || b.Hi-b.Lo < 0.99*(a.Hi-a.Lo)
			}
		}
		if !strictly {
			t.Errorf("%+v is never tighter than the paper's bound", o)
		}
	}
}

func TestNewKernelErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	good := randMachine(rng, 10, 5, ntk.DefaultSpec(1))
	z := randMatrix(rng, 2, 5)
	nan := z.Clone()
	nan.Data[3] = math.NaN()
	out := z.Clone()
	out.Data[0] = 1.5
	badAlpha := good
	badAlpha.Alpha = append([]float64(nil), good.Alpha...)
	badAlpha.Alpha[2] = math.Inf(1)
	short := good
	short.Alpha = good.Alpha[:3]
	badP := good
	badP.Kernel = ntk.Spec{Depth: 1, WeightStd: 0}
	inputKernel := good
	inputKernel.Kernel = ntk.Spec{Depth: 0, WeightStd: 1}
	nngp := good
	nngp.Kernel = ntk.Spec{Kind: ntk.KindNNGP, Depth: 1, WeightStd: 1}
	fixed := good
	fixed.Kernel = ntk.Spec{Depth: 2, WeightStd: 1, Fixed: 1}
	for _, tc := range []struct {
		name string
		km   KernelMachine
		z    linalg.Matrix[float64]
		o    KernelOptions
	}{
		{"dimension", good, randMatrix(rng, 2, 6), KernelOptions{}},
		{"nan point", good, nan, KernelOptions{}},
		{"clip outside box", good, out, KernelOptions{Clip: true}},
		{"alpha inf", badAlpha, z, KernelOptions{}},
		{"alpha length", short, z, KernelOptions{}},
		{"params", badP, z, KernelOptions{}},
		{"input kernel", inputKernel, z, KernelOptions{}},
		{"nngp", nngp, z, KernelOptions{}},
		{"fixed layers", fixed, z, KernelOptions{}},
	} {
		if _, err := NewKernel(context.Background(), tc.km, tc.z, tc.o); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	c, err := NewKernel(context.Background(), good, z, KernelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []float64{-1, math.NaN(), math.Inf(1)} {
		if iv := c.Bound(0, Ball{Linf, r}); !math.IsNaN(iv.Lo) || !math.IsNaN(iv.Hi) {
			t.Errorf("radius %v: got %v, want NaN", r, iv)
		}
		if CheckBall(Ball{Linf, r}) == nil {
			t.Errorf("CheckBall accepts radius %v", r)
		}
	}
}

func TestKernelAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	km := randMachine(rng, 700, 20, ntk.DefaultSpec(2))
	c, err := NewKernel(context.Background(), km, randMatrix(rng, 2, 20), KernelOptions{Tight: true})
	if err != nil {
		t.Fatal(err)
	}
	c.Bound(0, Ball{Linf, 0.01})
	if a := testing.AllocsPerRun(20, func() { c.Bound(1, Ball{Linf, 0.01}) }); a != 0 {
		t.Errorf("Bound allocates %v times", a)
	}
}

// TestBowMinimum checks u* and h(u*) against robust_svm.py's constants.
func TestBowMinimum(t *testing.T) {
	if math.Abs(uStar-(-0.79410)) > 5e-6 || math.Abs(hStar-(-0.429738)) > 5e-7 {
		t.Errorf("u* = %.8f, h(u*) = %.8f; want −0.79410, −0.429738", uStar, hStar)
	}
	h := func(u float64) float64 { return 2*u*(math.Pi-math.Acos(u)) + math.Sqrt(1-u*u) }
	for u := -1.0; u <= 1; u += 1e-4 {
		if h(u) < hStar {
			t.Fatalf("h(%v) = %v below h(u*) = %v", u, h(u), hStar)
		}
	}
}

// TestKernelNested checks that the intervals grow with the radius (the
// search's bracket relies on it) and contain the exact output at radius 0.
func TestKernelNested(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, depth := range []int{1, 2, 3} {
		for _, o := range []KernelOptions{{}, {Tight: true}, {Clip: true}} {
			p := ntk.Spec{Depth: depth, WeightStd: 1.2, BiasStd: 0.2 * float64(depth-1)}
			km := randMachine(rng, 150, 16, p)
			z := randMatrix(rng, 3, 16)
			c, err := NewKernel(context.Background(), km, z, o)
			if err != nil {
				t.Fatal(err)
			}
			for i := range z.Rows {
				prev := c.Bound(i, Ball{Linf, 0})
				if g := c.Output(i); g < prev.Lo-1e-12*(1+math.Abs(g)) || g > prev.Hi+1e-12*(1+math.Abs(g)) {
					t.Errorf("L=%d %+v point %d: output %v outside the radius-0 bound %v", depth, o, i, g, prev)
				}
				for _, r := range []float64{1e-5, 1e-4, 1e-3, 0.01, 0.1, 0.3} {
					iv := c.Bound(i, Ball{Linf, r})
					tol := 1e-12 * (1 + math.Abs(iv.Lo) + math.Abs(iv.Hi))
					if iv.Lo > prev.Lo+tol || iv.Hi < prev.Hi-tol {
						t.Errorf("L=%d %+v point %d: bound at %g %v not containing the smaller one %v", depth, o, i, r, iv, prev)
					}
					if lo, hi := c.BoundEnd(i, Ball{Linf, r}, true), c.BoundEnd(i, Ball{Linf, r}, false); lo != iv.Lo || hi != iv.Hi {
						t.Errorf("L=%d %+v: BoundEnd gives [%v, %v], Bound %v", depth, o, lo, hi, iv)
					}
					prev = iv
				}
			}
		}
	}
}
