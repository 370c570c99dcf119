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

// mirrorCols×mirrorRows is the shape of the tiles mirrorRect transposes
// through a local buffer: mirrorCols columns (one cache line of float32) of
// mirrorRows rows become mirrorCols row segments of mirrorRows elements.
const (
	mirrorCols = 16
	mirrorRows = 256
)

// mirrorRect copies the elements of the strict lower triangle of the square
// matrix c that lie in rows [i0, i1) and columns [j0, j1) onto their mirror
// images: C[j, i] = C[i, j] for i0 ≤ i < i1, j0 ≤ j < min(j1, i). The
// writes are long row segments. Gram's small and degenerate products
// (k = 0, the direct loop) use it; the blocked path mirrors each micro-tile
// instead (gemmProblem.macro), where mirroring each mc×nc block after it
// was computed read the block back from L3 with a cache miss per row.
func mirrorRect[T Float](c Matrix[T], i0, i1, j0, j1 int) {
	var buf [mirrorCols * mirrorRows]T
	ld := c.Stride
	for c0 := j0; c0 < min(j1, i1-1); c0 += mirrorCols {
		c1 := min(c0+mirrorCols, j1)
		for r0 := max(i0, c0+1); r0 < i1; r0 += mirrorRows {
			r1 := min(r0+mirrorRows, i1)
			// buf[(j-c0)*mirrorRows + (i-r0)] = C[i, j] for j < i only:
			// the rest of the row may be upper triangle that another
			// goroutine is writing.
			for i := r0; i < r1; i++ {
				if e := min(c1, i); e > c0 {
					for j, v := range c.Data[i*ld+c0 : i*ld+e] {
						buf[j*mirrorRows+i-r0] = v
					}
				}
			}
			for j := c0; j < c1; j++ {
				lo := max(r0, j+1) // C[j, i] for i > j
				if lo >= r1 {
					continue
				}
				copy(c.Data[j*ld+lo:j*ld+r1], buf[(j-c0)*mirrorRows+lo-r0:(j-c0)*mirrorRows+r1-r0])
			}
		}
	}
}
