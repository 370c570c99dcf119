package asm

import "fmt"

// GemmRowBeta32 is GemmTile32 for a row of n full MR×NR tiles side by side
// that share the packed A sliver a, with C scaled by beta first: tile t
// computes
//
//	c[i*ldc+t·NR+j] = beta·c[i*ldc+t·NR+j] + Σ_{p<kc} a[p*MR+i]·b[t·kc·NR+p*NR+j]
//
// for i < MR, j < NR, where beta·c is rounded and the sum is the one
// GemmTile32 adds, so the result is bitwise that of multiplying every
// element of the tiles by beta and then calling GemmTile32 for each tile.
// A set with a kernel of its own (HasGemmBeta32) scales C in the kernel's
// epilogue, where it reads C anyway, so C is read and written once: this
// is C = beta·C + alpha·op(A)·op(B) with one k block (a rank-kc update of a
// large C) without a separate pass over C. Without one it scales each tile
// in Go just before the plain kernel adds to it.
//
// beta multiplies C as any number does (0·NaN is NaN): a caller that
// wants C ignored for beta = 0 clears it instead. It panics if kc < 0,
// n < 0, ldc < NR, or a, b or c is too short.
func (k *Kernels) GemmRowBeta32(kc int, a, b, c []float32, ldc, n int, beta float32) {
	gemmRowBeta("GemmRowBeta32", k.mr32, k.nr32, k.gemmBeta32, k.gemmTile32, kc, a, b, c, ldc, n, beta)
}

// GemmRowBeta64 is GemmRowBeta32 for float64.
func (k *Kernels) GemmRowBeta64(kc int, a, b, c []float64, ldc, n int, beta float64) {
	gemmRowBeta("GemmRowBeta64", k.mr64, k.nr64, k.gemmBeta64, k.gemmTile64, kc, a, b, c, ldc, n, beta)
}

// HasGemmBeta32 reports whether GemmRowBeta32 has a kernel of its own in
// this set; without one it saves no pass over C.
func (k *Kernels) HasGemmBeta32() bool { return k.gemmBeta32 != nil }

// HasGemmBeta64 is HasGemmBeta32 for GemmRowBeta64.
func (k *Kernels) HasGemmBeta64() bool { return k.gemmBeta64 != nil }

func gemmRowBeta[T float32 | float64](fn string, mr, nr int, kernel func(k int, a, b, c []T, ldc int, beta T),
	tile func(k int, a, b, c []T, ldc int), kc int, a, b, c []T, ldc, n int, beta T) {
	switch {
	case kc < 0 || n < 0 || ldc < nr:
		panic(fmt.Sprintf("asm: %s: k=%d n=%d ldc=%d with an %d×%d tile", fn, kc, n, ldc, mr, nr))
	case len(a) < kc*mr || len(b) < n*kc*nr:
		panic(fmt.Sprintf("asm: %s: packed panels too short for k=%d, %d tiles", fn, kc, n))
	case n > 0 && len(c) < (mr-1)*ldc+n*nr:
		panic(fmt.Sprintf("asm: %s: c too short for %d tiles, ldc=%d", fn, n, ldc))
	}
	if kc == 0 || kernel == nil {
		// GemmTile adds nothing for kc = 0 (not even +0 to a −0).
		kernel = func(k int, a, b, c []T, ldc int, beta T) {
			gemmBetaGo(tile, mr, nr, k, a, b, c, ldc, beta)
		}
	}
	for t := range n {
		kernel(kc, a, b[t*kc*nr:], c[t*nr:], ldc, beta)
	}
}

// gemmBetaGo is the Go twin of the beta kernels: the tile of c scaled by
// beta, then the plain kernel tile (which adds nothing for k = 0).
func gemmBetaGo[T float32 | float64](tile func(k int, a, b, c []T, ldc int), mr, nr, k int, a, b, c []T, ldc int, beta T) {
	for i := range mr {
		row := c[i*ldc : i*ldc+nr]
		for j := range row {
			row[j] *= beta
		}
	}
	if k > 0 {
		tile(k, a, b, c, ldc)
	}
}
