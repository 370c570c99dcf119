package linalg

import (
	"fmt"
	"math"
)

// Gram computes the Gram matrix of the rows of A: C = A·Aᵀ, C[i, j] being
// the inner product of rows i and j. A is n×k and C n×n. Only the
// micro-tiles on and below the diagonal are computed (about half the flops
// of Gemm) and the upper triangle is then mirrored from the lower one, so C
// is exactly symmetric. It returns an error wrapping ErrShape if C is not
// n×n and an error if C shares storage with A.
func Gram[T Float](a, c Matrix[T]) error {
	return gramWith(gemmConfig{}, a, c)
}

func gramWith[T Float](cfg gemmConfig, a, c Matrix[T]) error {
	if err := syrkLowerWith(cfg, "Gram", 1, a, 0, c); err != nil {
		return err
	}
	mirrorLower(c, cfg.threads)
	return nil
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
		a: a, b: a, c: c, m: a.Rows, n: a.Rows, k: a.Cols, lower: true,
	}
	p.run(cfg)
	return nil
}

// mirrorTile is the side of the square tiles mirrorLower transposes
// through a local buffer: whole rows of a tile are read and written, so
// that no column walk strides through memory (row strides that are
// multiples of 4 KiB would alias in L1).
const mirrorTile = 16

// mirrorLower copies the strict lower triangle of the square matrix c onto
// its upper triangle, tile by tile, on up to threads goroutines (≤ 0:
// Threads()).
func mirrorLower[T Float](c Matrix[T], threads int) {
	n := c.Rows
	if threads <= 0 {
		threads = Threads()
	}
	nb := (n + mirrorTile - 1) / mirrorTile
	t := max(1, min(threads, n*n/(1<<18), nb))
	// Tile row bi of the upper triangle has nb-bi tiles; cut the tile
	// rows into bands of about equal tile counts.
	cuts := make([]int, t+1)
	for w := 1; w < t; w++ {
		cuts[w] = nb - int(float64(nb)*math.Sqrt(float64(t-w)/float64(t)))
	}
	cuts[t] = nb
	ld := c.Stride
	parallel(t, func(w int) {
		var buf [mirrorTile * mirrorTile]T
		for bi := cuts[w]; bi < cuts[w+1]; bi++ {
			i0 := bi * mirrorTile
			i1 := min(i0+mirrorTile, n)
			for j0 := i0; j0 < n; j0 += mirrorTile {
				j1 := min(j0+mirrorTile, n)
				// buf[(j-j0)*mirrorTile + (i-i0)] = C[j, i], read by rows of C.
				for j := j0; j < j1; j++ {
					copy(buf[(j-j0)*mirrorTile:(j-j0)*mirrorTile+i1-i0], c.Data[j*ld+i0:j*ld+i1])
				}
				for i := i0; i < i1; i++ {
					row := c.Data[i*ld : i*ld+j1]
					for j := max(j0, i+1); j < j1; j++ {
						row[j] = buf[(j-j0)*mirrorTile+i-i0]
					}
				}
			}
		}
	})
}
