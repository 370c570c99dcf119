//go:build gc && !purego

package asm

import (
	"fmt"
	"testing"
)

// TestReLUNonTemporal runs the exhaustive ReLU test with the non-temporal
// path taken for every length, so its aligned head, its kernels and its
// tail are checked like the cached path.
func TestReLUNonTemporal(t *testing.T) {
	defer func(b int) { reluNTBytes = b }(reluNTBytes)
	reluNTBytes = 0
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testReLU(t, k.ReLU32, maxReLULen) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testReLU(t, k.ReLU64, maxReLULen) })
	}
}

// TestReLUNonTemporalLarge crosses the real threshold once per set with an
// odd misalignment.
func TestReLUNonTemporalLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates arrays larger than twice the L2")
	}
	n := reluNTBytes/4 + 77
	x := alignedFloats[float32](n, 3)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	x[n-1], x[12345] = -0.0, fromBits[float32](0xffc01234)
	for _, k := range available {
		dst := alignedFloats[float32](n+1, 1)[:n]
		k.ReLU32(dst, x)
		if i := reluBad(dst, x); i >= 0 {
			t.Fatalf("%s: ReLU(%v) = %v at %d", k.name, x[i], dst[i], i)
		}
	}
}

// BenchmarkReLUNonTemporal compares the cached and the non-temporal paths
// of out-of-place ReLU across the cache sizes; it is how reluNTBytes was
// chosen.
func BenchmarkReLUNonTemporal(b *testing.B) {
	defer func(v int) { reluNTBytes = v }(reluNTBytes)
	for _, n := range []int{1 << 18, 1 << 20, 1 << 22, 1 << 25} {
		x := alignedFloats[float32](n, 0)
		for i := range x {
			x[i] = float32(i%13) - 6
		}
		dst := alignedFloats[float32](n, 0)
		for _, k := range available[:len(available)-1] {
			for _, nt := range []bool{false, true} {
				b.Run(fmt.Sprintf("impl=%s/nt=%v/n=%d", k.name, nt, n), func(b *testing.B) {
					reluNTBytes = 1 << 62
					if nt {
						reluNTBytes = 0
					}
					b.SetBytes(int64(8 * n))
					for b.Loop() {
						k.ReLU32(dst, x)
					}
				})
			}
		}
		b.Run(fmt.Sprintf("impl=copy/nt=go/n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(dst, x)
			}
		})
	}
}
