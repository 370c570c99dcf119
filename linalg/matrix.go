package linalg

import (
	"errors"
	"fmt"
)

// Float is the element type of every matrix and vector: float32 or float64.
type Float interface{ float32 | float64 }

// Matrix is a dense row-major matrix: element (i, j) is Data[i*Stride+j].
// A Matrix is a small value that refers to its Data; copying it makes a
// second view of the same elements, as slicing a Go slice does.
type Matrix[T Float] struct {
	Rows, Cols int
	Stride     int // distance between the starts of consecutive rows, ≥ Cols
	Data       []T
}

// ErrShape is wrapped by every error about mismatched dimensions.
var ErrShape = errors.New("linalg: shape mismatch")

// New returns a zeroed rows×cols matrix with Stride = cols.
// It panics if rows or cols is negative. On Linux, a matrix of 4 MiB or
// more is advised to use transparent huge pages (as NumPy does for its
// arrays): the M-skinny products, whose B rows are far apart, run a few
// percent faster. The system's THP setting decides ("never" turns it off).
func New[T Float](rows, cols int) Matrix[T] {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("linalg: New(%d, %d): negative dimension", rows, cols))
	}
	return Matrix[T]{Rows: rows, Cols: cols, Stride: cols, Data: makeData[T](rows * cols)}
}

// FromSlice wraps data as a rows×cols matrix with Stride = cols, without
// copying. It returns an error if len(data) != rows*cols or a dimension is
// negative.
func FromSlice[T Float](rows, cols int, data []T) (Matrix[T], error) {
	if rows < 0 || cols < 0 {
		return Matrix[T]{}, fmt.Errorf("%w: negative dimension %d×%d", ErrShape, rows, cols)
	}
	if len(data) != rows*cols {
		return Matrix[T]{}, fmt.Errorf("%w: %d×%d matrix needs %d elements, got %d",
			ErrShape, rows, cols, rows*cols, len(data))
	}
	return Matrix[T]{Rows: rows, Cols: cols, Stride: cols, Data: data}, nil
}

// FromStrided wraps data as a rows×cols matrix with the given stride,
// without copying. The last row may be short of the stride.
func FromStrided[T Float](rows, cols, stride int, data []T) (Matrix[T], error) {
	if rows < 0 || cols < 0 || stride < cols || stride < 1 && rows > 1 && cols > 0 {
		return Matrix[T]{}, fmt.Errorf("%w: bad dimensions %d×%d stride %d", ErrShape, rows, cols, stride)
	}
	if need := minLen(rows, cols, stride); len(data) < need {
		return Matrix[T]{}, fmt.Errorf("%w: %d×%d matrix with stride %d needs %d elements, got %d",
			ErrShape, rows, cols, stride, need, len(data))
	}
	return Matrix[T]{Rows: rows, Cols: cols, Stride: stride, Data: data[:minLen(rows, cols, stride)]}, nil
}

func minLen(rows, cols, stride int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*stride + cols
}

// At returns element (i, j). It panics if (i, j) is out of range.
func (m Matrix[T]) At(i, j int) T {
	m.check(i, j)
	return m.Data[i*m.Stride+j]
}

// Set sets element (i, j) to v. It panics if (i, j) is out of range.
func (m Matrix[T]) Set(i, j int, v T) {
	m.check(i, j)
	m.Data[i*m.Stride+j] = v
}

func (m Matrix[T]) check(i, j int) {
	if uint(i) >= uint(m.Rows) || uint(j) >= uint(m.Cols) {
		panic(fmt.Sprintf("linalg: index (%d, %d) out of range for %d×%d matrix", i, j, m.Rows, m.Cols))
	}
}

// Row returns row i as a slice of length Cols that shares m's storage.
func (m Matrix[T]) Row(i int) []T {
	if uint(i) >= uint(m.Rows) {
		panic(fmt.Sprintf("linalg: row %d out of range for %d×%d matrix", i, m.Rows, m.Cols))
	}
	if m.Cols == 0 {
		return nil
	}
	return m.Data[i*m.Stride : i*m.Stride+m.Cols : i*m.Stride+m.Cols]
}

// Slice returns the view of rows [i0, i1) and columns [j0, j1) of m, sharing
// its storage. It panics if the ranges are out of bounds, like slicing.
func (m Matrix[T]) Slice(i0, i1, j0, j1 int) Matrix[T] {
	if i0 < 0 || i1 < i0 || i1 > m.Rows || j0 < 0 || j1 < j0 || j1 > m.Cols {
		panic(fmt.Sprintf("linalg: Slice(%d, %d, %d, %d) out of range for %d×%d matrix",
			i0, i1, j0, j1, m.Rows, m.Cols))
	}
	r, c := i1-i0, j1-j0
	if r == 0 || c == 0 {
		return Matrix[T]{Rows: r, Cols: c, Stride: max(m.Stride, c)}
	}
	off := i0*m.Stride + j0
	return Matrix[T]{Rows: r, Cols: c, Stride: m.Stride, Data: m.Data[off : off+minLen(r, c, m.Stride)]}
}

// Clone returns a compact copy of m (Stride = Cols).
func (m Matrix[T]) Clone() Matrix[T] {
	c := New[T](m.Rows, m.Cols)
	for i := range m.Rows {
		copy(c.Row(i), m.Row(i))
	}
	return c
}

// T returns a compact copy of the transpose of m.
func (m Matrix[T]) T() Matrix[T] {
	t := New[T](m.Cols, m.Rows)
	for i := range m.Rows {
		for j, v := range m.Row(i) {
			t.Data[j*t.Stride+i] = v
		}
	}
	return t
}

// overlaps reports whether the storage of a and b may share elements.
func overlaps[T Float](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, a1 := &a[0], &a[len(a)-1]
	b0, b1 := &b[0], &b[len(b)-1]
	return !(ptrLess(a1, b0) || ptrLess(b1, a0))
}

// Convert returns x with elements of type T: x itself when S is T, and
// otherwise a new matrix of x's shape with every element converted (to the
// nearest float32 for float64 → float32).
func Convert[T, S Float](x Matrix[S]) Matrix[T] {
	if m, ok := any(x).(Matrix[T]); ok {
		return m
	}
	m := New[T](x.Rows, x.Cols)
	for i := range x.Rows {
		r := m.Row(i)
		for j, v := range x.Row(i) {
			r[j] = T(v)
		}
	}
	return m
}
