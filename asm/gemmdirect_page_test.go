//go:build (amd64 || arm64) && (linux || darwin)

package asm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestGemmDirectAtPageEnd puts each of A, B and C in turn flush against a
// PROT_NONE page, ending at the last element the tile uses (lda, ldb and
// ldc tight), so that any load or store past it faults: the masked B loads
// and C stores and the row offsets of A must stay inside. Every m ≤ MR and
// n ≤ NR, a few depths, A stored both ways, beta 1, 0 and −1.5 (the three
// ways of storing C).
func TestGemmDirectAtPageEnd(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testDirectAtPageEnd(t, directs32(k)) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testDirectAtPageEnd(t, directs64(k)) })
	}
}

func testDirectAtPageEnd[T float](t *testing.T, f directFuncs[T]) {
	rng := rand.New(rand.NewPCG(32, uint64(f.mr*f.nr)))
	ks := []int{1, 4, 5, 17}
	if testing.Short() {
		ks = []int{1, 5}
	}
	maxK := ks[len(ks)-1]
	// One region per operand, each as long as its largest use.
	regions := [3][]T{
		atPageEnd[T](t, f.mr*maxK),
		atPageEnd[T](t, maxK*f.nr),
		atPageEnd[T](t, f.mr*f.nr),
	}
	for _, k := range ks {
		for m := 1; m <= f.mr; m++ {
			for n := 1; n <= f.nr; n++ {
				for _, l := range directLayouts {
					beta := T([]float64{1, 0, -1.5}[(k+m+n)%3]) // each store variant
					dc := newDirectCase[T](rng, m, n, k, 0, l.trans)
					// Trim each operand to its last used element.
					dc.a = dc.a[:(m-1)*dc.rs+(k-1)*dc.ps+1]
					dc.b = dc.b[:(k-1)*dc.ldb+n]
					dc.c = dc.c[:(m-1)*dc.ldc+n]
					want := append([]T(nil), dc.c...)
					gemmDirectGo(k, m, n, 1, dc.a, dc.rs, dc.ps, dc.b, dc.ldb, beta, want, dc.ldc)
					for op := range regions {
						ops := [3][]T{dc.a, dc.b, append([]T(nil), dc.c...)}
						r := regions[op]
						for i := range r {
							r[i] = fromBits[T](canary)
						}
						moved := r[len(r)-len(ops[op]):]
						copy(moved, ops[op])
						ops[op] = moved
						before := append([]T(nil), r...)
						f.direct(k, m, n, 1, ops[0], dc.rs, dc.ps, ops[1], dc.ldb, beta, ops[2], dc.ldc)
						where := fmt.Sprintf("k=%d m=%d n=%d %s, operand %c at the page end", k, m, n, l.name, "ABC"[op])
						if i := firstDiff(ops[2], want); i >= 0 {
							t.Fatalf("%s: C[%d] = %v, Go twin %v", where, i, ops[2][i], want[i])
						}
						if op != 2 {
							if i := firstDiff(r, before); i >= 0 {
								t.Fatalf("%s: input changed at %d", where, i)
							}
						} else if i := firstDiff(r[:len(r)-len(moved)], before[:len(r)-len(moved)]); i >= 0 {
							t.Fatalf("%s: canary before C overwritten at %d", where, i)
						}
					}
				}
			}
		}
	}
}
