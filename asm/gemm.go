package asm

import (
	"fmt"
	"sync"
)

// The GEMM micro-kernel contract (BLIS/Goto design). The caller (package
// linalg) packs operands; the kernel computes one MR×NR tile of C:
//
//	C[i,j] += Σ_{p<k} A[i,p]·B[p,j]     for i < m ≤ MR, j < n ≤ NR
//
// with A packed as a k×MR panel, a[p*MR+i] = A[i,p], and B packed as a
// k×NR panel, b[p*NR+j] = B[p,j]. Panels are always full: rows of A beyond
// m and columns of B beyond n must be present (zero padding is the
// convention). C is row-major with leading dimension ldc ≥ n; only its
// m×n corner is read and written, and c need only reach the corner's last
// element. The products for each C entry are summed in increasing p (with
// FMA in the assembly kernels) and added to C once at the end, so the
// result does not depend on how the caller splits M and N. Any alpha and
// beta are the caller's: it scales C (beta) and a packed panel (alpha)
// itself.
//
// A set's kernel computes full tiles; edge tiles (m < MR or n < NR) go to
// its edge kernel if it has one (AVX-512 and AVX2: the same sums, added
// through masked loads and stores; NEON: the same sums, added by whole
// vectors and then column by column), else the full kernel computes them
// into a scratch tile whose corner is then added to C (generic).

// Tile32 returns the float32 micro-tile shape MR×NR of this kernel set.
func (k *Kernels) Tile32() (mr, nr int) { return k.mr32, k.nr32 }

// Tile64 returns the float64 micro-tile shape MR×NR of this kernel set.
func (k *Kernels) Tile64() (mr, nr int) { return k.mr64, k.nr64 }

// GemmTile32 accumulates one micro-tile as described above:
// c[i*ldc+j] += Σ_p a[p*MR+i]·b[p*NR+j] for i < m, j < n.
// It panics if m or n is outside [0, MR] or [0, NR], if ldc < n, or if a,
// b or c is too short (c needs (m-1)·ldc + n elements).
func (k *Kernels) GemmTile32(kc, m, n int, a, b, c []float32, ldc int) {
	checkTile("GemmTile32", kc, m, n, k.mr32, k.nr32, len(a), len(b), len(c), ldc)
	gemmTile(k.gemmTile32, k.gemmEdge32, &scratch32, k.mr32, k.nr32, kc, m, n, a, b, c, ldc)
}

// GemmTile64 is GemmTile32 for float64.
func (k *Kernels) GemmTile64(kc, m, n int, a, b, c []float64, ldc int) {
	checkTile("GemmTile64", kc, m, n, k.mr64, k.nr64, len(a), len(b), len(c), ldc)
	gemmTile(k.gemmTile64, k.gemmEdge64, &scratch64, k.mr64, k.nr64, kc, m, n, a, b, c, ldc)
}

// gemmTile runs a checked tile: the full-tile kernel directly on c when
// the tile is full; for an edge tile (m < MR or n < NR) the set's edge
// kernel if it has one, else gemmTileScratch.
func gemmTile[T float32 | float64](kernel func(int, []T, []T, []T, int),
	edge func(int, []T, []T, []T, int, int, int), pool *sync.Pool,
	mr, nr, kc, m, n int, a, b, c []T, ldc int) {
	switch {
	case m == 0 || n == 0 || kc == 0:
	case m == mr && n == nr:
		kernel(kc, a, b, c, ldc)
	case edge != nil:
		edge(kc, a, b, c, ldc, m, n)
	default:
		gemmTileScratch(kernel, pool, mr, nr, kc, m, n, a, b, c, ldc)
	}
}

// gemmTileScratch runs the full-tile kernel on a zeroed scratch tile from
// pool and adds its m×n corner to c (the edge-tile path of the sets
// without edge kernels). The scratch tile holds the sums exactly (0 + s
// is s for any sum s other than −0, which a sum starting from +0 is only
// after an underflow), so the result is bitwise that of an edge kernel
// except for the sign of a zero when both the sum and C are −0, and which
// NaN payload wins when both are NaN.
func gemmTileScratch[T float32 | float64](kernel func(int, []T, []T, []T, int), pool *sync.Pool,
	mr, nr, kc, m, n int, a, b, c []T, ldc int) {
	s := pool.Get().(*[maxTile]T)
	t := s[:mr*nr]
	clear(t)
	kernel(kc, a, b, t, nr)
	for i := range m {
		ci := c[i*ldc : i*ldc+n]
		for j, v := range t[i*nr : i*nr+n] {
			ci[j] += v
		}
	}
	pool.Put(s)
}

// maxTile bounds MR·NR over all kernel sets.
const maxTile = 1024

// scratch32 and scratch64 hold *[maxTile]T edge tiles.
var (
	scratch32 = sync.Pool{New: func() any { return new([maxTile]float32) }}
	scratch64 = sync.Pool{New: func() any { return new([maxTile]float64) }}
)

func checkTile(fn string, kc, m, n, mr, nr, la, lb, lc, ldc int) {
	switch {
	case kc < 0 || m < 0 || m > mr || n < 0 || n > nr:
		panic(fmt.Sprintf("asm: %s: k=%d m=%d n=%d outside the %d×%d tile", fn, kc, m, n, mr, nr))
	case la < kc*mr || lb < kc*nr:
		panic(fmt.Sprintf("asm: %s: packed panels too short for k=%d", fn, kc))
	case m > 0 && n > 0 && (ldc < n || lc < (m-1)*ldc+n):
		panic(fmt.Sprintf("asm: %s: c too short or ldc=%d < n=%d", fn, ldc, n))
	}
}

// PeakFMA32 runs a register-only loop of n·(unroll) independent float32 FMAs
// on this kernel set's widest vectors and returns the floating-point
// operations it did; dividing by the elapsed time gives the core's measured
// peak. n must be positive.
func (k *Kernels) PeakFMA32(n int) int { return k.fmaPeak32(n) }

// PeakFMA64 is PeakFMA32 for float64.
func (k *Kernels) PeakFMA64(n int) int { return k.fmaPeak64(n) }
