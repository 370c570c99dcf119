package linalg

import "fmt"

// Gram computes the Gram matrix of the rows of A: C = A·Aᵀ, C[i, j] being
// the inner product of rows i and j. A is n×k and C n×n. Only the
// micro-tiles on and below the diagonal are computed (about half the flops
// of Gemm), and each is copied onto the upper triangle as soon as it is
// final, so C is exactly symmetric. A consumer that reads one triangle only
// (a Cholesky factorization) saves the copy with SyrkLower. It returns an
// error wrapping ErrShape if C is not n×n and an error if C shares storage
// with A.
func Gram[T Float](a, c Matrix[T]) error {
	return gramWith(gemmConfig{}, a, c)
}

func gramWith[T Float](cfg gemmConfig, a, c Matrix[T]) error {
	return syrkLowerWith(cfg, "Gram", 1, a, 0, c)
}

// CrossGram computes C = A·Bᵀ, the inner products of the rows of A (m×k)
// with the rows of B (n×k), into the m×n matrix C. It is Gemm(NoTrans,
// Trans, 1, a, b, 0, c) and returns the same errors.
func CrossGram[T Float](a, b, c Matrix[T]) error {
	return Gemm(NoTrans, Trans, 1, a, b, 0, c)
}

// SyrkLower computes the lower triangle of C = alpha·A·Aᵀ + beta·C for an
// n×k matrix A and an n×n matrix C: elements C[i, j] with i ≥ j are
// updated, those above the diagonal are neither read nor written. When
// beta is 0 the lower triangle of C is overwritten, NaN included. This is
// the symmetric rank-k update of a blocked Cholesky factorization
// (alpha = -1, beta = 1 for the trailing submatrix). It returns an error
// wrapping ErrShape if C is not n×n and an error if C shares storage with A.
func SyrkLower[T Float](alpha T, a Matrix[T], beta T, c Matrix[T]) error {
	return syrkLowerWith(gemmConfig{}, "SyrkLower", alpha, a, beta, c)
}

// syrkLowerWith is SyrkLower with a configuration; fn names the caller in
// errors, and Gram (fn "Gram") also mirrors the result onto the upper
// triangle.

func syrkLowerWith[T Float](cfg gemmConfig, fn string, alpha T, a Matrix[T], beta T, c Matrix[T]) error {
	if c.Rows != a.Rows || c.Cols != a.Rows {
		return fmt.Errorf("%w: %s: A is %d×%d, so C must be %d×%d, not %d×%d",
			ErrShape, fn, a.Rows, a.Cols, a.Rows, a.Rows, c.Rows, c.Cols)
	}
	if err := checkMatrix("A", a); err != nil {
		return err
	}
	if err := checkMatrix("C", c); err != nil {
		return err
	}
	if overlaps(c.Data, a.Data) {
		return fmt.Errorf("linalg: %s: C shares storage with A", fn)
	}
	p := &gemmProblem[T]{
		tA: false, tB: true, alpha: alpha, beta: beta,
		a: a, b: a, c: c, m: a.Rows, n: a.Rows, k: a.Cols, lower: true, mirror: fn == "Gram",
	}
	p.run(cfg)
	return nil
}

// MirrorLower copies the elements of the strict lower triangle of the
// square matrix c that lie in rows [i0, i1) and columns [j0, j1) onto
// their mirror images, C[j, i] = C[i, j] for i0 ≤ i < i1 and j0 ≤ j <
// min(j1, i), bit for bit; it reads no other element and writes no other
// one, so goroutines may mirror disjoint blocks of rows at once. A
// consumer that fills a symmetric matrix's lower triangle a block of rows
// at a time (the NTK Gram, the extracted kernel) calls it on each block
// while the block is still in cache; Gram's small and degenerate products
// (k = 0, the direct loop) call it on the whole matrix, and the blocked
// path mirrors each micro-tile instead (gemmProblem.macro). It panics if
// c is not square or the ranges are not within it.
func MirrorLower[T Float](c Matrix[T], i0, i1, j0, j1 int) {
	n := c.Rows
	if c.Cols != n || i0 < 0 || i0 > i1 || i1 > n || j0 < 0 || j0 > j1 || j1 > n {
		panic(fmt.Sprintf("linalg: MirrorLower: rows [%d, %d), columns [%d, %d) of a %d×%d matrix", i0, i1, j0, j1, c.Rows, c.Cols))
	}
	for r0 := i0; r0 < i1; r0 += mirrorRows {
		r1 := min(r0+mirrorRows, i1)
		for c0 := j0; c0 < min(j1, r1); c0 += mirrorCols {
			mirrorTile(c, r0, r1, c0, min(c0+mirrorCols, j1, r1))
		}
	}
}

// mirrorRows×mirrorCols is the shape of MirrorLower's tiles: a tile of
// float64 (256 KiB) stays in L2 while its columns are copied to row
// segments of up to mirrorRows elements; this shape beat a transpose
// through a small buffer and narrower tiles (docs/performance.md,
// "Packing").
const (
	mirrorRows = 256
	mirrorCols = 128
)

// mirrorTile is MirrorLower on one tile, unchecked.
func mirrorTile[T Float](c Matrix[T], i0, i1, j0, j1 int) {
	ld := c.Stride
	for j := j0; j < j1; j++ {
		lo := max(i0, j+1)
		if lo >= i1 {
			continue
		}
		dst := c.Data[j*ld+lo : j*ld+i1]
		for k := range dst {
			dst[k] = c.Data[(lo+k)*ld+j]
		}
	}
}
