//go:build (amd64 || arm64) && (linux || darwin)

package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestGemmEdgeTileSpecials runs each set's edge kernel on panels and C
// holding NaNs (quiet and signalling, with payloads), ±Inf, ±0 and
// subnormals, for every edge shape: each entry of the m×n corner must be
// the FMA contract's (fusedMulAdd in increasing p from +0, then C + sum),
// a NaN wherever that is NaN (which payload wins is the hardware's) and
// bit for bit elsewhere, and nothing outside the corner may change.
func TestGemmEdgeTileSpecials(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testEdgeSpecials(t, edges32(k)) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testEdgeSpecials(t, edges64(k)) })
	}
}

func testEdgeSpecials[T float](t *testing.T, f edgeFuncs[T]) {
	if f.edge == nil {
		t.Skip("no edge kernel: edge tiles take the scratch path")
	}
	rng := rand.New(rand.NewPCG(24, uint64(f.mr*f.nr)))
	for _, k := range []int{1, 2, 5, 9} {
		for m := 1; m <= f.mr; m++ {
			for n := 1; n <= f.nr; n++ {
				if m == f.mr && n == f.nr {
					continue
				}
				ldc := n + 1
				tc := newTileCase[T](rng, f.mr, f.nr, m, n, k, ldc)
				randomWithSpecials(rng, tc.a)
				randomWithSpecials(rng, tc.b)
				for i := range m {
					randomWithSpecials(rng, tc.c[i*ldc:i*ldc+n])
				}
				copy(tc.c0, tc.c)
				f.edge(k, tc.a, tc.b, tc.c, ldc, m, n)
				if !tc.intact() {
					t.Fatalf("m=%d n=%d k=%d: wrote outside the m×n corner", m, n, k)
				}
				for i := range m {
					for j := range n {
						var s T
						for p := range k {
							s = fusedMulAdd(tc.a[p*f.mr+i], tc.b[p*f.nr+j], s)
						}
						want := tc.c0[i*ldc+j] + s
						got := tc.c[i*ldc+j]
						if isNaN(want) && isNaN(got) {
							continue
						}
						if bitsOf(got) != bitsOf(want) {
							t.Fatalf("m=%d n=%d k=%d: C[%d,%d] = %#x, contract %#x (%s)", m, n, k, i, j,
								bitsOf(got), bitsOf(want), fmt.Sprint(want))
						}
					}
				}
			}
		}
	}
}
