package linalg

import "github.com/ntksvm/ntksvm/asm"

// Acos sets dst[i] = acos(x[i]) for every i < len(x) on the SIMD kernel set
// in use (asm.Acos64): within about 1 ulp, bit-identical across kernel sets,
// x clamped to [−1, 1] first (so 1+ε gives 0 and −Inf gives π), NaN kept.
// dst may be x; any other overlap is not allowed. It panics if
// len(dst) < len(x).
func Acos(dst, x []float64) { asm.Acos64(dst, x) }

// ArcCosFirst applies the arc-cosine kernels of degree 1 and 0 (Cho and
// Saul) to the affine map s = a·g[j] + b of raw inner products, one row at
// a time on the SIMD kernel set in use (asm.ArcCosFirst64, which documents
// the formula and the special values): with r = ni·nj[j],
// ρ = clamp(s·invi·invj[j], −1, 1) and φ = π − arccos ρ,
//
//	sig[j] = sw2·max(r·(√(1−ρ²) + φ·ρ)/(2π), 0) + sb2
//	dot[j] = sw2·s·φ/(2π) + sig[j]
//
// invi and invj[j] are the reciprocals of ni and nj[j], or 0 for a zero
// norm (then ρ = 0). sig or dot may be g itself; sig and dot must not
// overlap each other. It panics if sig, dot, nj or invj is shorter than g.
func ArcCosFirst(sig, dot, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	asm.ArcCosFirst64(sig, dot, g, a, b, ni, invi, nj, invj, sw2, sb2)
}
