//go:build (amd64 || arm64) && (linux || darwin)

package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// Tests of the edge-tile kernels (gemmEdge32 and gemmEdge64): for every
// corner shape they must give bitwise what the scratch-tile path gives
// with the set's full kernel, and touch nothing of C outside the corner,
// neither in memory the slice holds (canaries) nor past its end (a
// PROT_NONE page: atPageEnd in neon_test.go).

// edgeFuncs gives the typed view of one kernel set's edge-tile paths.
type edgeFuncs[T float] struct {
	tileFuncs[T]
	edge func(k int, a, b, c []T, ldc, m, n int) // nil: the scratch path
	pool *sync.Pool
}

func edges32(k *Kernels) edgeFuncs[float32] {
	return edgeFuncs[float32]{tiles32(k), k.gemmEdge32, &scratch32}
}

func edges64(k *Kernels) edgeFuncs[float64] {
	return edgeFuncs[float64]{tiles64(k), k.gemmEdge64, &scratch64}
}

// scratch is the reference: the full kernel into a zeroed scratch tile,
// whose m×n corner is added to c.
func (f edgeFuncs[T]) scratch(k, m, n int, a, b, c []T, ldc int) {
	gemmTileScratch(f.raw, f.pool, f.mr, f.nr, k, m, n, a, b, c, ldc)
}

// edgeKs are the depths of the edge tests: below, at and around the
// unroll of the k loop, and a deeper odd one.
var edgeKs = []int{0, 1, 2, 3, 4, 5, 17, 69}

func TestGemmEdgeTile(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testEdgeKernel(t, edges32(k)) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testEdgeKernel(t, edges64(k)) })
	}
}

// testEdgeKernel runs the edge kernel and the exported wrapper for every
// m ≤ MR and n ≤ NR but the full tile, every depth of edgeKs and ldc = n,
// n+1 and NR+3, comparing them bitwise with the scratch path and checking
// the canaries in and around C's rows.
func testEdgeKernel[T float](t *testing.T, f edgeFuncs[T]) {
	if f.edge == nil {
		t.Skip("no edge kernel: edge tiles take the scratch path")
	}
	rng := rand.New(rand.NewPCG(21, uint64(f.mr*f.nr)))
	for _, k := range edgeKs {
		for m := 1; m <= f.mr; m++ {
			for n := 1; n <= f.nr; n++ {
				if m == f.mr && n == f.nr {
					continue // a full tile never reaches the edge kernel
				}
				for _, ldc := range []int{n, n + 1, f.nr + 3} {
					tc := newTileCase[T](rng, f.mr, f.nr, m, n, k, ldc)
					// Signed zeros in C: the masked add must treat them as
					// the scratch path does.
					tc.c[0], tc.c0[0] = 0, 0
					tc.c[(m-1)*ldc+n-1] = T(math.Copysign(0, -1))
					tc.c0[(m-1)*ldc+n-1] = tc.c[(m-1)*ldc+n-1]
					want := append([]T(nil), tc.c0...)
					f.scratch(k, m, n, tc.a, tc.b, want, ldc)
					where := fmt.Sprintf("m=%d n=%d k=%d ldc=%d", m, n, k, ldc)
					f.edge(k, tc.a, tc.b, tc.c, ldc, m, n)
					if !tc.intact() {
						t.Fatalf("%s: edge kernel wrote outside the m×n corner", where)
					}
					if i := firstDiff(tc.c, want); i >= 0 {
						t.Fatalf("%s: edge kernel C[%d,%d] = %v, scratch path %v", where, i/ldc, i%ldc, tc.c[i], want[i])
					}
					if k == 0 {
						continue // the wrapper returns before any kernel
					}
					copy(tc.c, tc.c0)
					f.tile(k, m, n, tc.a, tc.b, tc.c[:(m-1)*ldc+n], ldc)
					if !tc.intact() {
						t.Fatalf("%s: GemmTile wrote outside the m×n corner", where)
					}
					if i := firstDiff(tc.c, want); i >= 0 {
						t.Fatalf("%s: GemmTile C[%d,%d] = %v, scratch path %v", where, i/ldc, i%ldc, tc.c[i], want[i])
					}
				}
			}
		}
	}
}

func TestGemmEdgeTileAtPageEnd(t *testing.T) {
	for _, k := range available {
		t.Run("impl="+k.name+"/float32", func(t *testing.T) { testEdgeAtPageEnd(t, edges32(k)) })
		t.Run("impl="+k.name+"/float64", func(t *testing.T) { testEdgeAtPageEnd(t, edges64(k)) })
	}
}

// testEdgeAtPageEnd calls the exported wrapper on every edge shape with
// c ending at the corner's last element, flush against a PROT_NONE page,
// so that a load or store past the corner faults; the rest of the mapped
// memory before c holds canaries, which must be intact.
func testEdgeAtPageEnd[T float](t *testing.T, f edgeFuncs[T]) {
	rng := rand.New(rand.NewPCG(22, uint64(f.mr*f.nr)))
	region := atPageEnd[T](t, f.mr*(f.nr+3))
	for _, k := range []int{1, 4, 17} {
		a := make([]T, k*f.mr)
		b := make([]T, k*f.nr)
		for i := range a {
			a[i] = T(2*rng.Float64() - 1)
		}
		for i := range b {
			b[i] = T(2*rng.Float64() - 1)
		}
		for m := 1; m <= f.mr; m++ {
			for n := 1; n <= f.nr; n++ {
				for _, ldc := range []int{n, f.nr + 3} {
					for i := range region {
						region[i] = fromBits[T](canary)
					}
					size := (m-1)*ldc + n
					c := region[len(region)-size:]
					for i := range m {
						for j := range n {
							c[i*ldc+j] = T(2*rng.Float64() - 1)
						}
					}
					want := append([]T(nil), region...)
					f.scratch(k, m, n, a, b, want[len(region)-size:], ldc)
					f.tile(k, m, n, a, b, c, ldc)
					if i := firstDiff(region, want); i >= 0 {
						t.Fatalf("m=%d n=%d k=%d ldc=%d: element %d before the page end is %v, want %v",
							m, n, k, ldc, len(region)-i, region[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkGemmEdgeTile times edge tiles of depth 64 through the scratch
// tile (path=scratch) and the edge kernel (path=masked), for the sets that
// have one, and reports the GFLOP/s of the corner (2·m·n·k per tile).
func BenchmarkGemmEdgeTile(b *testing.B) {
	const kc = 64
	for _, k := range available {
		// Shapes that do not fit a set's tile are left out: {6, 8} and
		// {1, 16} are AVX2's (6×16) answers to AVX-512's {8, 16} and
		// {1, 48}, {4, 8} and {1, 12} those of its 4×12 float64 tile.
		for _, s := range [][2]int{{8, 16}, {3, 5}, {1, 48}, {6, 8}, {1, 16}} {
			benchEdge(b, k.name, "float32", kc, s[0], s[1], edges32(k))
		}
		for _, s := range [][2]int{{8, 8}, {3, 5}, {1, 24}, {4, 8}, {1, 12}} {
			benchEdge(b, k.name, "float64", kc, s[0], s[1], edges64(k))
		}
	}
}

func benchEdge[T float](b *testing.B, name, dtype string, kc, m, n int, f edgeFuncs[T]) {
	if f.edge == nil || m > f.mr || n > f.nr {
		return
	}
	rng := rand.New(rand.NewPCG(23, 24))
	a := make([]T, kc*f.mr)
	bp := make([]T, kc*f.nr)
	for i := range a {
		a[i] = T(rng.Float64())
	}
	for i := range bp {
		bp[i] = T(rng.Float64())
	}
	c := make([]T, m*f.nr)
	for _, path := range []struct {
		name string
		edge func(int, []T, []T, []T, int, int, int)
	}{{"scratch", nil}, {"masked", f.edge}} {
		b.Run(fmt.Sprintf("impl=%s/path=%s/dtype=%s/m=%d,n=%d,k=%d", name, path.name, dtype, m, n, kc), func(b *testing.B) {
			for b.Loop() {
				gemmTile(f.raw, path.edge, f.pool, f.mr, f.nr, kc, m, n, a, bp, c, f.nr)
			}
			b.ReportMetric(2*float64(m*n*kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
