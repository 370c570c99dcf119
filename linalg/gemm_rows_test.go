package linalg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestGemmRows checks the transposed path for C = alpha·A·Bᵀ (regionRows)
// against the packed one, bitwise, on every kernel set with a GemmRows32
// kernel and 1–3 threads: M around the 64-column slivers of Aᵀ, N around
// the 6-row tiles of B, K in one and in several k blocks, alpha 1 and not,
// beta 0, 1 and neither (C holds NaN for beta = 0: it must not propagate),
// all three matrices padded, B taken through the k blocks in panels of 6
// and 12 rows as well as in one.
func TestGemmRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 64))
	ms := []int{1, 7, 63, 64, 65, 128, 130}
	ns := []int{1, 5, 6, 7, 13, 49}
	ks := []int{1, 37, 150}
	if testing.Short() {
		ms, ns, ks = []int{7, 65}, []int{7, 13}, []int{150}
	}
	for _, kern := range asm.Available() {
		if !kern.HasGemmRows32() {
			continue
		}
		for _, bp := range []struct {
			blk   blocking
			panel int
		}{{blocking{}, 0}, {blocking{mc: 256, kc: 37, nc: 96}, 0}, {blocking{mc: 256, kc: 37, nc: 96}, 6}, {blocking{mc: 256, kc: 70, nc: 96}, 12}} {
			blk := bp.blk
			for _, m := range ms {
				for _, n := range ns {
					for _, k := range ks {
						for _, ab := range [][2]float32{{1.25, 0}, {1, 1}, {-0.75, 0.5}} {
							alpha, beta := ab[0], ab[1]
							name := fmt.Sprintf("%s/blk=%v/panel=%d/%dx%dx%d/alpha=%v/beta=%v", kern.Name(), blk, bp.panel, m, k, n, alpha, beta)
							a := randMatrix[float32](rng, m, k, 3)
							b := randMatrix[float32](rng, n, k, 5) // op(B) = Bᵀ is k×n
							c0 := randMatrix[float32](rng, m, n, 2)
							if beta == 0 {
								for i := range m {
									for j := range n {
										c0.Set(i, j, float32(sentinel))
									}
								}
							}
							run := func(th int, plain bool) Matrix[float32] {
								c := c0.Clone()
								cfg := gemmConfig{kern: kern, threads: th, blk: blk, split: true, noSmall: true, rows: 1, rowsPanel: bp.panel}
								if plain {
									cfg.rows = -1
								}
								if err := gemmWith(cfg, NoTrans, Trans, alpha, a, b, beta, c); err != nil {
									t.Fatalf("%s: %v", name, err)
								}
								return c
							}
							agreesWithPlain(t, name, "the packed path", m, n, run)
						}
					}
				}
			}
		}
	}
}

// TestGemmRowsTaken checks which products take the transposed path.
func TestGemmRowsTaken(t *testing.T) {
	kern := asm.Lookup("avx512")
	if kern == nil || !kern.HasGemmRows32() {
		t.Skip("no GemmRows32 kernel")
	}
	for _, tc := range []struct {
		m      int
		tA, tB bool
		want   bool
	}{
		{128, false, true, true},
		{64, false, true, true},
		{120, false, true, true},
		{100, false, true, false}, // 28 padding columns
		{7, false, true, false},
		{128, false, false, false},
		{128, true, true, false},
		{100000, false, true, false}, // more than one block of A
	} {
		p := gemmProblem[float32]{tA: tc.tA, tB: tc.tB, m: tc.m}
		p.blk = blockSizes(8, 48, 4)
		got := p.useRows() && rowsPays(p.m) && rowsFor[float32](kern) != nil
		if got != tc.want {
			t.Errorf("m=%d tA=%v tB=%v: transposed path %v, want %v", tc.m, tc.tA, tc.tB, got, tc.want)
		}
	}
	if rowsFor[float64](kern) != nil {
		t.Error("float64 has no GemmRows kernel")
	}
}
