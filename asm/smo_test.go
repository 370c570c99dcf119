package asm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// smoCase is random input to the SMO kernels. With few distinct values
// (levels > 0) the objectives tie often, which tests the tie-breaking.
type smoCase struct {
	g, sgn, lowPen, upPen, diag, ki, kj []float64
	gmax, qii, shift, d                 float64
	i                                   int
}

func newSMOCase(rng *rand.Rand, n, off, levels int) smoCase {
	c := smoCase{}
	for _, p := range []*[]float64{&c.g, &c.sgn, &c.lowPen, &c.upPen, &c.diag, &c.ki, &c.kj} {
		*p = alignedFloats[float64](n, (off+len(c.g))%4)
	}
	val := func(lo, hi float64) float64 {
		if levels > 0 {
			return lo + (hi-lo)*float64(rng.IntN(levels))/float64(levels)
		}
		return lo + (hi-lo)*rng.Float64()
	}
	for t := range n {
		c.sgn[t] = 1
		if rng.IntN(2) == 0 {
			c.sgn[t] = -1
		}
		c.g[t] = val(-2, 2)
		if rng.IntN(4) == 0 {
			c.lowPen[t] = math.Inf(1)
		}
		if rng.IntN(4) == 0 {
			c.upPen[t] = math.Inf(-1)
		}
		c.diag[t] = val(0.5, 1.5)
		c.ki[t] = val(-1, 1)
		c.kj[t] = val(-1, 1)
		if rng.IntN(8) == 0 {
			c.ki[t] = 2 * c.diag[t] // q ≤ 0
		}
	}
	c.gmax = val(-1, 3)
	c.qii = val(0.5, 1.5)
	c.d = val(0, 0.5)
	if rng.IntN(2) == 0 {
		c.shift = 0.25
	}
	c.i = rng.IntN(n+1) - 1
	return c
}

func TestSMOSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range available {
		for n := 0; n <= 70; n++ {
			for off := range 4 {
				for _, levels := range []int{0, 3} {
					c := newSMOCase(rng, n, off, levels)
					wantJ, _, wantMin := smoSelectGo(c.g, c.sgn, c.lowPen, c.diag, c.ki, c.gmax, c.qii, c.shift, c.i, 0, -1, math.Inf(1), math.Inf(1))
					j, gmin := k.SMOSelect64(c.g, c.sgn, c.lowPen, c.diag, c.ki, c.gmax, c.qii, c.shift, c.i)
					if j != wantJ || gmin != wantMin {
						t.Fatalf("%s n=%d off=%d levels=%d: j=%d gmin=%v, want %d, %v", k.name, n, off, levels, j, gmin, wantJ, wantMin)
					}
				}
			}
		}
	}
}

func TestSMOUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range available {
		for n := 0; n <= 70; n++ {
			for off := range 4 {
				for _, levels := range []int{0, 3} {
					c := newSMOCase(rng, n, off, levels)
					g, intact := guarded[float64](n, off)
					copy(g, c.g)
					want := append([]float64(nil), c.g...)
					wantNext, wantMax := smoNone(smoUpdateGo(want, c.sgn, c.upPen, c.ki, c.kj, c.d, 0, -1, math.Inf(-1)))
					next, vmax := k.SMOUpdate64(g, c.sgn, c.upPen, c.ki, c.kj, c.d)
					if next != wantNext || vmax != wantMax {
						t.Fatalf("%s n=%d off=%d levels=%d: next=%d max=%v, want %d, %v", k.name, n, off, levels, next, vmax, wantNext, wantMax)
					}
					if i := firstDiff(g, want); i >= 0 {
						t.Fatalf("%s n=%d off=%d: g[%d] = %v, want %v", k.name, n, off, i, g[i], want[i])
					}
					if !intact() {
						t.Fatalf("%s n=%d off=%d: wrote outside g", k.name, n, off)
					}
				}
			}
		}
	}
}

// TestSMOTies checks the documented choices on inputs built to tie: every
// candidate has the same objective (the last wins), the excluded i, and
// no candidate at all; every v equal (the last wins), and every v −Inf.
func TestSMOTies(t *testing.T) {
	for _, k := range available {
		for _, n := range []int{1, 3, 4, 5, 8, 13} {
			ones := func(v float64) []float64 {
				s := make([]float64, n)
				for t := range s {
					s[t] = v
				}
				return s
			}
			g, sgn, pen, diag, ki := ones(-1), ones(1), ones(0), ones(1), ones(0)
			// v = 1 everywhere, b = 1, q = 2: every t but i is a candidate.
			if j, gmin := k.SMOSelect64(g, sgn, pen, diag, ki, 2, 1, 0, n-1); j != n-2 || gmin != 1 {
				t.Errorf("%s n=%d: j=%d gmin=%v, want %d, 1", k.name, n, j, gmin, n-2)
			}
			if j, _ := k.SMOSelect64(g, sgn, pen, diag, ki, 1, 1, 0, -1); j != -1 {
				t.Errorf("%s n=%d: j=%d with no b > 0, want -1", k.name, n, j)
			}
			if next, vmax := k.SMOUpdate64(g, sgn, pen, ki, ki, 1); next != n-1 || vmax != 1 {
				t.Errorf("%s n=%d: next=%d max=%v, want %d, 1", k.name, n, next, vmax, n-1)
			}
			if next, vmax := k.SMOUpdate64(g, sgn, ones(math.Inf(-1)), ki, ki, 1); next != -1 || !math.IsInf(vmax, -1) {
				t.Errorf("%s n=%d: next=%d max=%v with I_up empty, want -1, -Inf", k.name, n, next, vmax)
			}
		}
	}
}

func TestSMOLengths(t *testing.T) {
	a, b := make([]float64, 5), make([]float64, 4)
	for name, f := range map[string]func(){
		"select": func() { SMOSelect64(a, a, a, a, b, 0, 0, 0, 0) },
		"update": func() { SMOUpdate64(a, a, b, a, a, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on mismatched lengths", name)
				}
			}()
			f()
		}()
	}
}

func BenchmarkSMOSelect(b *testing.B) {
	for _, k := range available {
		b.Run(k.name, func(b *testing.B) {
			c := newSMOCase(rand.New(rand.NewPCG(5, 6)), 136, 0, 0)
			for range b.N {
				k.SMOSelect64(c.g, c.sgn, c.lowPen, c.diag, c.ki, c.gmax, c.qii, c.shift, c.i)
			}
		})
	}
}

func BenchmarkSMOUpdate(b *testing.B) {
	for _, k := range available {
		b.Run(k.name, func(b *testing.B) {
			c := newSMOCase(rand.New(rand.NewPCG(5, 6)), 136, 0, 0)
			for range b.N {
				k.SMOUpdate64(c.g, c.sgn, c.upPen, c.ki, c.kj, 1e-9)
			}
		})
	}
}

func TestAxpyUnfused(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range available {
		for n := 0; n <= 70; n++ {
			for _, off := range reluOffsets {
				x := alignedFloats[float64](n, off[0])
				y, intact := guarded[float64](n, off[1])
				for i := range x {
					x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
				}
				alpha := rng.NormFloat64()
				want := make([]float64, n)
				for i := range want {
					want[i] = y[i] + float64(alpha*x[i])
				}
				k.AxpyUnfused64(alpha, x, y)
				if i := firstDiff(y, want); i >= 0 {
					t.Fatalf("%s n=%d off=%v: y[%d] = %v, want %v", k.name, n, off, i, y[i], want[i])
				}
				if !intact() {
					t.Fatalf("%s n=%d off=%v: wrote outside y", k.name, n, off)
				}
			}
		}
	}
}
