package asm

import "math"

// The arc-cosine kernels evaluate acos with one branch-free formula that the
// assembly kernels follow operation for operation, so that every kernel set
// gives bit-identical results (FMA is used explicitly, through math.FMA,
// wherever the assembly uses it):
//
//	a = |x|, big = a > 1/2
//	z = big ? (1 − a)/2 : a²        (exact for a ≥ 1/2: Sterbenz)
//	w = big ? √z : a
//	p = w + w·z·P(z) = asin(w)      (P: degree-11 Chebyshev fit in t = 8z − 1)
//	acos(x) = C − (m·p − Clo)
//
// with (C, Clo, m) = (π/2, its tail, sign x) when a ≤ 1/2 and
// ((1 − sign x)·π/2, the same times the tail, −2·sign x) when a > 1/2,
// i.e. π/2 − asin(x), 2·asin(√((1−x)/2)) and π − 2·asin(√((1+x)/2)).
// P approximates (asin(√z) − √z)/z^{3/2} on [0, 1/4] with relative error
// below 2e-15, so the result is within about 1 ulp of the true acos.

// Coefficients of P in powers of t = 8z − 1 (generated with 300-bit
// arithmetic from the Taylor series of asin, Chebyshev interpolation at 64
// nodes, truncated to degree 11).
const (
	acosC0  = 0.17680460199399797
	acosC1  = 0.010972967607791534
	acosC2  = 0.00091456485512039006
	acosC3  = 8.7780211375579546e-05
	acosC4  = 9.1519730882351402e-06
	acosC5  = 1.0074722513415971e-06
	acosC6  = 1.1524728957901932e-07
	acosC7  = 1.3565563384335666e-08
	acosC8  = 1.6309790584425434e-09
	acosC9  = 1.9953712291941743e-10
	acosC10 = 2.6053317532535811e-11
	acosC11 = 3.343195004853885e-12

	pio2Hi   = 1.5707963267948966    // π/2 rounded to float64
	pio2Lo   = 6.123233995736766e-17 // π/2 − pio2Hi
	inv2Pi   = 0.15915494309189535   // 1/(2π)
	tinyNorm = 1e-150                // norms below this count as zero
	// snapRho: correlations within 8 ulp of ±1 are taken as ±1. ρ is formed
	// with a few roundings, so an exactly (anti)parallel pair can land that
	// close; arccos would turn the error into ~1e-8 (half the digits).
	snapRho = 1 - 9.0/(1<<53)
)

// acosCore is acos(x) for x in [−1, 1] (NaN stays NaN) by the formula above.
func acosCore(x float64) float64 {
	a := math.Abs(x)
	big := a > 0.5
	var z, w float64
	if big {
		z = float64(1-a) * 0.5
		w = math.Sqrt(z)
	} else {
		z = float64(a * a)
		w = a
	}
	t := math.FMA(8, z, -1)
	p := float64(acosC11)
	p = math.FMA(p, t, acosC10)
	p = math.FMA(p, t, acosC9)
	p = math.FMA(p, t, acosC8)
	p = math.FMA(p, t, acosC7)
	p = math.FMA(p, t, acosC6)
	p = math.FMA(p, t, acosC5)
	p = math.FMA(p, t, acosC4)
	p = math.FMA(p, t, acosC3)
	p = math.FMA(p, t, acosC2)
	p = math.FMA(p, t, acosC1)
	p = math.FMA(p, t, acosC0)
	p = math.FMA(float64(w*z), p, w) // asin(w)
	sgn := math.Copysign(1, x)
	k, m := 1.0, sgn
	if big {
		k = float64(1 - sgn)
		m = float64(-2 * sgn)
	}
	return float64(k*pio2Hi) - math.FMA(m, p, -float64(k*pio2Lo))
}

// acos64Generic is the reference Acos64.
func acos64Generic(dst, x []float64) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] = acosCore(min(max(v, -1), 1))
	}
}

// arcCosLayer64Generic is the reference ArcCosLayer64.
func arcCosLayer64Generic(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(sig)
	ntk, nj, invj = ntk[:n], nj[:n], invj[:n]
	for j, s := range sig {
		sig[j], ntk[j] = arcCosPair(s, ntk[j], ni, invi, nj[j], invj[j], sw2, sb2)
	}
}

// arcCosFirst64Generic is the reference ArcCosFirst64.
func arcCosFirst64Generic(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(g)
	sig, ntk, nj, invj = sig[:n], ntk[:n], nj[:n], invj[:n]
	for j, v := range g {
		s := math.FMA(a, v, b)
		sig[j], ntk[j] = arcCosPair(s, s, ni, invi, nj[j], invj[j], sw2, sb2)
	}
}

// arcCosPair is one pair of ArcCosLayer64: Σ and Θ of the next layer from
// those of this one.
func arcCosPair(s, th, ni, invi, nj, invj, sw2, sb2 float64) (float64, float64) {
	r := float64(ni * nj)
	rho := float64(s * float64(invi*invj))
	rho = min(max(rho, -1), 1)
	if math.Abs(rho) > snapRho {
		rho = math.Copysign(1, rho)
	}
	phi := acosCore(-rho) // π − θ
	sn := math.Sqrt(math.FMA(-rho, rho, 1))
	k := max(float64(float64(r*inv2Pi)*math.FMA(phi, rho, sn)), 0) // ≥ 0 as the exact K
	kd := float64(phi * inv2Pi)
	s2 := math.FMA(sw2, k, sb2)
	return s2, math.FMA(sw2, float64(th*kd), s2)
}
