package ibp

import (
	"fmt"
	"math"
	"sync"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// F0Mode says how a network certificate treats the initial network f₀
// whose output the authors subtract (the model is f_T − f₀).
type F0Mode int

const (
	// F0Sound bounds f_T(x') − f₀(x') over the ball by IBP through the
	// difference network (the default).
	F0Sound F0Mode = iota
	// F0Clean subtracts f₀ at the clean point, a constant, from the IBP
	// bounds of f_T: the authors' ibp.py, which is not sound.
	F0Clean
	// F0None certifies f_T itself (no initial network).
	F0None
)

// String returns "sound", "clean" or "none".
func (m F0Mode) String() string {
	switch m {
	case F0Sound:
		return "sound"
	case F0Clean:
		return "clean"
	case F0None:
		return "none"
	}
	return fmt.Sprintf("F0Mode(%d)", int(m))
}

// ParseF0Mode parses "sound", "clean" or "none".
func ParseF0Mode(s string) (F0Mode, error) {
	for _, m := range []F0Mode{F0Sound, F0Clean, F0None} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("ibp: unknown f0 mode %q: want sound, clean or none", s)
}

// NetworkOptions configure a Network certifier.
type NetworkOptions struct {
	F0   F0Mode // how f₀ is handled (needs an initial network unless F0None)
	Clip bool   // intersect the ball with [0, 1]^d (points must lie in it)
}

// Network certifies f_T − f₀ (or f_T) for NTK-parameterised networks over
// balls around the rows of a point matrix by interval bound propagation
// (paper App. H.2, eq. 67). Build it with NewNetwork.
type Network struct {
	nets []*ntk.Network[float64] // f_T, and f₀ unless F0None
	abs  [][]linalg.Matrix[float64]
	l1   [][]float64 // row ℓ1 norms of each net's first layer
	l2   [][]float64 // row ℓ2 norms
	wz   []linalg.Matrix[float64]
	opt  NetworkOptions
	z    linalg.Matrix[float64]
	f0   []float64 // f₀ at the points (0 for F0None)
	out  []float64 // f_T − f₀ at the points
	pool sync.Pool
}

type netScratch struct {
	mu, r, mu2, r2 []float64
}

// NewNetwork returns the IBP certifier of net (minus net0 unless
// o.F0 is F0None) over balls around the rows of z. Both networks must
// have the same architecture. It precomputes W⁰z for every point (one GEMM
// per network) and |W| of the hidden layers.
func NewNetwork(net, net0 *ntk.Network[float64], z linalg.Matrix[float64], o NetworkOptions) (*Network, error) {
	if net == nil {
		return nil, fmt.Errorf("ibp: no network")
	}
	nets := []*ntk.Network[float64]{net}
	switch o.F0 {
	case F0None:
	case F0Sound, F0Clean:
		if net0 == nil {
			return nil, fmt.Errorf("ibp: f0 mode %v needs the initial network", o.F0)
		}
		if net0.D != net.D || net0.Width != net.Width || net0.Depth != net.Depth ||
			net0.WeightStd != net.WeightStd || net0.BiasStd != net.BiasStd {
			return nil, fmt.Errorf("ibp: the initial network (%d→%d×%d) differs from the network (%d→%d×%d)",
				net0.D, net0.Width, net0.Depth, net.D, net.Width, net.Depth)
		}
		nets = append(nets, net0)
	default:
		return nil, fmt.Errorf("ibp: unknown f0 mode %v", o.F0)
	}
	if z.Cols != net.D {
		return nil, fmt.Errorf("ibp: points have %d features, the network %d inputs", z.Cols, net.D)
	}
	if err := checkMatrix("point", z, o.Clip); err != nil {
		return nil, err
	}
	c := &Network{nets: nets, opt: o, z: z}
	for _, nt := range nets {
		if err := c.prepare(nt); err != nil {
			return nil, err
		}
	}
	if err := c.outputs(); err != nil {
		return nil, err
	}
	m := net.Width
	c.pool.New = func() any {
		return &netScratch{mu: make([]float64, m), r: make([]float64, m), mu2: make([]float64, m), r2: make([]float64, m)}
	}
	return c, nil
}

// prepare precomputes what IBP needs of one network.
func (c *Network) prepare(nt *ntk.Network[float64]) error {
	for l, w := range nt.W {
		if err := checkMatrix(fmt.Sprintf("layer %d weight row", l), w, false); err != nil {
			return err
		}
	}
	w0 := nt.W[0]
	l1, l2 := make([]float64, w0.Rows), make([]float64, w0.Rows)
	for k := range w0.Rows {
		for _, v := range w0.Row(k) {
			l1[k] += math.Abs(v)
		}
		l2[k] = linalg.Nrm2(w0.Row(k))
	}
	abs := make([]linalg.Matrix[float64], len(nt.W))
	for l := 1; l < len(nt.W)-1; l++ {
		abs[l] = nt.W[l].Clone()
		for i := range abs[l].Data {
			abs[l].Data[i] = math.Abs(abs[l].Data[i])
		}
	}
	wz := linalg.New[float64](c.z.Rows, w0.Rows)
	if c.z.Rows > 0 {
		if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, 1, c.z, w0, 0, wz); err != nil {
			return err
		}
	}
	c.l1, c.l2, c.abs, c.wz = append(c.l1, l1), append(c.l2, l2), append(c.abs, abs), append(c.wz, wz)
	return nil
}

// outputs evaluates the networks at the points.
func (c *Network) outputs() error {
	c.out = make([]float64, c.z.Rows)
	c.f0 = make([]float64, c.z.Rows)
	if c.z.Rows == 0 {
		return nil
	}
	for k, nt := range c.nets {
		p, err := nt.Forward(c.z)
		if err != nil {
			return err
		}
		for i, v := range p.F {
			if k == 0 {
				c.out[i] += v
			} else {
				c.f0[i] = v
				c.out[i] -= v
			}
		}
	}
	return nil
}

// Eval returns the exact f_T − f₀ (or f_T) on the rows of x.
func (c *Network) Eval(x linalg.Matrix[float64]) ([]float64, error) {
	out := make([]float64, x.Rows)
	for k, nt := range c.nets {
		p, err := nt.Forward(x)
		if err != nil {
			return nil, err
		}
		for i, v := range p.F {
			if k == 0 {
				out[i] += v
			} else {
				out[i] -= v
			}
		}
	}
	return out, nil
}

// Len returns the number of points.
func (c *Network) Len() int { return c.z.Rows }

// Output returns f_T − f₀ (or f_T) at point i.
func (c *Network) Output(i int) float64 { return c.out[i] }

// Point returns point i (a view; do not modify).
func (c *Network) Point(i int) []float64 { return c.z.Row(i) }

// Clipped reports whether balls are intersected with [0, 1]^d.
func (c *Network) Clipped() bool { return c.opt.Clip }

// Bound returns the IBP interval of the model over the ball b around point
// i. With F0Sound it is IBP through the difference network, whose hidden
// layers hold the units of both networks side by side (first layer
// [W_T; W_0], deeper layers block-diagonal) and whose output weights are
// [a_T; −a_0]: the two halves never mix before the output, so this is the
// IBP of each network with the output intervals combined as
// [lo_T − hi_0, hi_T − lo_0].
func (c *Network) Bound(i int, b Ball) Interval {
	if CheckBall(b) != nil {
		return nanInterval
	}
	sc := c.pool.Get().(*netScratch)
	defer c.pool.Put(sc)
	mu, r := c.ibp(0, i, b, sc)
	switch {
	case c.opt.F0 == F0None:
		return Interval{mu - r, mu + r}
	case c.opt.F0 == F0Clean:
		return Interval{mu - r - c.f0[i], mu + r - c.f0[i]}
	}
	mu0, r0 := c.ibp(1, i, b, sc)
	return Interval{(mu - mu0) - (r + r0), (mu - mu0) + (r + r0)}
}

// ibp returns the centre and radius of network k's output interval over
// ball b around point i (eq. 67).
func (c *Network) ibp(k, i int, b Ball, sc *netScratch) (float64, float64) {
	nt := c.nets[k]
	mu, r := sc.mu, sc.r
	c.firstLayer(k, i, b, mu, r)
	for l := 1; l <= nt.Depth; l++ {
		// ReLU on both ends, then back to centre and radius.
		for j := range mu {
			lo, hi := max(mu[j]-r[j], 0), max(mu[j]+r[j], 0)
			mu[j], r[j] = (hi+lo)/2, (hi-lo)/2
		}
		s := nt.WeightStd / math.Sqrt(float64(nt.Width))
		if l == nt.Depth {
			w := nt.W[l].Row(0)
			m, rr := s*linalg.Dot(w, mu), 0.0
			for j, v := range w {
				rr += math.Abs(v) * r[j]
			}
			if nt.B != nil {
				m += nt.BiasStd * nt.B[l][0]
			}
			return m, s * rr
		}
		mu2, r2 := sc.mu2, sc.r2
		_ = linalg.Gemv(linalg.NoTrans, s, nt.W[l], mu, 0, mu2)
		_ = linalg.Gemv(linalg.NoTrans, s, c.abs[k][l], r, 0, r2)
		if nt.B != nil {
			linalg.Axpy(nt.BiasStd, nt.B[l], mu2)
		}
		mu, r, sc.mu2, sc.r2 = mu2, r2, mu, r
		sc.mu, sc.r = mu, r
	}
	panic("unreachable")
}

// firstLayer sets the centre and radius of network k's first
// pre-activations over ball b around point i: centre σ_w·W z/√d (+ σ_b b);
// radius σ_w·δ·‖W_j‖₁/√d for ℓ∞ and σ_w·r·‖W_j‖₂/√d for ℓ2 (Hölder and
// Cauchy–Schwarz, both exact for one unit). With Clip, the box
// [max(z − w, 0), min(z + w, 1)] gives a second interval, intersected.
func (c *Network) firstLayer(k, i int, b Ball, mu, r []float64) {
	nt := c.nets[k]
	s := nt.WeightStd / math.Sqrt(float64(nt.D))
	wz := c.wz[k].Row(i)
	norms := c.l1[k]
	if b.Norm == L2 {
		norms = c.l2[k]
	}
	for j := range mu {
		mu[j] = s * wz[j]
		r[j] = s * b.Radius * norms[j]
	}
	if c.opt.Clip {
		z := c.z.Row(i)
		for j := range mu {
			var cm, cr float64
			for t, w := range nt.W[0].Row(j) {
				lo, hi := max(z[t]-b.Radius, 0), min(z[t]+b.Radius, 1)
				cm += w * (hi + lo) / 2
				cr += math.Abs(w) * (hi - lo) / 2
			}
			lo := max(mu[j]-r[j], s*(cm-cr))
			hi := min(mu[j]+r[j], s*(cm+cr))
			mu[j], r[j] = (hi+lo)/2, max(hi-lo, 0)/2
		}
	}
	if nt.B != nil {
		linalg.Axpy(nt.BiasStd, nt.B[0], mu)
	}
}
