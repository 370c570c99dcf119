package ibp

import "math"

// monotoneCertifier is a certifier whose margin, as computed, can only
// shrink as the ball grows, up to a known rounding slack. A ball of radius
// δ lies inside every ball of radius δ' ≥ δ around the same point, and an
// interval bound propagated by inclusion-monotone steps (the paper's eq.
// 63–66 are) can only widen with the ball.
type monotoneCertifier interface {
	Certifier
	endBounder
	// marginSlack returns σ > 0 such that, at every radius up to
	// b.Radius, the computed margin of point i is within σ/2 of a
	// function that decreases with the radius; ok is false if no such σ
	// is known (Search then evaluates every step).
	marginSlack(i int, b Ball) (sigma float64, ok bool)
}

// maxProbes is how many probes may fail to decide one step before
// searchMonotone evaluates the step's own radius.
const maxProbes = 3

// probe is a margin s at radius d; eval is false for the model-only point
// (0, |output|).
type probe struct {
	d, s float64
	eval bool
}

// searchMonotone is Search for a monotone certifier: the same steps as the
// authors' binary search, each decided like there by the margin s at δ
// (s ≥ 0 records δ, s < Tol also stops, s > 0 moves the lower end of the
// bracket to δ, anything else the upper end), so the same Radius and
// Iters. A step's margin is evaluated only when the margins already known
// do not decide it. With σ the rounding slack of marginSlack they decide
// it when
//
//   - s(δ') < −σ at some δ' ≤ δ: then s(δ) < 0;
//   - s(δ') ≥ max(Tol, 0) + σ at some δ' ≥ δ: then s(δ) ≥ Tol and s(δ) > 0;
//   - s(δ') ≥ σ at some δ' ≥ δ and s(δ”) < Tol − σ at some δ” ≤ δ: then
//     0 ≤ s(δ) < Tol.
//
// A radius recorded without its own bound is certified anyway: its ball
// lies in the ball of radius δ' whose bound certified it. When a step is
// not decided, the margin is evaluated at a radius chosen to decide it and
// as many later steps as possible: linear interpolation of the known
// margins (with s(0) ≈ |output|) predicts which way the step goes and
// where the margin crosses just below 0 or just above Tol; if that probe
// fails to decide the step, the model learns from it and probes again, and
// after maxProbes failures the step's own radius is evaluated.
func searchMonotone(c monotoneCertifier, i int, norm Norm, o SearchOptions, res Result, sigma float64) Result {
	lower := res.Output > 0
	var buf [48]probe
	pts := append(buf[:0], probe{d: 0, s: math.Abs(res.Output)})
	// m is how far past the thresholds probes aim: a twentieth of the
	// model's last prediction error (of |output| before any), at least a
	// fiftieth of Tol. (Tuned on the Table 3 machines; any m gives the same
	// result.)
	mmin := max(o.Tol/50, 2*sigma)
	m := max(mmin, math.Abs(res.Output)/20)
	b := bisection{delta: o.Init, l: o.Lo, r: o.Hi}
	probes := 0 // probes that failed to decide this step
	for res.Iters < o.MaxIter {
		s, ok := inferMargin(pts, b.delta, o.Tol, sigma)
		if !ok {
			q := b.delta
			if probes < maxProbes {
				q = probeRadius(pts, b.delta, b.l, b.r, o.Tol, sigma, m)
			}
			if q != b.delta {
				probes++
			}
			pred := predictMargin(pts, q)
			v := c.BoundEnd(i, Ball{Norm: norm, Radius: q}, lower)
			if !lower {
				v = -v
			}
			res.Bounds++
			if e := math.Abs(v - pred); !math.IsNaN(e) {
				m = max(mmin, e/20)
			}
			pts = insertProbe(pts, probe{d: q, s: v, eval: true})
			continue
		}
		probes = 0
		res.Iters++
		if b.step(s, o.Tol, &res) {
			break
		}
	}
	return res
}

// inferMargin returns the margin at δ if evaluated, else a stand-in that
// the search treats alike (−Inf, 0 or +Inf) when the known margins decide
// it (see searchMonotone); ok is false otherwise.
func inferMargin(pts []probe, delta, tol, sigma float64) (s float64, ok bool) {
	neg, pos, capped, floored := false, false, false, false
	for _, p := range pts {
		if !p.eval {
			continue
		}
		if p.d == delta {
			return p.s, true
		}
		if p.d < delta {
			neg = neg || p.s < -sigma
			floored = floored || p.s < tol-sigma
		} else {
			pos = pos || p.s >= max(tol, 0)+sigma
			capped = capped || p.s >= sigma
		}
	}
	switch {
	case neg:
		return math.Inf(-1), true
	case pos:
		return math.Inf(1), true
	case capped && floored && tol > 0:
		return 0, true
	}
	return 0, false
}

// probeRadius returns where to evaluate the margin for the undecided step
// δ of the bracket [l, r]: if the model predicts s(δ) < 0, the largest
// radius in (l, δ] where it predicts s ≤ −σ − m; if it predicts s(δ) ≥ Tol,
// the smallest in [δ, r] where it predicts s ≥ Tol + σ + m; else δ.
func probeRadius(pts []probe, delta, l, r, tol, sigma, m float64) float64 {
	pred := predictMargin(pts, delta)
	switch {
	case pred < 0:
		q := crossRadius(pts, -sigma-m)
		if q > l && q < delta {
			return q
		}
	case pred >= tol:
		q := crossRadius(pts, max(tol, 0)+sigma+m)
		if q > delta && q <= r {
			return q
		}
		if q > r && !known(pts, r) {
			return r
		}
	}
	return delta
}

// known reports whether the margin at d was evaluated.
func known(pts []probe, d float64) bool {
	for _, p := range pts {
		if p.eval && p.d == d {
			return true
		}
	}
	return false
}

// predictMargin interpolates the known margins (sorted by radius) linearly
// at d, extrapolating past the last one with the last two; NaN if it
// cannot.
func predictMargin(pts []probe, d float64) float64 {
	n := len(pts)
	for k := 0; k+1 < n; k++ {
		a, b := pts[k], pts[k+1]
		if d <= b.d || k+2 == n {
			if b.d == a.d {
				return math.NaN()
			}
			return a.s + (b.s-a.s)*(d-a.d)/(b.d-a.d)
		}
	}
	return math.NaN()
}

// crossRadius returns the radius where the interpolated margin first falls
// below t: between the first two neighbours that straddle t, past the last
// point along the last two, 0 if the first point is already below t, and
// NaN if the model never falls below t.
func crossRadius(pts []probe, t float64) float64 {
	if len(pts) == 0 || pts[0].s < t {
		return 0
	}
	n := len(pts)
	for k := 0; k+1 < n; k++ {
		a, b := pts[k], pts[k+1]
		if b.s < t {
			return a.d + (b.d-a.d)*(a.s-t)/(a.s-b.s)
		}
	}
	if n < 2 {
		return math.NaN()
	}
	a, b := pts[n-2], pts[n-1]
	if !(b.s < a.s) || b.d == a.d {
		return math.NaN()
	}
	return b.d + (b.d-a.d)*(b.s-t)/(a.s-b.s)
}

// insertProbe inserts p into pts, kept sorted by radius. (A NaN margin
// decides only its own step; the model's comparisons skip it.)
func insertProbe(pts []probe, p probe) []probe {
	k := len(pts)
	for k > 0 && pts[k-1].d > p.d {
		k--
	}
	pts = append(pts, probe{})
	copy(pts[k+1:], pts[k:])
	pts[k] = p
	return pts
}
