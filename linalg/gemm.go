package linalg

import "fmt"

// Op says whether an operand of Gemm is used as stored or transposed.
type Op bool

const (
	NoTrans Op = false // use the matrix as stored
	Trans   Op = true  // use its transpose
)

// Gemm computes C = alpha·op(A)·op(B) + beta·C. When beta is 0, C is
// overwritten and its previous contents (even NaN) are ignored, as in BLAS.
// It returns an error wrapping ErrShape if the shapes do not match, and an
// error if C shares storage with A or B.
func Gemm[T Float](opA, opB Op, alpha T, a, b Matrix[T], beta T, c Matrix[T]) error {
	m, k := a.Rows, a.Cols
	if opA {
		m, k = k, m
	}
	kb, n := b.Rows, b.Cols
	if opB {
		kb, n = n, kb
	}
	if k != kb || c.Rows != m || c.Cols != n {
		return fmt.Errorf("%w: Gemm: op(A) is %d×%d, op(B) is %d×%d, C is %d×%d",
			ErrShape, m, k, kb, n, c.Rows, c.Cols)
	}
	if overlaps(c.Data, a.Data) || overlaps(c.Data, b.Data) {
		return fmt.Errorf("linalg: Gemm: C shares storage with A or B")
	}
	gemmRef(bool(opA), bool(opB), alpha, a, b, beta, c)
	return nil
}
