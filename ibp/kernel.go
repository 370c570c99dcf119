package ibp

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// KernelMachine is the model g(x) = Σ_i α_i Θ(x, x_i) + b of paper Theorem
// 4.2, with Θ the infinite-width NTK of an L-hidden-layer ReLU network
// (Kernel) and x_i the rows of X.
type KernelMachine struct {
	X      linalg.Matrix[float64] // training inputs, n×d
	Alpha  []float64              // one weight per row of X
	Bias   float64                // b (0 for the paper's machines)
	Kernel ntk.Spec               // the NTK: depth L ≥ 1, σ_w, σ_b (no fixed layers; computed in float64)
}

// KernelOptions select the input relaxation of a Kernel certifier. The zero
// value is the paper's (App. H.1, robust_svm.py).
type KernelOptions struct {
	// Tight adds, for ℓ∞ balls, the exact range of ‖x'‖ over the box and
	// Hölder's |Δ·x_i| ≤ δ‖x_i‖₁ to the paper's ℓ2 relaxation (the tighter
	// of the two is used), and at L = 1 also bounds Θ by its second form
	// (see the package documentation). Off, the bounds at L = 1 are
	// exactly eq. 63–66.
	Tight bool
	// Clip intersects the ball with the pixel box [0, 1]^d (every point
	// must lie in the box). Off by default: the paper does not clip.
	Clip bool
	// Input, if not nil, is the map the machine applies to its inputs
	// before the kernel (its training inputs X are already mapped); the
	// points and balls are in the units before it.
	Input *Preprocess

	general bool // tests: no fast path for the paper's case
}

// Kernel certifies a KernelMachine over balls around the rows of a point
// matrix Z by interval propagation through the NTK recursion (see the
// package documentation). Build it with NewKernel.
type Kernel struct {
	p     ntk.Spec
	opt   KernelOptions
	d     int
	z     linalg.Matrix[float64] // the points, m×d
	za    linalg.Matrix[float64] // the points after the affine part of opt.Input (z without one)
	zk    linalg.Matrix[float64] // the points as the kernel sees them (z without opt.Input)
	w     []float64              // 1/Scale of opt.Input, nil without one
	wn2   float64                // ‖w‖₂ (√d without w)
	wmax  float64                // max_j w_j (1 without w)
	g     linalg.Matrix[float64] // zk·x_iᵀ for the active x_i, m×n
	x     linalg.Matrix[float64] // the active x_i (α_i ≠ 0)
	alpha []float64              // their α_i
	bias  float64
	xn2   []float64   // ‖x_i‖₂
	xn1   []float64   // ‖w∘x_i‖₁ (‖x_i‖₁ without w)
	xnw   []float64   // ‖w∘x_i‖₂, with w and Tight only
	nb    [][]float64 // nb[h][i] = √Σ^{h+1}(x_i, x_i), h = 0…L−1
	inb   [][]float64 // 1/nb[h][i], 0 where nb is 0
	zn    []float64   // ‖zk_k‖₂
	zan   []float64   // ‖za_k‖₂
	both  bool        // intersect the two forms of Θ^{h+1} (not at L = 1 without Tight: the paper's bound)
	// The paper's case (L = 1, σ_b = 0, not Tight) has a fast path: g holds
	// x·x_i/‖x_i‖ and beta_i = α_i·σ_w⁴·‖x_i‖/d.
	fast bool
	npos int // the active x_i with α_i > 0 come first, [0, npos)
	beta []float64
	sumb float64 // Σ|beta_i|
	ones []float64
	out  []float64 // g(z_k)
	pool sync.Pool
}

// chunk is the number of training points whose intervals are propagated
// through all layers together (the scratch then stays in L1 cache).
const chunk = 256

type kernelScratch struct {
	sL, sU, tL, tU, rL, rU, pL, pU, aL, aU [chunk]float64
	// paperEnd: the correlations to evaluate h at, h/(2π) there, and
	// which rule combines them.
	u, h, junk [2 * chunk]float64
	mode       [chunk]uint8
}

// NewKernel returns the certifier of km over balls around the rows of z.
// The products z·x_iᵀ are one GEMM; the clean outputs g(z_k) come from the
// exact kernel (ntk.FillCross). Training points with α_i = 0 are dropped.
// It returns an error if the shapes disagree, a value is not finite, the
// kernel parameters are invalid, or Clip is set and a point lies outside
// [0, 1]^d.
func NewKernel(ctx context.Context, km KernelMachine, z linalg.Matrix[float64], o KernelOptions) (*Kernel, error) {
	if err := km.Kernel.Validate(); err != nil {
		return nil, fmt.Errorf("ibp: %w", err)
	}
	switch {
	case km.Kernel.Kind != ntk.KindNTK:
		return nil, fmt.Errorf("ibp: kernel %v: the bounds are for the NTK", km.Kernel.Kind)
	case km.Kernel.Depth < 1:
		return nil, fmt.Errorf("ibp: depth %d: the bounds are for a network with 1 or more hidden layers", km.Kernel.Depth)
	case km.Kernel.Fixed != 0:
		return nil, fmt.Errorf("ibp: the NTK with %d fixed layers: the bounds are for the NTK of a network trained in every layer", km.Kernel.Fixed)
	}
	n, d := km.X.Rows, km.X.Cols
	switch {
	case len(km.Alpha) != n:
		return nil, fmt.Errorf("ibp: %d weights α for %d training points", len(km.Alpha), n)
	case z.Cols != d:
		return nil, fmt.Errorf("ibp: points have %d features, the model's training inputs %d", z.Cols, d)
	case d == 0:
		return nil, fmt.Errorf("ibp: inputs have no features")
	case !finite(km.Bias):
		return nil, fmt.Errorf("ibp: bias %v is not finite", km.Bias)
	}
	if err := checkFinite("weight α", km.Alpha); err != nil {
		return nil, err
	}
	if err := checkMatrix("training input", km.X, false); err != nil {
		return nil, err
	}
	if err := checkMatrix("point", z, o.Clip); err != nil {
		return nil, err
	}
	c := &Kernel{p: km.Kernel, opt: o, d: d, z: z, za: z, zk: z, bias: km.Bias, both: o.Tight || km.Kernel.Depth > 1,
		wn2: math.Sqrt(float64(d)), wmax: 1}
	if in := o.Input; in != nil {
		if err := in.check(d); err != nil {
			return nil, err
		}
		c.za, c.zk = in.affine(z), in.apply(z)
		if len(in.Scale) > 0 {
			c.w, c.wn2, c.wmax = make([]float64, d), 0, 0
			for j, s := range in.Scale {
				c.w[j] = 1 / s
				c.wmax = max(c.wmax, c.w[j])
			}
			c.wn2 = linalg.Nrm2(c.w)
		}
	}
	c.activeRows(km)
	c.g = linalg.New[float64](z.Rows, c.x.Rows)
	if c.x.Rows > 0 && z.Rows > 0 {
		if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, 1, c.zk, c.x, 0, c.g); err != nil {
			return nil, err
		}
	}
	if c.fast = km.Kernel.Depth == 1 && km.Kernel.BiasStd == 0 && !o.Tight && !o.general; c.fast {
		c.fastSetup()
	}
	c.zn, c.zan = make([]float64, z.Rows), make([]float64, z.Rows)
	for k := range z.Rows {
		c.zn[k] = linalg.Nrm2(c.zk.Row(k))
		c.zan[k] = linalg.Nrm2(c.za.Row(k))
	}
	var err error
	if c.out, err = c.evalMapped(ctx, c.zk); err != nil {
		return nil, err
	}
	c.pool.New = func() any { return new(kernelScratch) }
	return c, nil
}

// activeRows keeps the training points with α_i ≠ 0 and precomputes their
// norms and the diagonal recursion √Σ^h(x_i, x_i).
func (c *Kernel) activeRows(km KernelMachine) {
	var rows []int
	for i, a := range km.Alpha {
		// Θ(x', x_i) = 0 for every x' when x_i = 0 and σ_b = 0.
		if a != 0 && (c.p.BiasStd != 0 || linalg.Nrm2(km.X.Row(i)) > 0) {
			rows = append(rows, i)
		}
	}
	// Positive weights first: the branch on α_i's sign in Bound is then
	// predictable (KRR's signs follow the labels, shuffled in file order).
	neg := func(i int) int {
		if km.Alpha[i] < 0 {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(rows, func(i, j int) int { return neg(i) - neg(j) })
	c.x = linalg.New[float64](len(rows), c.d)
	c.alpha = make([]float64, len(rows))
	c.xn2 = make([]float64, len(rows))
	c.xn1 = make([]float64, len(rows))
	if c.w != nil && c.opt.Tight {
		c.xnw = make([]float64, len(rows))
	}
	sw2, sb2 := c.p.WeightStd*c.p.WeightStd, c.p.BiasStd*c.p.BiasStd
	c.nb, c.inb = make([][]float64, c.p.Depth), make([][]float64, c.p.Depth)
	for h := range c.nb {
		c.nb[h], c.inb[h] = make([]float64, len(rows)), make([]float64, len(rows))
	}
	for k, i := range rows {
		r := c.x.Row(k)
		copy(r, km.X.Row(i))
		c.alpha[k] = km.Alpha[i]
		if km.Alpha[i] > 0 {
			c.npos = k + 1
		}
		c.xn2[k] = linalg.Nrm2(r)
		if c.w == nil {
			for _, v := range r {
				c.xn1[k] += math.Abs(v)
			}
		} else {
			var ss float64
			for j, v := range r {
				c.xn1[k] += c.w[j] * math.Abs(v)
				ss += (c.w[j] * v) * (c.w[j] * v)
			}
			if c.xnw != nil {
				c.xnw[k] = math.Sqrt(ss)
			}
		}
		s := sw2*c.xn2[k]*c.xn2[k]/float64(c.d) + sb2
		for h := range c.nb {
			c.nb[h][k] = math.Sqrt(s)
			if s > 0 {
				c.inb[h][k] = 1 / c.nb[h][k]
			}
			s = sw2*s/2 + sb2
		}
	}
}

// evalMapped returns the exact outputs on the rows of x, already mapped
// by opt.Input, in blocks of rows.
func (c *Kernel) evalMapped(ctx context.Context, x linalg.Matrix[float64]) ([]float64, error) {
	out := make([]float64, x.Rows)
	n := c.x.Rows
	if n == 0 {
		for k := range out {
			out[k] = c.bias
		}
		return out, nil
	}
	block := max(1, (32<<20)/(8*n))
	k := linalg.New[float64](min(block, x.Rows), n)
	for i0 := 0; i0 < x.Rows; i0 += block {
		i1 := min(x.Rows, i0+block)
		kb := k.Slice(0, i1-i0, 0, n)
		if err := ntk.FillCross(ctx, c.p, x.Slice(i0, i1, 0, x.Cols), c.x, ntk.Options{}, kb); err != nil {
			return nil, err
		}
		if err := linalg.Gemv(linalg.NoTrans, 1, kb, c.alpha, 0, out[i0:i1]); err != nil {
			return nil, err
		}
	}
	for k := range out {
		out[k] += c.bias
	}
	return out, nil
}

// Eval returns the exact output g(x) of the machine on every row of x,
// mapped by KernelOptions.Input first (used to check certificates by
// sampling).
func (c *Kernel) Eval(x linalg.Matrix[float64]) ([]float64, error) {
	if x.Cols != c.d {
		return nil, fmt.Errorf("ibp: inputs have %d features, want %d", x.Cols, c.d)
	}
	return c.evalMapped(context.Background(), c.opt.Input.apply(x))
}

// Len returns the number of points.
func (c *Kernel) Len() int { return c.z.Rows }

// Output returns g at point i.
func (c *Kernel) Output(i int) float64 { return c.out[i] }

// Point returns point i in the units of the balls, before
// KernelOptions.Input (a view; do not modify).
func (c *Kernel) Point(i int) []float64 { return c.z.Row(i) }

// Clipped reports whether balls are intersected with [0, 1]^d.
func (c *Kernel) Clipped() bool { return c.opt.Clip }

// Bound returns [g^L, g^U] ⊇ {g(x') : x' in the ball b around point i}, by
// eq. 65 and 66 with the layer-by-layer NTK intervals of the package
// documentation. It allocates nothing.
func (c *Kernel) Bound(i int, b Ball) Interval {
	if CheckBall(b) != nil {
		return nanInterval
	}
	geo := c.geometry(i, b)
	sc := c.pool.Get().(*kernelScratch)
	defer c.pool.Put(sc)
	g := c.g.Row(i)
	if c.fast {
		return Interval{c.paperEnd(sc, &geo, g, true), c.paperEnd(sc, &geo, g, false)}
	}
	var lo, hi float64
	for j0 := 0; j0 < len(g); j0 += chunk {
		j1 := min(len(g), j0+chunk)
		c.chunkBounds(sc, &geo, g[j0:j1], j0)
		tL, tU := sc.tL[:j1-j0], sc.tU[:j1-j0]
		for k, a := range c.alpha[j0:j1] {
			if a > 0 {
				lo += a * tL[k]
				hi += a * tU[k]
			} else {
				lo += a * tU[k]
				hi += a * tL[k]
			}
		}
	}
	return Interval{lo + c.bias, hi + c.bias}
}

// chunkBounds sets sc.tL, sc.tU to the interval of Θ^{L+1}(x', x_i) for
// the training points j0, j0+1, … whose products with the centre are g.
func (c *Kernel) chunkBounds(sc *kernelScratch, geo *geometry, g []float64, j0 int) {
	m := len(g)
	sw2, sb2 := c.p.WeightStd*c.p.WeightStd, c.p.BiasStd*c.p.BiasStd
	invd := 1 / float64(c.d)
	xn2, xn1 := c.xn2[j0:j0+m], c.xn1[j0:j0+m]
	// Layer 1: Σ¹ = σ_w²·x'·x_i/d + σ_b² = Θ¹, from the interval of x'·x_i.
	sL, sU := sc.sL[:m], sc.sU[:m]
	for k, v := range g {
		rad := geo.eps * xn2[k]
		if geo.l1 > 0 {
			rad = min(rad, geo.l1*xn1[k])
		}
		if geo.l2 > 0 {
			rad = min(rad, geo.l2*c.xnw[j0+k])
		}
		sL[k] = sw2*((v-rad)*invd) + sb2
		sU[k] = sw2*((v+rad)*invd) + sb2
	}
	copy(sc.tL[:m], sL)
	copy(sc.tU[:m], sU)
	aL := math.Sqrt(sw2*(geo.nL*geo.nL*invd) + sb2)
	aU := math.Sqrt(sw2*(geo.nU*geo.nU*invd) + sb2)
	for h := range c.p.Depth {
		c.reluLayer(sc, m, h, aL, aU, sw2, sb2, c.nb[h][j0:j0+m], c.inb[h][j0:j0+m])
		aL = math.Sqrt(sw2*aL*aL/2 + sb2)
		aU = math.Sqrt(sw2*aU*aU/2 + sb2)
	}
}

// reluLayer maps the intervals of Σ^h(x', x_i) (sc.s), Θ^h (sc.t) and
// R^h = Θ^h − Σ^h as propagated (sc.r; unused at h = 0, where R¹ = 0)
// through ReLU layer h+1 and the next Dense layer, in place. [aL, aU] is the
// interval of √Σ^h(x', x') and nb holds √Σ^h(x_i, x_i).
func (c *Kernel) reluLayer(sc *kernelScratch, m, h int, aL, aU, sw2, sb2 float64, nb, inb []float64) {
	sL, sU, tL, tU := sc.sL[:m], sc.sU[:m], sc.tL[:m], sc.tU[:m]
	rL, rU, pL, pU := sc.rL[:m], sc.rU[:m], sc.pL[:m], sc.pU[:m]
	corrIntervals(pL, pU, sL, sU, inb, 1/aL, 1/aU)
	acL, acU := sc.aL[:m], sc.aU[:m]
	linalg.Acos(acL, pL)
	linalg.Acos(acU, pU)
	if h == c.p.Depth-1 && !c.both {
		thetaOnly(tL, tU, pL, pU, acL, acU, nb, aL, aU, sw2, sb2)
		return
	}
	const inv2pi = 1 / (2 * math.Pi)
	for k, n := range nb {
		uL, uU := pL[k], pU[k]
		fL, fU := math.Pi-acL[k], math.Pi-acU[k] // π − θ, increasing in ρ
		qL, qU := math.Sqrt(1-uL*uL), math.Sqrt(1-uU*uU)
		jL, jU := max(qL+fL*uL, 0), max(qU+fU*uU, 0) // J1(ρ) = sin θ + (π − θ) cos θ, increasing
		hL, hU := jL+fL*uL, jU+fU*uU                 // h(ρ) = J1(ρ) + ρ(π − θ), bow-shaped
		hmin, hmax := min(hL, hU), max(hL, hU)
		if uL <= uStar && uStar <= uU {
			hmin = hStar
		}
		kL, kU := fL*inv2pi, fU*inv2pi // K̇ ∈ [K̇(ρL), K̇(ρU)] ⊂ [0, 1/2]
		// Θ^{h+1} = σ_w²·‖·‖‖·‖·h(ρ)/(2π) + σ_b² + σ_w²·R^h·K̇ (eq. 63 at h = 0).
		var nhL, nhU float64
		if hmin >= 0 {
			nhL = aL * hmin
		} else {
			nhL = aU * hmin
		}
		if hmax >= 0 {
			nhU = aU * hmax
		} else {
			nhU = aL * hmax
		}
		t1L, t1U := sw2*(n*nhL*inv2pi)+sb2, sw2*(n*nhU*inv2pi)+sb2
		if h > 0 {
			lo, hi := mulNonneg(rL[k], rU[k], kL, kU)
			t1L += sw2 * lo
			t1U += sw2 * hi
		}
		// Σ^{h+1} = σ_w²·K + σ_b², K = ‖·‖‖·‖·J1(ρ)/(2π) ≥ 0.
		s2L, s2U := sw2*(aL*n*jL*inv2pi)+sb2, sw2*(aU*n*jU*inv2pi)+sb2
		// R^{h+1} = σ_w²·Θ^h·K̇, and the second form Θ^{h+1} = Σ^{h+1} + R^{h+1}.
		r2L, r2U := mulNonneg(tL[k], tU[k], kL, kU)
		r2L, r2U = sw2*r2L, sw2*r2U
		sL[k], sU[k] = s2L, s2U
		rL[k], rU[k] = r2L, r2U
		if c.both {
			t1L, t1U = max(t1L, s2L+r2L), min(t1U, s2U+r2U)
		}
		tL[k], tU[k] = t1L, t1U
	}
}

// corrIntervals sets [pL, pU] to the correlation's interval (the paper's
// u^L, u^U): s/(a·nb) with a's lower end for s < 0 (resp. ≥ 0), as products
// with reciprocals (iaL = 1/a^L, iaU = 1/a^U, inb = 1/nb): a zero norm gives
// ±Inf or NaN, which clampRho maps to ±1 or 0.
func corrIntervals(pL, pU, sL, sU, inb []float64, iaL, iaU float64) {
	for k, ib := range inb {
		s, ia := sL[k], iaU
		if s < 0 {
			ia = iaL
		}
		pL[k] = clampRho(s * ia * ib)
		s, ia = sU[k], iaL
		if s < 0 {
			ia = iaU
		}
		pU[k] = clampRho(s * ia * ib)
	}
}

// mulNonneg returns the interval product [lo, hi]·[kL, kU] for 0 ≤ kL ≤ kU.
func mulNonneg(lo, hi, kL, kU float64) (float64, float64) {
	var a, b float64
	if lo >= 0 {
		a = lo * kL
	} else {
		a = lo * kU
	}
	if hi >= 0 {
		b = hi * kU
	} else {
		b = hi * kL
	}
	return a, b
}

// thetaOnly is the last layer of reluLayer at L = 1 without Tight: the
// paper's Θ^L, Θ^U from the correlation interval alone (eq. 63–64 and the
// rules of App. H.1), with nothing kept for a next layer.
func thetaOnly(tL, tU, pL, pU, acL, acU, nb []float64, aL, aU, sw2, sb2 float64) {
	const inv2pi = 1 / (2 * math.Pi)
	for k, n := range nb {
		uL, uU := pL[k], pU[k]
		hL := math.Sqrt(1-uL*uL) + 2*(math.Pi-acL[k])*uL
		hU := math.Sqrt(1-uU*uU) + 2*(math.Pi-acU[k])*uU
		hmin, hmax := min(hL, hU), max(hL, hU)
		if uL <= uStar && uStar <= uU {
			hmin = hStar
		}
		lo, hi := aU*hmin, aL*hmax
		if hmin >= 0 {
			lo = aL * hmin
		}
		if hmax >= 0 {
			hi = aU * hmax
		}
		tL[k] = sw2*(n*lo*inv2pi) + sb2
		tU[k] = sw2*(n*hi*inv2pi) + sb2
	}
}

// fastSetup prepares the paper's case: it divides x·x_i by ‖x_i‖ (no
// active x_i is zero there) and folds α_i, ‖x_i‖ and σ_w⁴/d into beta_i.
func (c *Kernel) fastSetup() {
	sw2 := c.p.WeightStd * c.p.WeightStd
	c.beta = make([]float64, len(c.alpha))
	for k, a := range c.alpha {
		c.beta[k] = a * (sw2 * sw2 * c.xn2[k] / float64(c.d))
		c.sumb += math.Abs(c.beta[k])
	}
	inv := make([]float64, len(c.xn2))
	for k, v := range c.xn2 {
		inv[k] = 1 / v
	}
	for r := range c.g.Rows {
		row := c.g.Row(r)
		for k := range row {
			row[k] *= inv[k]
		}
	}
	c.ones = make([]float64, chunk)
	for k := range c.ones {
		c.ones[k] = 1
	}
}

// marginSlack bounds the rounding of BoundEnd in the paper's case, where
// the bound's lower end decreases and its upper end increases with the
// radius: the computed correlation ends u^L, u^U move outwards (each is
// made of rounded operations that are monotone in ε), so h's exact range
// over them widens, and ‖x'‖'s range widens too. Every term
// β_i·‖x'‖·h/(2π) is at most |β_i|·‖x'‖^U in size (h/(2π) ∈ [−0.07, 1]),
// with ‖x'‖^U ≤ ‖z‖ + ε at the largest radius; h is computed to a few ulps
// and the terms are summed in a fixed order, so the computed end is within
// (n + 8)·2⁻⁵²·Σ|β_i|·‖x'‖^U of that monotone function. σ is 100 times
// that. ok is false off the paper's case.
func (c *Kernel) marginSlack(i int, b Ball) (sigma float64, ok bool) {
	if !c.fast || CheckBall(b) != nil {
		return 0, false
	}
	geo := c.geometry(i, b)
	nu := c.zn[i] + geo.eps
	sigma = 1e2 * float64(len(c.beta)+8) * 0x1p-52 * (c.sumb*nu + math.Abs(c.bias))
	return sigma, sigma > 0 && finite(sigma)
}

// BoundEnd returns Bound(i, b).Lo if lower, else Bound(i, b).Hi, computed
// alone: the radius search needs only the end on the side of the clean
// output's sign, and in the paper's case (L = 1, σ_b = 0, not Tight) one
// end costs half as much.
func (c *Kernel) BoundEnd(i int, b Ball, lower bool) float64 {
	if !c.fast {
		iv := c.Bound(i, b)
		if lower {
			return iv.Lo
		}
		return iv.Hi
	}
	if CheckBall(b) != nil {
		return math.NaN()
	}
	geo := c.geometry(i, b)
	sc := c.pool.Get().(*kernelScratch)
	defer c.pool.Put(sc)
	return c.paperEnd(sc, &geo, c.g.Row(i), lower)
}

// paperEnd is one end of Bound in the paper's case, eq. 63–66 as App. H.1
// writes them: u^L = D^L/(‖x‖^U‖x_i‖) if D^L ≥ 0 else D^L/(‖x‖^L‖x_i‖) with
// D^L = x·x_i − ε‖x_i‖, and its mirror u^U. The lower end of g needs Θ^L_i
// for α_i > 0 and Θ^U_i for α_i < 0 (eq. 65; the upper end the reverse,
// eq. 66). Of the bow-shaped h over [u^L, u^U], the minimum is h(u^L) when
// u^L ≥ u* (h increases there), h(u^U) when u^U ≤ u*, else h(u*); the
// maximum h(u^U), h(u^L), else the larger of both. So h/(2π) is needed at
// one point per pair (two in the last case), computed for a chunk at once by
// the fused SIMD kernel linalg.ArcCosFirst (with unit norms its dot output is
// (J1(ρ) + ρ(π − arccos ρ))/(2π) = h(ρ)/(2π)); then the norm end is chosen
// by the sign of h.
func (c *Kernel) paperEnd(sc *kernelScratch, geo *geometry, g []float64, lower bool) float64 {
	eps, nL, nU := geo.eps, geo.nL, geo.nU
	iL, iU := 1/nL, 1/nU
	var sum float64
	for j0 := 0; j0 < len(g); {
		j1 := min(len(g), j0+chunk)
		if j0 < c.npos && j1 > c.npos {
			j1 = c.npos // a chunk holds weights of one sign
		}
		m := j1 - j0
		wantL := (j0 < c.npos) == lower // Θ^L_i for all i of the chunk, else Θ^U_i
		ne := paperArgs(sc, g[j0:j1], eps, iL, iU, wantL)
		u, h, ones := sc.u[:ne], sc.h[:ne], c.ones[:min(ne, chunk)]
		linalg.ArcCosFirst(sc.junk[:ne], h[:m], u[:m], 1, 0, 1, 1, ones[:m], ones[:m], 1, 0)
		if ne > m {
			linalg.ArcCosFirst(sc.junk[m:ne], h[m:ne], u[m:ne], 1, 0, 1, 1, ones[:ne-m], ones[:ne-m], 1, 0)
		}
		sum += paperSum(c.beta[j0:j1], h, sc.mode[:m], nL, nU, wantL)
		j0 = j1
	}
	return sum + c.bias
}

// paperSum returns Σ β_i·Θ_i over a chunk: Θ^L_i (wantL) or Θ^U_i, from
// h/(2π) (with the rules of sc.mode) times the end of ‖x'‖ that the sign
// of h selects.
func paperSum(beta, h []float64, mode []uint8, nL, nU float64, wantL bool) float64 {
	hs := hStar / (2 * math.Pi)
	ne := len(beta)
	var sum float64
	if wantL {
		for k, b := range beta {
			v := h[k]
			if mode[k] == 1 {
				v = hs
			}
			t := min(nL*v, nU*v) // nL·v if v ≥ 0, else nU·v (0 ≤ nL ≤ nU)
			sum += b * t
		}
		return sum
	}
	for k, b := range beta {
		v := h[k]
		if mode[k] == 2 {
			v = max(v, h[ne])
			ne++
		}
		t := max(nL*v, nU*v) // nU·v if v ≥ 0, else nL·v
		sum += b * t
	}
	return sum
}

// paperArgs fills sc.u with the correlations at which paperEnd needs h
// for a chunk of training points (g: their products with the centre, over
// ‖x_i‖) and sc.mode with the rule: 0 h there, 1 h(u*) (wantL), 2 the
// larger of h there and h at the extra entry (in order after the chunk). It
// returns the number of entries of sc.u used.
func paperArgs(sc *kernelScratch, g []float64, eps, iL, iU float64, wantL bool) int {
	m := len(g)
	u, mode := sc.u[:], sc.mode[:m]
	ne := m
	for k, v := range g {
		uL := corrLo(v-eps, iL, iU)
		md, r := uint8(0), uL
		if uL >= uStar { // the common case: h increasing on [u^L, u^U]
			if !wantL {
				r = corrHi(v+eps, iL, iU)
			}
			u[k], mode[k] = r, md
			continue
		}
		uU := corrHi(v+eps, iL, iU)
		switch {
		case uU <= uStar:
			if wantL {
				r = uU
			}
		case wantL:
			md = 1
		default:
			md = 2
			u[ne] = uU
			ne++
		}
		u[k], mode[k] = r, md
	}
	return ne
}

// corrLo is the paper's u^L for D^L = dl (with ‖x_i‖ divided out) and
// iL ≥ iU ≥ 0 the reciprocals of ‖x'‖'s ends: dl·iL if dl < 0, else
// dl·iU, which is the smaller product. (Without branches: the sign of
// D^L is data; 0·∞ = NaN where dl = 0 and ‖x'‖^L = 0 gives 0 as dl·iU
// does.)
func corrLo(dl, iL, iU float64) float64 {
	return clampRho(min(dl*iL, dl*iU))
}

// corrHi is the paper's u^U for D^U = du: du·iU if du < 0, else du·iL,
// the larger product.
func corrHi(du, iL, iU float64) float64 {
	return clampRho(max(du*iL, du*iU))
}

// clampRho clips a correlation to [−1, 1], mapping NaN (0/0, a zero-norm
// side) to 0, package ntk's convention.
func clampRho(q float64) float64 {
	q = max(-1, min(1, q)) // min and max keep NaN
	if q != q {
		return 0 // NaN: 0/0 or 0·∞, a zero-norm side
	}
	return q
}

// uStar and hStar are the minimiser of the bow-shaped h(u) = 2u(π − arccos
// u) + √(1 − u²) on [−1, 1] and its value (≈ −0.79410 and −0.429738, the
// constants of robust_svm.py), hStar lowered by 1e-15 so that it is a
// lower bound whatever the rounding.
var uStar, hStar = func() (float64, float64) {
	// h'(u) = 2(π − arccos u) + u/√(1 − u²), increasing; bisect its zero.
	lo, hi := -0.99, -0.5
	for range 200 {
		mid := (lo + hi) / 2
		if 2*(math.Pi-math.Acos(mid))+mid/math.Sqrt(1-mid*mid) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	u := (lo + hi) / 2
	return u, 2*u*(math.Pi-math.Acos(u)) + math.Sqrt(1-u*u) - 1e-15
}()

// geometry is what a ball tells the first layer about x' (as the kernel
// sees it, after KernelOptions.Input): the ℓ2 radius eps of x' − x, the
// interval [nL, nU] of ‖x'‖, and l1 > 0 (l2 > 0) when also |(x' − x)·v| ≤
// l1·‖w∘v‖₁ (≤ l2·‖w∘v‖₂) is to be used, w the inverse scales of the input
// map (1 without one).
type geometry struct{ eps, nL, nU, l1, l2 float64 }

// geometry returns the geometry of ball b around point i. Without an input
// map it is the paper's (App. H.1) with the options' refinements; an input
// map carries it through as Preprocess says.
func (c *Kernel) geometry(i int, b Ball) geometry {
	z, za := c.z.Row(i), c.za.Row(i)
	o := c.opt
	r := b.Radius
	var g geometry
	if b.Norm == Linf {
		g.eps = c.wn2 * r // √d·δ without a map
	} else {
		g.eps = c.wmax * r
	}
	if o.Clip {
		// x' lies in the box [a, c] with a = max(z − w, 0), c = min(z + w, 1)
		// (w = δ, or r for ℓ2 since |x'_j − z_j| ≤ r): so
		// |x'_j − z_j| ≤ e_j = max(z_j − a_j, c_j − z_j), and a ≤ x' ≤ c
		// with a ≥ 0 bounds ‖x'‖ by ‖a‖ and ‖c‖. With a map, e_j and the
		// box are carried through its affine part.
		var e2, a2, c2 float64
		for j, v := range z {
			a, c2j := max(v-r, 0), min(v+r, 1)
			e := max(v-a, c2j-v)
			if c.w != nil {
				e *= c.w[j]
				lo, hi := (a-o.Input.Mean[j])*c.w[j], (c2j-o.Input.Mean[j])*c.w[j]
				a, c2j = max(lo, -hi, 0), max(-lo, hi)
			}
			e2 += e * e
			a2 += a * a
			c2 += c2j * c2j
		}
		g.eps = min(g.eps, math.Sqrt(e2))
		g.nL, g.nU = math.Sqrt(a2), math.Sqrt(c2)
	} else {
		g.nL, g.nU = 0, math.Inf(1)
	}
	if o.Tight && b.Norm == Linf {
		// The exact range of ‖x'‖ over the box z ± δ (coordinate j moved by
		// at most δ·w_j), and Hölder.
		var lo2, hi2 float64
		for j, v := range za {
			rj := r
			if c.w != nil {
				rj = r * c.w[j]
			}
			l, h := max(math.Abs(v)-rj, 0), math.Abs(v)+rj
			lo2 += l * l
			hi2 += h * h
		}
		g.nL, g.nU = max(g.nL, math.Sqrt(lo2)), min(g.nU, math.Sqrt(hi2))
		g.l1 = r
	}
	if o.Tight && b.Norm == L2 && c.w != nil {
		g.l2 = r // Cauchy–Schwarz before the scaling: |Δ·(w∘v)| ≤ r‖w∘v‖₂
	}
	// The triangle inequality (eq. of App. H.1): ‖z‖ − eps ≤ ‖x'‖ ≤ ‖z‖ + eps.
	g.nL = max(g.nL, c.zan[i]-g.eps, 0)
	g.nU = min(g.nU, c.zan[i]+g.eps)
	if o.Input != nil && o.Input.UnitNorm {
		g = onSphere(g, c.zan[i], math.Sqrt(float64(c.d)))
	}
	return g
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func checkFinite(what string, v []float64) error {
	for i, x := range v {
		if !finite(x) {
			return fmt.Errorf("ibp: %s %d is %v", what, i, x)
		}
	}
	return nil
}

// checkMatrix rejects non-finite entries and, with box, entries outside
// [0, 1].
func checkMatrix(what string, x linalg.Matrix[float64], box bool) error {
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			if !finite(v) {
				return fmt.Errorf("ibp: %s %d, feature %d is %v", what, i, j, v)
			}
			if box && (v < 0 || v > 1) {
				return fmt.Errorf("ibp: %s %d, feature %d is %v, outside the pixel box [0, 1] that Clip assumes", what, i, j, v)
			}
		}
	}
	return nil
}
