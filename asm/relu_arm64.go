//go:build gc && !purego

package asm

// The NEON ReLU kernels: the assembly handles whole 64-byte blocks (four Q
// registers), the Go twin the tail.

// reluNEONBlocks32 is reluGeneric for len(x) a multiple of 16 and
// len(dst) ≥ len(x). Like Go's max on arm64 it uses FMAX, so a signalling
// NaN comes out quieted (payload and sign kept), exactly as the twin does.
//
//go:noescape
func reluNEONBlocks32(dst, x []float32)

// reluNEONBlocks64 is reluGeneric for len(x) a multiple of 8.
//
//go:noescape
func reluNEONBlocks64(dst, x []float64)

// reluGradNEONBlocks32 is reluGradGeneric for len(x) a multiple of 16 and
// len(g), len(dst) ≥ len(x): a compare-with-zero mask ANDed with g, which
// keeps g's bits exactly.
//
//go:noescape
func reluGradNEONBlocks32(dst, g, x []float32)

// reluGradNEONBlocks64 is reluGradGeneric for len(x) a multiple of 8.
//
//go:noescape
func reluGradNEONBlocks64(dst, g, x []float64)

func reluNEON32(dst, x []float32) {
	n := len(x) &^ 15
	reluNEONBlocks32(dst[:n], x[:n])
	reluGeneric(dst[n:len(x)], x[n:]) // the tail stays in Go; assembly stays small
}

func reluNEON64(dst, x []float64) {
	n := len(x) &^ 7
	reluNEONBlocks64(dst[:n], x[:n])
	reluGeneric(dst[n:len(x)], x[n:])
}

func reluGradNEON32(dst, g, x []float32) {
	n := len(x) &^ 15
	reluGradNEONBlocks32(dst[:n], g[:n], x[:n])
	reluGradGeneric(dst[n:len(x)], g[n:len(x)], x[n:])
}

func reluGradNEON64(dst, g, x []float64) {
	n := len(x) &^ 7
	reluGradNEONBlocks64(dst[:n], g[:n], x[:n])
	reluGradGeneric(dst[n:len(x)], g[n:len(x)], x[n:])
}
