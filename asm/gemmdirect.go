package asm

import (
	"fmt"
	"math"
	"math/bits"
)

// The direct GEMM kernel contract. For small products, where packing the
// operands costs as much as the arithmetic, the caller (package linalg)
// hands the kernel A and B as stored and it computes one tile of C:
//
//	C[i,j] = alpha·Σ_{p<k} A(i,p)·B[p,j] + beta·C[i,j]     for i < m ≤ MR, j < n ≤ NR
//
// A(i,p) is a[i*rs+p*ps]: with op(A) = A of leading dimension lda, rs =
// lda and ps = 1; with op(A) = Aᵀ, rs = 1 and ps = lda. Row p of B is
// b[p*ldb : p*ldb+n] (op(B) = B only). C is row-major with leading
// dimension ldc. Only these elements of a, b and c are read and only the
// m×n corner of C is written, so the slices need only reach the last
// element used. The products for each C entry are summed with FMA in
// increasing p from zero, and the sum s is stored as
//
//	alpha·s                 if beta = 0 (C is not read: NaN in C does not propagate)
//	alpha·s + C             if beta = 1, one FMA
//	alpha·s + (beta·C)      otherwise, beta·C rounded, then one FMA
//
// (the last is what scaling C by beta first and then adding gives), so the
// result does not depend on how the caller splits M and N. MR×NR is the
// set's tile (Tile32, Tile64).

// HasGemmDirect32 reports whether GemmDirect32 has a kernel of its own in
// this set (AVX-512, AVX2, NEON). Without one it runs a Go loop that is far slower than
// the packed micro-kernels, and callers should pack instead.
func (k *Kernels) HasGemmDirect32() bool { return k.gemmDirect32 != nil }

// HasGemmDirect64 is HasGemmDirect32 for GemmDirect64.
func (k *Kernels) HasGemmDirect64() bool { return k.gemmDirect64 != nil }

// GemmDirect32 computes one tile of C = alpha·op(A)·B + beta·C from
// unpacked operands as described above:
// c[i*ldc+j] = alpha·Σ_{p<kc} a[i*rs+p*ps]·b[p*ldb+j] + beta·c[i*ldc+j]
// for i < m, j < n. With kc = 0 the sum is 0. A set without a kernel of
// its own (HasGemmDirect32 false) computes the same, bit for bit, in Go.
//
// It panics if m or n is outside [0, MR] or [0, NR], if kc, rs or ps is
// negative, if ldb < n or ldc < n, or if a, b or c is too short.
func (k *Kernels) GemmDirect32(kc, m, n int, alpha float32, a []float32, rs, ps int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkDirect("GemmDirect32", kc, m, n, k.mr32, k.nr32, len(a), rs, ps, len(b), ldb, len(c), ldc)
	gemmDirect(k.gemmDirect32, kc, m, n, alpha, a, rs, ps, b, ldb, beta, c, ldc)
}

// GemmDirect64 is GemmDirect32 for float64.
func (k *Kernels) GemmDirect64(kc, m, n int, alpha float64, a []float64, rs, ps int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	checkDirect("GemmDirect64", kc, m, n, k.mr64, k.nr64, len(a), rs, ps, len(b), ldb, len(c), ldc)
	gemmDirect(k.gemmDirect64, kc, m, n, alpha, a, rs, ps, b, ldb, beta, c, ldc)
}

// gemmDirect runs a checked direct tile: the set's kernel, or the Go twin
// when the set has none or the sum is empty (kc = 0).
func gemmDirect[T float32 | float64](kernel func(kc, m, n int, alpha T, a []T, rs, ps int, b []T, ldb int, beta T, c []T, ldc int),
	kc, m, n int, alpha T, a []T, rs, ps int, b []T, ldb int, beta T, c []T, ldc int) {
	switch {
	case m == 0 || n == 0:
	case kc == 0 || kernel == nil:
		gemmDirectGo(kc, m, n, alpha, a, rs, ps, b, ldb, beta, c, ldc)
	default:
		kernel(kc, m, n, alpha, a, rs, ps, b, ldb, beta, c, ldc)
	}
}

// checkDirect panics unless the arguments of a direct tile are within the
// mr×nr tile and the slices hold every element the tile uses. It runs for
// every tile of a small product, so it does without divisions: each
// stride is bounded by the length before it is multiplied (m ≤ mr is
// small), and the one product of two unbounded numbers, (kc−1)·ps, is
// taken in 128 bits.
func checkDirect(fn string, kc, m, n, mr, nr, la, rs, ps, lb, ldb, lc, ldc int) {
	switch {
	case kc < 0 || m < 0 || m > mr || n < 0 || n > nr:
		panic(fmt.Sprintf("asm: %s: k=%d m=%d n=%d outside the %d×%d tile", fn, kc, m, n, mr, nr))
	case rs < 0 || ps < 0 || ldb < n || ldc < n:
		panic(fmt.Sprintf("asm: %s: strides rs=%d ps=%d ldb=%d ldc=%d with n=%d", fn, rs, ps, ldb, ldc, n))
	case m == 0 || n == 0:
	case lc < n || (m > 1 && (ldc > lc || (m-1)*ldc > lc-n)):
		panic(fmt.Sprintf("asm: %s: c (%d elements) too short for m=%d n=%d ldc=%d", fn, lc, m, n, ldc))
	case kc == 0:
	case la < 1 || (m > 1 && (rs > la || (m-1)*rs > la-1)) || !within(kc-1, ps, la-1-(m-1)*rs):
		panic(fmt.Sprintf("asm: %s: a (%d elements) too short for k=%d m=%d rs=%d ps=%d", fn, la, kc, m, rs, ps))
	case lb < n || !within(kc-1, ldb, lb-n):
		panic(fmt.Sprintf("asm: %s: b (%d elements) too short for k=%d n=%d ldb=%d", fn, lb, kc, n, ldb))
	}
}

// within reports whether x·y ≤ limit for non-negative x, y and limit,
// without overflow.
func within(x, y, limit int) bool {
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	return hi == 0 && lo <= uint64(limit)
}

// gemmDirectGo is the Go twin of the direct kernels: the same operations
// in the same order, each correctly rounded, so its results are bitwise
// theirs (NaN payloads aside). Arguments are checked by the wrappers.
func gemmDirectGo[T float32 | float64](k, m, n int, alpha T, a []T, rs, ps int, b []T, ldb int, beta T, c []T, ldc int) {
	for i := range m {
		for j := range n {
			var s T
			for p := range k {
				s = fusedMulAdd(a[i*rs+p*ps], b[p*ldb+j], s)
			}
			ci := &c[i*ldc+j]
			switch beta {
			case 0:
				*ci = T(alpha * s)
			case 1:
				*ci = fusedMulAdd(alpha, s, *ci)
			default:
				*ci = fusedMulAdd(alpha, s, T(beta**ci))
			}
		}
	}
}

// fusedMulAdd returns x·y + z rounded once, in T.
func fusedMulAdd[T float32 | float64](x, y, z T) T {
	switch v := any(x).(type) {
	case float32:
		return T(fusedMulAdd32(v, float32(y), float32(z)))
	default:
		return T(math.FMA(float64(x), float64(y), float64(z)))
	}
}

// fusedMulAdd32 is the correctly rounded float32 x·y + z. The product is
// exact in float64 (24 + 24 significand bits); the float64 sum is rounded
// to odd (the error of the rounded sum, found by TwoSum, decides whether
// to step to the odd neighbour), and a float64 rounded to odd rounds
// correctly to float32 since 53 ≥ 2·24 + 2.
func fusedMulAdd32(x, y, z float32) float32 {
	p, c := float64(x)*float64(y), float64(z)
	s := p + c
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	t := s - p
	e := (p - (s - t)) + (c - t)
	if e != 0 && math.Float64bits(s)&1 == 0 {
		s = math.Nextafter(s, math.Inf(int(math.Copysign(1, e))))
	}
	return float32(s)
}
