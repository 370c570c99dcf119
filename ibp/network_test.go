package ibp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

func newNet(t testing.TB, d, width, depth int, sw, sb float64, seed uint64) *ntk.Network[float64] {
	t.Helper()
	n, err := ntk.NewNetwork[float64](d, width, depth, sw, sb, seed)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNetworkSound samples points in balls and checks the exact f_T − f₀
// (or f_T) against the IBP interval, for every sound mode.
func TestNetworkSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const d = 10
	for _, depth := range []int{1, 2, 3} {
		for _, s := range [][2]float64{{1, 0}, {1.3, 0.5}} {
			for _, mode := range []F0Mode{F0Sound, F0None} {
				for _, norm := range []Norm{Linf, L2} {
					for _, clip := range []bool{false, true} {
						name := fmt.Sprintf("L=%d/sw=%g,sb=%g/%v/%v/clip=%v", depth, s[0], s[1], mode, norm, clip)
						t.Run(name, func(t *testing.T) {
							net := newNet(t, d, 64, depth, s[0], s[1], 1)
							net0 := newNet(t, d, 64, depth, s[0], s[1], 2)
							z := randMatrix(rng, 3, d)
							c, err := NewNetwork(net, net0, z, NetworkOptions{F0: mode, Clip: clip})
							if err != nil {
								t.Fatal(err)
							}
							for i := range z.Rows {
								for _, r := range []float64{1e-3, 0.05, 0.3} {
									b := Ball{norm, r}
									iv := c.Bound(i, b)
									out, err := c.Eval(Sample(rng, z.Row(i), b, 40, clip))
									if err != nil {
										t.Fatal(err)
									}
									for k, v := range out {
										if slack := 1e-12 * (1 + math.Abs(v)); v < iv.Lo-slack || v > iv.Hi+slack {
											t.Fatalf("point %d r=%g sample %d: %v outside %v", i, r, k, v, iv)
										}
									}
								}
								if iv := c.Bound(i, Ball{norm, 0}); math.Abs(iv.Lo-c.Output(i)) > 1e-12 || math.Abs(iv.Hi-c.Output(i)) > 1e-12 {
									t.Errorf("point %d: radius-0 bound %v, output %v", i, iv, c.Output(i))
								}
							}
						})
					}
				}
			}
		}
	}
}

// TestNetworkCleanMode checks that F0Clean is the IBP bound of f_T shifted
// by f₀ at the clean point, as ibp.py computes it.
func TestNetworkCleanMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	net, net0 := newNet(t, 8, 50, 1, 1, 0, 3), newNet(t, 8, 50, 1, 1, 0, 4)
	z := randMatrix(rng, 2, 8)
	clean, err := NewNetwork(net, net0, z, NetworkOptions{F0: F0Clean})
	if err != nil {
		t.Fatal(err)
	}
	none, _ := NewNetwork(net, nil, z, NetworkOptions{F0: F0None})
	only0, _ := NewNetwork(net0, nil, z, NetworkOptions{F0: F0None})
	for i := range z.Rows {
		b := Ball{Linf, 0.02}
		a, f := clean.Bound(i, b), none.Bound(i, b)
		f0 := only0.Output(i)
		if math.Abs(a.Lo-(f.Lo-f0)) > 1e-12 || math.Abs(a.Hi-(f.Hi-f0)) > 1e-12 {
			t.Errorf("clean %v, want %v − %v", a, f, f0)
		}
	}
}

// TestIBPWidthDecay checks the shape of Table 2: IBP certificates of
// NTK-parameterised networks shrink like 1/√m (paper eq. 69–71), so the
// ratio of mean radii between widths m and 10m is about √10.
func TestIBPWidthDecay(t *testing.T) {
	widths := []int{100, 1000, 10000}
	if testing.Short() {
		widths = widths[:2]
	}
	rng := rand.New(rand.NewPCG(15, 16))
	const d = 50
	z := randMatrix(rng, 40, d)
	var means []float64
	for _, m := range widths {
		net, net0 := newNet(t, d, m, 1, 1, 0, 21), newNet(t, d, m, 1, 1, 0, 22)
		c, err := NewNetwork(net, net0, z, NetworkOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := CertifyAll(context.Background(), c, nil, Linf, NetworkSearch(), 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		means = append(means, Summarize(rs).Mean)
	}
	for k := 1; k < len(means); k++ {
		if r := means[k-1] / means[k]; r < 2.2 || r > 4.5 {
			t.Errorf("mean δ %v at widths %v: ratio %.3f, want about √10 = 3.16", means, widths, r)
		}
	}
	t.Logf("mean δ %v at widths %v", means, widths)
}

func TestNewNetworkErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	net := newNet(t, 6, 10, 1, 1, 0, 1)
	z := randMatrix(rng, 2, 6)
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"nil net", func() error { _, err := NewNetwork(nil, nil, z, NetworkOptions{F0: F0None}); return err }},
		{"missing f0", func() error { _, err := NewNetwork(net, nil, z, NetworkOptions{}); return err }},
		{"f0 shape", func() error {
			_, err := NewNetwork(net, newNet(t, 6, 11, 1, 1, 0, 2), z, NetworkOptions{})
			return err
		}},
		{"dimension", func() error {
			_, err := NewNetwork(net, nil, randMatrix(rng, 2, 7), NetworkOptions{F0: F0None})
			return err
		}},
		{"mode", func() error { _, err := NewNetwork(net, nil, z, NetworkOptions{F0: 7}); return err }},
	} {
		if tc.fn() == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	for _, s := range []string{"sound", "clean", "none"} {
		if m, err := ParseF0Mode(s); err != nil || m.String() != s {
			t.Errorf("ParseF0Mode(%q) = %v, %v", s, m, err)
		}
	}
	if _, err := ParseF0Mode("x"); err == nil {
		t.Error("ParseF0Mode accepts x")
	}
}
