package ibp

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
)

// curve is a monotone certifier whose margin at radius δ is
// |out| − a·δ − b·δ² (b may be negative while the margin still decreases
// on the bracket), with the rounding slack sigma.
type curve struct {
	out         float64
	a, b, sigma float64
	calls       int
}

func (c *curve) Len() int           { return 1 }
func (c *curve) Output(int) float64 { return c.out }
func (c *curve) margin(r float64) float64 {
	return math.Abs(c.out) - c.a*r - c.b*r*r
}
func (c *curve) Bound(_ int, b Ball) Interval {
	s := c.margin(b.Radius)
	if c.out > 0 {
		return Interval{s, math.Inf(1)}
	}
	return Interval{math.Inf(-1), -s}
}
func (c *curve) BoundEnd(i int, b Ball, lower bool) float64 {
	c.calls++
	iv := c.Bound(i, b)
	if lower {
		return iv.Lo
	}
	return iv.Hi
}
func (c *curve) marginSlack(int, Ball) (float64, bool) { return c.sigma, c.sigma > 0 }

// plain hides a certifier's monotonicity, so that Search evaluates every
// step (the reference).
type plain struct {
	Certifier
	endBounder
}

func TestSearchMonotone(t *testing.T) {
	o := KernelSearch()
	for _, tc := range []struct {
		name      string
		out, a, b float64
		sigma     float64
		o         SearchOptions
	}{
		{"table 3, λ = 0", 1, 3e4, 0, 1e-9, o},
		{"table 3, λ = 1000", 0.2, 10, -5, 1e-12, o},
		{"negative output", -0.97, 3.2e4, 1e3, 1e-9, o},
		{"curved", 0.5, 1, 50, 1e-12, o},
		{"beyond the bracket", 1, 1, 0, 1e-12, o},
		{"large slack", 1, 100, 0, 3e-4, o},
		{"slack past the tolerance", 1, 100, 0, 1e-2, o},
		{"margin below the tolerance", 5e-4, 1, 0, 1e-9, o},
		{"zero tolerance", 1, 100, 0, 1e-12, SearchOptions{Init: 0.05, Hi: 0.3, Tol: 0, MaxIter: 1000}},
		{"one iteration", 1, 100, 0, 1e-12, SearchOptions{Init: 0.05, Hi: 0.3, Tol: 1e-3, MaxIter: 1}},
		{"few iterations", 1, 3e4, 0, 1e-12, SearchOptions{Init: 0.05, Hi: 0.3, Tol: 1e-3, MaxIter: 7}},
		{"start past the bracket", 1, 30, 0, 1e-12, SearchOptions{Init: 0.5, Hi: 0.3, Tol: 1e-3, MaxIter: 1000}},
		{"network start", 1, 50, 0, 1e-12, NetworkSearch()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &curve{out: tc.out, a: tc.a, b: tc.b, sigma: tc.sigma}
			got := Search(c, 0, Linf, tc.o)
			ref := &curve{out: tc.out, a: tc.a, b: tc.b}
			want := Search(plain{ref, ref}, 0, Linf, tc.o)
			if got.Radius != want.Radius || got.Iters != want.Iters || got.Bounds != c.calls {
				t.Errorf("got %+v (%d bounds), want %+v", got, c.calls, want)
			}
			if want.Bounds != want.Iters || want.Iters != ref.calls {
				t.Errorf("reference %+v, %d bounds", want, ref.calls)
			}
			if got.Radius > 0 && c.margin(got.Radius) < 0 {
				t.Errorf("radius %v is not certified", got.Radius)
			}
			t.Logf("%d steps, %d bounds", got.Iters, got.Bounds)
		})
	}
}

// sameSearch checks that Search on c (monotone) gives the radii and steps
// of the reference search on every point, with no more bounds in all.
func sameSearch(t *testing.T, c monotoneCertifier, norm Norm) {
	t.Helper()
	sameSearchWith(t, c, norm, KernelSearch())
}

// sameSearchWith is sameSearch with the search options o.
func sameSearchWith(t *testing.T, c monotoneCertifier, norm Norm, o SearchOptions) {
	t.Helper()
	ref := plain{c, c}
	var bounds, steps int
	for i := range c.Len() {
		got, want := Search(c, i, norm, o), Search(ref, i, norm, o)
		if got.Radius != want.Radius || got.Iters != want.Iters {
			t.Errorf("%v point %d: %+v, the reference search %+v", norm, i, got, want)
		}
		bounds += got.Bounds
		steps += got.Iters
	}
	if bounds > steps {
		t.Errorf("%v: %d bounds for %d steps", norm, bounds, steps)
	}
	t.Logf("%v: %d bounds for %d steps", norm, bounds, steps)
}

func TestKernelSearchSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	km := randMachine(rng, 300, 50, ntk.DefaultSpec(1))
	for _, scale := range []float64{1e-2, 1} {
		km := km
		km.Alpha = make([]float64, len(km.Alpha))
		for i := range km.Alpha {
			km.Alpha[i] = scale * rng.NormFloat64()
		}
		for _, clip := range []bool{false, true} {
			c, err := NewKernel(context.Background(), km, randMatrix(rng, 40, 50), KernelOptions{Clip: clip})
			if err != nil {
				t.Fatal(err)
			}
			for _, norm := range []Norm{Linf, L2} {
				sameSearch(t, c, norm)
			}
		}
	}
	// Off the paper's case every step is evaluated.
	c, err := NewKernel(context.Background(), km, randMatrix(rng, 3, 50), KernelOptions{Tight: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := Search(c, 0, Linf, KernelSearch()); r.Bounds != r.Iters {
		t.Errorf("tight: %+v", r)
	}
}

// TestKernelSearchMNIST compares the search with the reference on every
// MNIST 0/1 test point, for KRR machines on the first 2,000 training
// points at the λ of Table 3's ends. It needs MNIST in $NTKSVM_MNIST_DIR
// (skipped without it, or with -short; failed when it names no readable
// MNIST files).
func TestKernelSearchMNIST(t *testing.T) {
	dir, set, err := mnist.RealDataDir()
	if testing.Short() || !set {
		t.Skipf("needs $%s and no -short", mnist.EnvDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := mnist.LoadBinary[float64](dir, 0, 1, mnist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	x := train.X.Slice(0, n, 0, train.X.Cols)
	p := ntk.DefaultSpec(1)
	for _, lambda := range []float64{0, 1000} {
		k := linalg.New[float64](n, n)
		if err := ntk.FillGram(context.Background(), p, x, ntk.Options{}, k); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			k.Set(i, i, k.At(i, i)+lambda/2)
		}
		y := linalg.New[float64](n, 1)
		copy(y.Data, train.Y[:n])
		if err := linalg.SolveSPD(k, y); err != nil {
			t.Fatal(err)
		}
		km := KernelMachine{X: x, Alpha: y.Data, Kernel: p}
		c, err := NewKernel(context.Background(), km, test.X, KernelOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("λ = %g", lambda)
		sameSearch(t, c, Linf)
	}
}
