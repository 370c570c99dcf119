//go:build gc && !purego

package asm

// acos64AVX2Blocks is acos64Generic for len(x) a multiple of 4.
//
//go:noescape
func acos64AVX2Blocks(dst, x []float64)

// acos64AVX512Blocks is acos64Generic for len(x) a multiple of 8.
//
//go:noescape
func acos64AVX512Blocks(dst, x []float64)

// arcCosLayer64AVX2Blocks is arcCosLayer64Generic for len(sig) a multiple
// of 4; ntk, nj and invj are at least as long.
//
//go:noescape
func arcCosLayer64AVX2Blocks(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)

// arcCosLayer64AVX512Blocks is arcCosLayer64Generic for len(sig) a multiple
// of 8.
//
//go:noescape
func arcCosLayer64AVX512Blocks(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64)

// arcCosFirst64AVX2Blocks is arcCosFirst64Generic for len(g) a multiple
// of 4; the other slices are at least as long.
//
//go:noescape
func arcCosFirst64AVX2Blocks(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)

// arcCosFirst64AVX512Blocks is arcCosFirst64Generic for len(g) a multiple
// of 8.
//
//go:noescape
func arcCosFirst64AVX512Blocks(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64)

func arcCosFirst64AVX2(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(g) &^ 3
	arcCosFirst64AVX2Blocks(sig, ntk, g[:n], a, b, ni, invi, nj, invj, sw2, sb2)
	arcCosFirst64Generic(sig[n:], ntk[n:], g[n:], a, b, ni, invi, nj[n:], invj[n:], sw2, sb2)
}

func arcCosFirst64AVX512(sig, ntk, g []float64, a, b, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(g) &^ 7
	arcCosFirst64AVX512Blocks(sig, ntk, g[:n], a, b, ni, invi, nj, invj, sw2, sb2)
	arcCosFirst64Generic(sig[n:], ntk[n:], g[n:], a, b, ni, invi, nj[n:], invj[n:], sw2, sb2)
}

func acos64AVX2(dst, x []float64) {
	n := len(x) &^ 3
	acos64AVX2Blocks(dst[:n], x[:n])
	acos64Generic(dst[n:len(x)], x[n:]) // the tail stays in Go
}

func acos64AVX512(dst, x []float64) {
	n := len(x) &^ 7
	acos64AVX512Blocks(dst[:n], x[:n])
	acos64Generic(dst[n:len(x)], x[n:])
}

func arcCosLayer64AVX2(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(sig) &^ 3
	arcCosLayer64AVX2Blocks(sig[:n], ntk, ni, invi, nj, invj, sw2, sb2)
	arcCosLayer64Generic(sig[n:], ntk[n:], ni, invi, nj[n:], invj[n:], sw2, sb2)
}

func arcCosLayer64AVX512(sig, ntk []float64, ni, invi float64, nj, invj []float64, sw2, sb2 float64) {
	n := len(sig) &^ 7
	arcCosLayer64AVX512Blocks(sig[:n], ntk, ni, invi, nj, invj, sw2, sb2)
	arcCosLayer64Generic(sig[n:], ntk[n:], ni, invi, nj[n:], invj[n:], sw2, sb2)
}
