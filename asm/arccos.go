package asm

// The arc-cosine kernels (Acos64, ArcCosLayer64, ArcCosFirst64) have AVX2,
// AVX-512 and NEON versions that follow the Go twins in arccos_generic.go
// operation for operation, so every kernel set gives bit-identical results.

// Acos64 sets dst[i] = acos(x[i]) for every i < len(x), within about 1 ulp
// of the true value (the tests check every float32 in [−1, 1] and dense
// float64 samples against math.Acos with a 2-ulp bound; all kernel sets
// give bit-identical results).
//
// Special values: x is clamped to [−1, 1] first, so 1+ε gives 0 and −Inf
// gives π (math.Acos would give NaN); NaN stays NaN. dst may be x; any other
// overlap is not allowed. It panics if len(dst) < len(x).
func Acos64(dst, x []float64) { active.Acos64(dst, x) }

// ArcCosLayer64 applies one ReLU layer followed by one Dense layer of the
// infinite-width NNGP/NTK recursion (neural-tangents conventions) to the
// pairs (i, j) of one row, in place, for every j < len(sig):
//
//	r = ni·nj[j],  ρ = clamp(sig[j]·(invi·invj[j]), −1, 1),  φ = π − arccos ρ
//	(ρ within 8 ulp of ±1 is taken as ±1: its own rounding is that large)
//	K  = max(r·(√(1−ρ²) + φ·ρ)/(2π), 0)   the ReLU NNGP (arc-cosine kernel of degree 1;
//	                                    ≥ 0 exactly, so rounding near ρ = −1 is clipped)
//	K̇  = φ/(2π)                       its derivative kernel
//	sig[j] = sw2·K + sb2              Σ of the next layer
//	ntk[j] = sw2·ntk[j]·K̇ + sig[j]    Θ of the next layer
//
// where on entry sig[j] = Σ(x_i, x_j), ntk[j] = Θ(x_i, x_j), ni and nj[j] are
// √Σ(x_i, x_i) and √Σ(x_j, x_j), and invi, invj[j] their reciprocals, or 0
// for a zero norm: a pair with a zero-norm side then has ρ = 0 and K = 0,
// never NaN. invi·invj[j] is formed first so that the result is symmetric in
// i and j bit for bit. It panics if ntk, nj or invj is shorter than sig.
func ArcCosLayer64(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	active.ArcCosLayer64(sig, ntk, ni, invi, nj, invj, sw2, sb2)
}

// ArcCosFirst64 is ArcCosLayer64 for the first ReLU layer, whose input is
// the affine map of the raw inner products: for every j < len(g) it sets
// Σ = Θ = a·g[j] + b (one FMA) and then sig[j], ntk[j] as ArcCosLayer64
// does from Σ and Θ. sig or ntk may be g itself (in place); sig and ntk
// must not overlap each other. It panics if sig, ntk, nj or invj is shorter
// than g.
func ArcCosFirst64(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	active.ArcCosFirst64(sig, ntk, g, a, b, ni, invi, nj, invj, sw2, sb2)
}

// ArcCosFirst64 is the package-level ArcCosFirst64 on this kernel set.
func (k *Kernels) ArcCosFirst64(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(g)
	if len(sig) < n || len(ntk) < n || len(nj) < n || len(invj) < n {
		panic("asm: ArcCosFirst64: sig, ntk, nj or invj shorter than g")
	}
	k.arcCosFirst64(sig[:n], ntk[:n], g, a, b, ni, invi, nj[:n], invj[:n], sw2, sb2)
}

// Acos64 is the package-level Acos64 on this kernel set.
func (k *Kernels) Acos64(dst, x []float64) {
	if len(dst) < len(x) {
		panic("asm: Acos64: len(dst) < len(x)")
	}
	k.acos64(dst[:len(x)], x)
}

// ArcCosLayer64 is the package-level ArcCosLayer64 on this kernel set.
func (k *Kernels) ArcCosLayer64(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(sig)
	if len(ntk) < n || len(nj) < n || len(invj) < n {
		panic("asm: ArcCosLayer64: ntk, nj or invj shorter than sig")
	}
	k.arcCosLayer64(sig, ntk[:n], ni, invi, nj[:n], invj[:n], sw2, sb2)
}

// fillArcCos gives a kernel set without its own arc-cosine kernels the
// generic ones.
func fillArcCos(k *Kernels) {
	if k.acos64 == nil {
		k.acos64 = acos64Generic
	}
	if k.arcCosLayer64 == nil {
		k.arcCosLayer64 = arcCosLayer64Generic
	}
	if k.arcCosFirst64 == nil {
		k.arcCosFirst64 = arcCosFirst64Generic
	}
}
