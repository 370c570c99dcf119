package asm

import (
	"math"
	"sync/atomic"
)

// generic is the pure-Go kernel set; it is always available and last in
// preference.
var generic = &Kernels{
	name:       "generic",
	features:   "none",
	mr32:       4,
	nr32:       4,
	mr64:       4,
	nr64:       4,
	relu32:     reluGeneric[float32],
	relu64:     reluGeneric[float64],
	reluGrad32: reluGradGeneric[float32],
	reluGrad64: reluGradGeneric[float64],
	gemmTile32: gemmTile4x4[float32],
	gemmTile64: gemmTile4x4[float64],
	fmaPeak32:  fmaPeakGeneric[float32],
	fmaPeak64:  fmaPeakGeneric[float64],
}

// gemmTileRef is the reference micro-kernel for any MR×NR: the Go twin that
// every assembly kernel is tested against.
func gemmTileRef[T float32 | float64](mr, nr, k int, a, b, c []T, ldc int) {
	for i := range mr {
		for j := range nr {
			var acc T
			for p := range k {
				acc += a[p*mr+i] * b[p*nr+j]
			}
			c[i*ldc+j] += acc
		}
	}
}

// gemmTile4x4 is gemmTileRef for a 4×4 tile with the accumulators in
// registers; it is the generic set's kernel.
func gemmTile4x4[T float32 | float64](k int, a, b, c []T, ldc int) {
	var c00, c01, c02, c03, c10, c11, c12, c13 T
	var c20, c21, c22, c23, c30, c31, c32, c33 T
	a = a[:4*k]
	b = b[:4*k]
	for p := 0; p < 4*k; p += 4 {
		ap, bp := a[p:p+4:p+4], b[p:p+4:p+4]
		a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	r := c[0*ldc : 0*ldc+4]
	r[0], r[1], r[2], r[3] = r[0]+c00, r[1]+c01, r[2]+c02, r[3]+c03
	r = c[1*ldc : 1*ldc+4]
	r[0], r[1], r[2], r[3] = r[0]+c10, r[1]+c11, r[2]+c12, r[3]+c13
	r = c[2*ldc : 2*ldc+4]
	r[0], r[1], r[2], r[3] = r[0]+c20, r[1]+c21, r[2]+c22, r[3]+c23
	r = c[3*ldc : 3*ldc+4]
	r[0], r[1], r[2], r[3] = r[0]+c30, r[1]+c31, r[2]+c32, r[3]+c33
}

// fmaPeakGeneric is the generic set's peak loop: eight independent scalar
// multiply-add chains.
func fmaPeakGeneric[T float32 | float64](n int) int {
	x0, x1, x2, x3, x4, x5, x6, x7 := T(1), T(1), T(1), T(1), T(1), T(1), T(1), T(1)
	m, a := T(0.999999), T(1e-7)
	for range n {
		x0 = x0*m + a
		x1 = x1*m + a
		x2 = x2*m + a
		x3 = x3*m + a
		x4 = x4*m + a
		x5 = x5*m + a
		x6 = x6*m + a
		x7 = x7*m + a
	}
	sink.Store(math.Float64bits(float64(x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7)))
	return 16 * n
}

// sink keeps peak loops from being optimised away; atomic because the
// benchmarks run peak loops on several goroutines at once.
var sink atomic.Uint64
