//go:build gc && !purego

package asm

import "testing"

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
		t.Skip("allocates ~100 MB")
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
