//go:build gc && !purego

package asm

// acos64NEONBlocks is acos64Generic for len(x) a multiple of 2.
//
//go:noescape
func acos64NEONBlocks(dst, x []float64)

// arcCosLayer64NEONBlocks is arcCosLayer64Generic for len(sig) a multiple
// of 2; ntk, nj and invj are at least as long.
//
//go:noescape
func arcCosLayer64NEONBlocks(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)

// arcCosFirst64NEONBlocks is arcCosFirst64Generic for len(g) a multiple of
// 2; the other slices are at least as long.
//
//go:noescape
func arcCosFirst64NEONBlocks(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)

func acos64NEON(dst, x []float64) {
	n := len(x) &^ 1
	acos64NEONBlocks(dst[:n], x[:n])
	acos64Generic(dst[n:len(x)], x[n:]) // the tail stays in Go
}

func arcCosLayer64NEON(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(sig) &^ 1
	arcCosLayer64NEONBlocks(sig[:n], ntk, ni, invi, nj, invj, sw2, sb2)
	arcCosLayer64Generic(sig[n:], ntk[n:], ni, invi, nj[n:], invj[n:], sw2, sb2)
}

func arcCosFirst64NEON(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(g) &^ 1
	arcCosFirst64NEONBlocks(sig, ntk, g[:n], a, b, ni, invi, nj, invj, sw2, sb2)
	arcCosFirst64Generic(sig[n:], ntk[n:], g[n:], a, b, ni, invi, nj[n:], invj[n:], sw2, sb2)
}
