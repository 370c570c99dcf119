//go:build gc && !purego

package asm

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// Assembly kernels in relu_amd64.s. Each handles a length that is a
// multiple of one vector; the wrappers below call them for the longest such
// prefix and finish the tail in Go.

//go:noescape
func reluAVX512F32(dst, x []float32)

//go:noescape
func reluAVX512F64(dst, x []float64)

//go:noescape
func reluNTAVX512F32(dst, x []float32)

//go:noescape
func reluNTAVX512F64(dst, x []float64)

//go:noescape
func reluGradAVX512F32(dst, g, x []float32)

//go:noescape
func reluGradAVX512F64(dst, g, x []float64)

//go:noescape
func reluAVX2F32(dst, x []float32)

//go:noescape
func reluAVX2F64(dst, x []float64)

//go:noescape
func reluNTAVX2F32(dst, x []float32)

//go:noescape
func reluNTAVX2F64(dst, x []float64)

//go:noescape
func reluGradAVX2F32(dst, g, x []float32)

//go:noescape
func reluGradAVX2F64(dst, g, x []float64)

// reluNTBytes is the output size from which out-of-place ReLU uses
// non-temporal stores: they skip reading dst's lines into the cache (a third
// of the memory traffic) but leave the result in memory rather than in the
// cache, so they only pay for arrays that would not stay in L2 anyway.
// BenchmarkReLUNonTemporal measured the crossover between 1 and 4 MiB
// arrays on a 2 MiB-L2 Xeon; twice the L2 size is the threshold. A variable
// so that tests can lower it.
var reluNTBytes = ntThreshold()

// ntThreshold is twice the L2 size per core, or 4 MiB if it is unknown.
func ntThreshold() int {
	if l2 := cpuid.CPU.Cache.L2; l2 > 0 {
		return 2 * l2
	}
	return 4 << 20
}

// reluVec returns a wrapper that runs blocks (for multiples of vec
// elements) and nt (the same with non-temporal stores, for a dst aligned to
// align bytes) and finishes in Go.
func reluVec[T float32 | float64](vec, align int, blocks, nt func(dst, x []T)) func(dst, x []T) {
	esz := int(unsafe.Sizeof(T(0)))
	return func(dst, x []T) {
		dst = dst[:len(x)]
		run := blocks
		if len(x) > 0 && len(x)*esz >= reluNTBytes && &dst[0] != &x[0] {
			// Non-temporal stores want an aligned dst: the head goes to Go.
			h := (align - int(uintptr(unsafe.Pointer(&dst[0]))%uintptr(align))) % align / esz
			h = min(h, len(x))
			reluGeneric(dst[:h], x[:h])
			dst, x = dst[h:], x[h:]
			run = nt
		}
		n := len(x) - len(x)%vec
		run(dst[:n], x[:n])
		reluGeneric(dst[n:], x[n:])
	}
}

// reluGradVec returns the derivative-mask wrapper for blocks of vec
// elements; the tail is the Go twin, which already matches bit for bit.
func reluGradVec[T float32 | float64](vec int, blocks func(dst, g, x []T)) func(dst, g, x []T) {
	return func(dst, g, x []T) {
		n := len(x) - len(x)%vec
		blocks(dst[:n], g[:n], x[:n])
		reluGradGeneric(dst[n:len(x)], g[n:], x[n:])
	}
}
