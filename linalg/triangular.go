package linalg

import (
	"fmt"
	"math"
)

// trsmLeaf is the order at or below which triangular solves run the scalar
// substitution; larger ones split in two and hand the off-diagonal block to
// Gemm, so almost all the flops of a large solve run in Gemm.
const trsmLeaf = 16

// SolveLower solves op(L)·X = B for X and overwrites B (n×r) with X, for
// many right-hand sides at once. L is n×n lower triangular: only its lower
// triangle, diagonal included, is read. op is NoTrans for L·X = B (forward
// substitution) or Trans for Lᵀ·X = B (back substitution).
//
// It returns an error wrapping ErrShape if the shapes do not match, an
// error if a diagonal element of L is zero or not finite (L is singular or
// broken), and an error if B shares storage with L.
func SolveLower[T Float](op Op, l, b Matrix[T]) error {
	if err := checkTriangular("SolveLower", l, b); err != nil {
		return err
	}
	if op == NoTrans {
		trsmLower(l, false, b)
	} else {
		trsmUpper(l, true, b)
	}
	return nil
}

// SolveUpper solves op(U)·X = B for X and overwrites B (n×r) with X. U is
// n×n upper triangular: only its upper triangle, diagonal included, is
// read. op is NoTrans for U·X = B or Trans for Uᵀ·X = B. Errors as for
// SolveLower.
func SolveUpper[T Float](op Op, u, b Matrix[T]) error {
	if err := checkTriangular("SolveUpper", u, b); err != nil {
		return err
	}
	if op == NoTrans {
		trsmUpper(u, false, b)
	} else {
		trsmLower(u, true, b)
	}
	return nil
}

// checkTriangular checks the arguments of a triangular solve with the n×n
// matrix t and the right-hand sides b.
func checkTriangular[T Float](fn string, t, b Matrix[T]) error {
	if err := checkMatrix("the triangular matrix", t); err != nil {
		return fmt.Errorf("linalg: %s: %w", fn, err)
	}
	if err := checkMatrix("B", b); err != nil {
		return fmt.Errorf("linalg: %s: %w", fn, err)
	}
	if t.Rows != t.Cols || b.Rows != t.Rows {
		return fmt.Errorf("%w: %s: the triangular matrix is %d×%d and B is %d×%d",
			ErrShape, fn, t.Rows, t.Cols, b.Rows, b.Cols)
	}
	if overlaps(t.Data, b.Data) {
		return fmt.Errorf("linalg: %s: B shares storage with the triangular matrix", fn)
	}
	for i := range t.Rows {
		if d := float64(t.Data[i*t.Stride+i]); d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			return fmt.Errorf("linalg: %s: diagonal element %d is %g: the triangular matrix is singular", fn, i, d)
		}
	}
	return nil
}

// trsmLower overwrites b with M⁻¹·b for the lower triangular M = a (t
// false) or M = aᵀ (t true, a upper triangular): forward substitution,
// recursively halved so that the off-diagonal updates run in Gemm. The
// caller has checked shapes, storage and the diagonal.
func trsmLower[T Float](a Matrix[T], t bool, b Matrix[T]) {
	n, r := b.Rows, b.Cols
	if n == 0 || r == 0 {
		return
	}
	if n <= trsmLeaf {
		trsmLowerLeaf(a, t, b)
		return
	}
	h := trsmSplit(n)
	b1, b2 := b.Slice(0, h, 0, r), b.Slice(h, n, 0, r)
	trsmLower(a.Slice(0, h, 0, h), t, b1)
	// b2 -= M21·b1, M21 = a[h:n, 0:h] or a[0:h, h:n]ᵀ.
	var err error
	if t {
		err = Gemm(Trans, NoTrans, -1, a.Slice(0, h, h, n), b1, 1, b2)
	} else {
		err = Gemm(NoTrans, NoTrans, -1, a.Slice(h, n, 0, h), b1, 1, b2)
	}
	if err != nil {
		panic("linalg: trsmLower: " + err.Error()) // shapes and storage were checked
	}
	trsmLower(a.Slice(h, n, h, n), t, b2)
}

// trsmUpper overwrites b with M⁻¹·b for the upper triangular M = a (t
// false) or M = aᵀ (t true, a lower triangular): back substitution.
func trsmUpper[T Float](a Matrix[T], t bool, b Matrix[T]) {
	n, r := b.Rows, b.Cols
	if n == 0 || r == 0 {
		return
	}
	if n <= trsmLeaf {
		trsmUpperLeaf(a, t, b)
		return
	}
	h := trsmSplit(n)
	b1, b2 := b.Slice(0, h, 0, r), b.Slice(h, n, 0, r)
	trsmUpper(a.Slice(h, n, h, n), t, b2)
	// b1 -= M12·b2, M12 = a[0:h, h:n] or a[h:n, 0:h]ᵀ.
	var err error
	if t {
		err = Gemm(Trans, NoTrans, -1, a.Slice(h, n, 0, h), b2, 1, b1)
	} else {
		err = Gemm(NoTrans, NoTrans, -1, a.Slice(0, h, h, n), b2, 1, b1)
	}
	if err != nil {
		panic("linalg: trsmUpper: " + err.Error())
	}
	trsmUpper(a.Slice(0, h, 0, h), t, b1)
}

// trsmSplit returns where to halve an order-n solve: near n/2, on a
// multiple of 8 so the Gemm blocks stay aligned with the micro-tiles.
func trsmSplit(n int) int {
	h := (n/2 + 7) &^ 7
	if h >= n {
		h = n / 2
	}
	return h
}

// triElem returns M(i, j) for M = a (t false) or aᵀ (t true).
func triElem[T Float](a Matrix[T], t bool, i, j int) T {
	if t {
		return a.Data[j*a.Stride+i]
	}
	return a.Data[i*a.Stride+j]
}

func trsmLowerLeaf[T Float](a Matrix[T], t bool, b Matrix[T]) {
	for i := range b.Rows {
		bi := b.Row(i)
		for p := range i {
			triAxpy(-triElem(a, t, i, p), b.Row(p), bi)
		}
		triScal(1/triElem(a, t, i, i), bi)
	}
}

func trsmUpperLeaf[T Float](a Matrix[T], t bool, b Matrix[T]) {
	n := b.Rows
	for i := n - 1; i >= 0; i-- {
		bi := b.Row(i)
		for p := i + 1; p < n; p++ {
			triAxpy(-triElem(a, t, i, p), b.Row(p), bi)
		}
		triScal(1/triElem(a, t, i, i), bi)
	}
}

// triAxpy computes y += alpha·x (len(y) ≥ len(x)); a local helper so this file
// does not depend on the level-1 routines.
func triAxpy[T Float](alpha T, x, y []T) {
	y = y[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		y[i] += alpha * x[i]
		y[i+1] += alpha * x[i+1]
		y[i+2] += alpha * x[i+2]
		y[i+3] += alpha * x[i+3]
	}
	for ; i < len(x); i++ {
		y[i] += alpha * x[i]
	}
}

// triScal computes x *= alpha.
func triScal[T Float](alpha T, x []T) {
	for i := range x {
		x[i] *= alpha
	}
}

// triTransposePar is triTranspose on up to Threads() goroutines, each
// taking a band of source rows.
func triTransposePar[T Float](dst, src Matrix[T]) {
	t := max(1, min(Threads(), src.Rows*src.Cols/(1<<16)))
	cuts := evenCuts(src.Rows, 32, t)
	parallel(t, func(w int) {
		r0, r1 := cuts[w], cuts[w+1]
		if r0 < r1 {
			triTranspose(dst.Slice(0, dst.Rows, r0, r1), src.Slice(r0, r1, 0, src.Cols))
		}
	})
}

// triTranspose writes srcᵀ into dst (dst is src.Cols×src.Rows), in square
// blocks so that both sides stay in cache, four source rows at a time so
// that each write to dst fills four adjacent elements.
func triTranspose[T Float](dst, src Matrix[T]) {
	const bs = 32
	ss, ds := src.Stride, dst.Stride
	for i0 := 0; i0 < src.Rows; i0 += bs {
		i1 := min(i0+bs, src.Rows)
		for j0 := 0; j0 < src.Cols; j0 += bs {
			j1 := min(j0+bs, src.Cols)
			i := i0
			for ; i+4 <= i1; i += 4 {
				r0 := src.Data[i*ss+j0 : i*ss+j1]
				r1 := src.Data[(i+1)*ss+j0 : (i+1)*ss+j1]
				r2 := src.Data[(i+2)*ss+j0 : (i+2)*ss+j1]
				r3 := src.Data[(i+3)*ss+j0 : (i+3)*ss+j1]
				r1, r2, r3 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
				for j, v := range r0 {
					d := dst.Data[(j0+j)*ds+i : (j0+j)*ds+i+4]
					d[0], d[1], d[2], d[3] = v, r1[j], r2[j], r3[j]
				}
			}
			for ; i < i1; i++ {
				for j, v := range src.Data[i*ss+j0 : i*ss+j1] {
					dst.Data[(j0+j)*ds+i] = v
				}
			}
		}
	}
}
