package ibp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// threshold is a certifier whose bound over a ball of radius δ is
// [out − slope·δ, out + slope·δ]: the sign is certified up to δ* = |out|/slope.
type threshold struct {
	out   []float64
	slope float64
	calls int
}

func (c *threshold) Len() int             { return len(c.out) }
func (c *threshold) Output(i int) float64 { return c.out[i] }
func (c *threshold) Bound(i int, b Ball) Interval {
	c.calls++
	if CheckBall(b) != nil {
		return nanInterval
	}
	return Interval{c.out[i] - c.slope*b.Radius, c.out[i] + c.slope*b.Radius}
}

func grow(o SearchOptions) SearchOptions {
	o.Grow = true
	return o
}

func TestSearch(t *testing.T) {
	for _, tc := range []struct {
		name     string
		out      float64
		slope    float64
		o        SearchOptions
		min, max float64 // the result's range
	}{
		{"inside", 1, 100, KernelSearch(), 0.01 - 1e-5, 0.01},
		{"negative output", -1, 100, KernelSearch(), 0.01 - 1e-5, 0.01},
		{"tiny", 1, 3e4, KernelSearch(), 1 / 3e4 * (1 - 1e-3), 1 / 3e4},
		{"beyond the bracket", 1, 1, KernelSearch(), 0.3 - 1e-12, 0.3},
		{"zero output", 0, 1, KernelSearch(), 0, 0},
		{"network start", 1, 50, NetworkSearch(), 0.02 - 2e-5, 0.02},
		{"one iteration", 1, 100, SearchOptions{Init: 0.05, Hi: 0.3, Tol: 1e-3, MaxIter: 1}, 0, 0},
		{"one certified", 1, 1, SearchOptions{Init: 0.05, Hi: 0.3, Tol: 1e-3, MaxIter: 1}, 0.05, 0.05},
		{"grow: far beyond the bracket", 1, 1e-3, grow(KernelSearch()), 1000 * (1 - 1e-3), 1000},
		{"grow: one doubling", 1, 2, grow(KernelSearch()), 0.5 * (1 - 1e-3), 0.5},
		{"grow: inside the bracket", 1, 100, grow(KernelSearch()), 0.01 - 1e-5, 0.01},
		{"grow: negative output", -1, 0.1, grow(KernelSearch()), 10 * (1 - 1e-3), 10},
		{"grow: margin below tol at Hi", 1, 1 / 0.3 * (1 - 1e-4), grow(KernelSearch()), 0.3, 0.3},
		{"grow: flat", 1, 0, grow(KernelSearch()), 0.3 * (1 << 39), 0.3 * (1 << 39)},
		{"grow: one iteration", 1, 1e-3, func() SearchOptions { o := grow(KernelSearch()); o.MaxIter = 1; return o }(), 0.3, 0.3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &threshold{out: []float64{tc.out}, slope: tc.slope}
			r := Search(c, 0, Linf, tc.o)
			if r.Radius < tc.min || r.Radius > tc.max {
				t.Errorf("radius %v, want in [%v, %v] (%d iterations)", r.Radius, tc.min, tc.max, r.Iters)
			}
			if r.Iters > tc.o.MaxIter || r.Iters != c.calls {
				t.Errorf("%d iterations, %d bounds, max %d", r.Iters, c.calls, tc.o.MaxIter)
			}
			// The certified radius really is certified.
			if r.Radius > 0 && Margin(tc.out, c.Bound(0, Ball{Linf, r.Radius})) < 0 {
				t.Errorf("radius %v is not certified", r.Radius)
			}
		})
	}
}

func TestCertifyAll(t *testing.T) {
	c := &threshold{out: []float64{1, -2, 0.5, 0}, slope: 100}
	rs, err := CertifyAll(context.Background(), c, nil, Linf, KernelSearch(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range rs {
		want := math.Abs(c.out[k]) / 100
		if r.Index != k || r.Radius > want || r.Radius < want-1e-3/100 {
			t.Errorf("point %d: %+v, want radius ≈ %v", k, r, want)
		}
	}
	s := Summarize(rs)
	if s.N != 4 || s.Min != 0 || math.Abs(s.Max-0.02) > 1e-4 || math.Abs(s.Mean-0.035/4) > 1e-4 {
		t.Errorf("summary %+v", s)
	}
	if _, err := CertifyAll(context.Background(), c, []int{}, Linf, KernelSearch(), 1, nil); !errors.Is(err, ErrNoPoints) {
		t.Errorf("empty point set: %v", err)
	}
	if _, err := CertifyAll(context.Background(), c, []int{4}, Linf, KernelSearch(), 1, nil); err == nil {
		t.Error("out-of-range point: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CertifyAll(ctx, c, nil, Linf, KernelSearch(), 2, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for _, o := range []SearchOptions{
		{Init: -1, Hi: 0.3, Tol: 1e-3, MaxIter: 10},
		{Init: math.NaN(), Hi: 0.3, Tol: 1e-3, MaxIter: 10},
		{Init: 0.1, Lo: 0.3, Hi: 0.3, Tol: 1e-3, MaxIter: 10},
		{Init: 0.1, Hi: math.Inf(1), Tol: 1e-3, MaxIter: 10},
		{Init: 0.1, Hi: 0.3, Tol: -1, MaxIter: 10},
		{Init: 0.1, Hi: 0.3, Tol: 1e-3, MaxIter: 0},
	} {
		if _, err := CertifyAll(context.Background(), c, nil, Linf, o, 1, nil); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
}

func TestParseNorm(t *testing.T) {
	for s, want := range map[string]Norm{"linf": Linf, "l2": L2} {
		if n, err := ParseNorm(s); err != nil || n != want || n.String() != s {
			t.Errorf("ParseNorm(%q) = %v, %v", s, n, err)
		}
	}
	if _, err := ParseNorm("l1"); err == nil {
		t.Error("ParseNorm accepts l1")
	}
}

// flipper evaluates to −1 everywhere: every certificate of a positive
// output is then violated.
type flipper struct{}

func (flipper) Eval(x linalg.Matrix[float64]) ([]float64, error) {
	out := make([]float64, x.Rows)
	for i := range out {
		out[i] = -1
	}
	return out, nil
}

func TestVerify(t *testing.T) {
	c := &threshold{out: []float64{1, 2, 0.5}, slope: 100}
	rs, err := CertifyAll(context.Background(), c, nil, Linf, KernelSearch(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	pt := func(int) []float64 { return []float64{0.5, 0.5} }
	bad, err := Verify(c, flipper{}, pt, rs, Linf, 3, false, 1)
	if err != nil || len(bad) != 9 {
		t.Errorf("%d violations (want 9), %v", len(bad), err)
	}
	for _, norm := range []Norm{Linf, L2} {
		s := Sample(rand.New(rand.NewPCG(1, 2)), []float64{0.5, 0.1, 0.9}, Ball{norm, 0.2}, 50, true)
		for i := range s.Rows {
			d := 0.0
			for j, v := range s.Row(i) {
				x := []float64{0.5, 0.1, 0.9}[j]
				if v < 0 || v > 1 {
					t.Fatalf("%v sample %v outside the box", norm, s.Row(i))
				}
				if norm == Linf {
					d = max(d, math.Abs(v-x))
				} else {
					d += (v - x) * (v - x)
				}
			}
			if norm == L2 {
				d = math.Sqrt(d)
			}
			if d > 0.2+1e-12 {
				t.Fatalf("%v sample %v at distance %v > 0.2", norm, s.Row(i), d)
			}
		}
	}
}
