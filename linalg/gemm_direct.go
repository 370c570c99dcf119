package linalg

import "github.com/ntksvm/ntksvm/asm"

// The small-matrix path of Gemm. For small products (16³ to a few 100³),
// packing A and B into panels costs about as much as the arithmetic, and
// the micro-tiles cut by the edges of C are a large share of the work. A
// kernel set with a direct kernel (asm.GemmDirect32; AVX-512, AVX2, NEON) reads op(A)
// and B where they are stored instead: the product is computed tile by
// tile, MR×NR at a time, the kernel scaling C by beta as it stores each
// tile; products of directThreadFlops and more share the tiles out among
// the threads. The choice of path depends only on the shape and the kernel
// set, never on the thread count, and a tile's sums do not depend on the
// thread that computes it, so the result stays bitwise the same for any
// number of threads. On small products the direct kernels are much faster
// than packing (docs/performance.md, "Direct kernels for small products").
// The limits below were measured on x86 only: the NEON direct kernels
// have only been run under qemu, which shows correctness, not speed, so
// on arm64 they are untuned.

const (
	// directMaxWork is the largest m·n·k taken by the direct kernels: up
	// to 256³ they are as fast as the packed path or faster.
	directMaxWork = 256 * 256 * 256
	// directMaxRow is the most bytes of a row of op(B) (n·size) for the
	// direct kernels: with wide B, where each k×NR sliver of B is read in
	// place by many row tiles, its rows ldb apart, packing it into a
	// contiguous panel pays off past this width.
	directMaxRow = 2 << 10
	// directMaxBFrac is the share of L2 that op(B) may fill: every row
	// tile of C reads the whole of B, so B must stay in L2 (a B that
	// fills L2 runs slower direct than packed).
	directMaxBFrac = 2
)

// directKernel is a kernel set's direct kernel for T (asm.GemmDirect32 or
// asm.GemmDirect64).
type directKernel[T Float] func(kc, m, n int, alpha T, a []T, rs, ps int, b []T, ldb int, beta T, c []T, ldc int)

// directFor returns the micro-tile shape and direct kernel of ks for T, or
// a nil kernel when the set has none of its own (its Go fallback is slower
// than packing).
func directFor[T Float](ks *asm.Kernels) (mr, nr int, f directKernel[T]) {
	var z T
	if _, ok := any(z).(float32); ok {
		if !ks.HasGemmDirect32() {
			return 0, 0, nil
		}
		mr, nr = ks.Tile32()
		return mr, nr, any(directKernel[float32](ks.GemmDirect32)).(directKernel[T])
	}
	if !ks.HasGemmDirect64() {
		return 0, 0, nil
	}
	mr, nr = ks.Tile64()
	return mr, nr, any(directKernel[float64](ks.GemmDirect64)).(directKernel[T])
}

// directShape reports whether the product is one for the direct kernels:
// op(B) = B (the kernels read rows of B), the full C (not SyrkLower), and
// small enough by directMaxWork, directMaxRow and directMaxBFrac. It
// depends only on the shape, T and the cache sizes, never on the thread
// count.
func (p *gemmProblem[T]) directShape() bool {
	var z T
	size := float64(unsafeSizeof(z))
	_, l2, _ := cacheSizes()
	m, n, k := float64(p.m), float64(p.n), float64(p.k) // no overflow
	return !p.tB && !p.lower && m*n*k <= directMaxWork &&
		n*size <= directMaxRow && k*n*size <= float64(l2/directMaxBFrac)
}

// directThreadFlops is the least work (2·m·n·k flops) for which the
// direct path uses more than one thread: with parallel's spinning
// workers, about where a second thread starts to pay (docs/performance.md,
// "Direct kernels for small products").
const directThreadFlops = 3 << 19 // 1.5 Mflop, about 2·92³

// tryDirect computes the product with the direct kernels of ks on up to
// t threads and reports true if the product is small enough
// (directShape) and ks has them; otherwise it does nothing and reports
// false. With split set, every thread takes a share however small the
// product (tests).
func (p *gemmProblem[T]) tryDirect(ks *asm.Kernels, t int, split bool) bool {
	if !p.directShape() {
		return false
	}
	mr, nr, f := directFor[T](ks)
	if f == nil {
		return false
	}
	if !split && 2*float64(p.m)*float64(p.n)*float64(p.k) < float64(directThreadFlops) {
		t = 1
	}
	p.directTiles(mr, nr, f, t)
	return true
}

// directTiles computes C = alpha·op(A)·B + beta·C with the direct kernel
// f of tile mr×nr on up to t threads: the tiles of a column of tiles one
// after the other, so that the k×nr sliver of B they share stays in L1.
// (Sharing the vectors of the columns out evenly among the column tiles,
// 32 + 32 float32 columns rather than 48 + 16, gains nothing.) With
// t > 1 the columns of tiles are shared out among the threads, or the
// rows of tiles when there are more of those.
func (p *gemmProblem[T]) directTiles(mr, nr int, f directKernel[T], t int) {
	// A(i,q) is at i·rs + q·ps. A stride is only used with more than one
	// row, and a one-row matrix may have any.
	lda := rowStride(p.a)
	rs, ps := lda, 1
	if p.tA {
		rs, ps = 1, lda
	}
	ldb, ldc := rowStride(p.b), rowStride(p.c)
	tiles := func(i0, i1, j0, j1 int) {
		for j := j0; j < j1; j += nr {
			nn := min(nr, j1-j)
			for i := i0; i < i1; i += mr {
				mm := min(mr, i1-i)
				f(p.k, mm, nn, p.alpha, p.a.Data[i*rs:], rs, ps, p.b.Data[j:], ldb, p.beta, p.c.Data[i*ldc+j:], ldc)
			}
		}
	}
	tm, tn := (p.m+mr-1)/mr, (p.n+nr-1)/nr
	t = max(1, min(t, max(tm, tn)))
	// With t > 1 the work is cut into up to directShares·t shares that the
	// threads claim as they come, so that a thread the operating system
	// deschedules holds up a small share only.
	switch {
	case t == 1:
		tiles(0, p.m, 0, p.n)
	case tn >= tm:
		s := min(tn, directShares*t)
		cuts := evenCuts(p.n, nr, s)
		parallelN(s, t, func(w int) { tiles(0, p.m, cuts[w], cuts[w+1]) })
	default:
		s := min(tm, directShares*t)
		cuts := evenCuts(p.m, mr, s)
		parallelN(s, t, func(w int) { tiles(cuts[w], cuts[w+1], 0, p.n) })
	}
}

// directShares is how many shares per thread directTiles cuts its work
// into at most.
const directShares = 4

// rowStride returns x.Stride, or x.Cols when x has at most one row (its
// Stride is then never used and may be anything).
func rowStride[T Float](x Matrix[T]) int {
	if x.Rows <= 1 {
		return x.Cols
	}
	return x.Stride
}
