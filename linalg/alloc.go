package linalg

import (
	"fmt"
	"unsafe"
)

// hugePageMin is the least allocation, in bytes, that makeData advises
// the kernel to back with transparent huge pages (NumPy's threshold).
// The products whose operands stream from memory read one cache line or
// a few per row of B, a row every 80,000 bytes in the paper's 10000-wide
// layers: with 4 KiB pages every row is a TLB miss, with 2 MiB pages a
// few percent of the product is saved (docs/performance.md, "Huge
// pages").
const hugePageMin = 4 << 20

// makeData returns a zeroed slice of n elements for a matrix or vector,
// advising huge pages where the system supports them (Linux with
// transparent huge pages in "madvise" or "always" mode) for allocations of
// hugePageMin bytes or more.
func makeData[T Float](n int) []T {
	d := make([]T, n)
	if n > 0 {
		var z T
		adviseHugePages(unsafe.Pointer(unsafe.SliceData(d)), uintptr(n)*unsafe.Sizeof(z))
	}
	return d
}

// NewWidenable returns an r×c float64 matrix m and a compact r×c float32
// matrix f stored in the first half of m's storage. Fill f, then Widen
// turns m into f's elements as float64 in place: a float32 matrix (a Gram
// computed in float32 for a float64 factorisation, say) and its float64
// copy then take no more memory than the float64 matrix alone. Until Widen,
// m's elements are meaningless; after it, f's are.
func NewWidenable(r, c int) (m Matrix[float64], f Matrix[float32]) {
	m = New[float64](r, c)
	f = Matrix[float32]{Rows: r, Cols: c, Stride: c}
	if len(m.Data) > 0 {
		f.Data = unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(m.Data))), len(m.Data))
	}
	return m, f
}

// Widen sets every element of m to the float64 value of the element of f
// at the same place, for m and f from NewWidenable(r, c) (it returns an
// error for any other pair and changes nothing then). It runs from the
// last element to the first, so that each float64 is written over float32
// elements already read.
func Widen(m Matrix[float64], f Matrix[float32]) error {
	n := m.Rows * m.Cols
	switch {
	case f.Rows != m.Rows || f.Cols != m.Cols || m.Stride != m.Cols || f.Stride != f.Cols || len(m.Data) != n || len(f.Data) < n:
		return fmt.Errorf("%w: Widen: a %d×%d float64 matrix (stride %d) and a %d×%d float32 one (stride %d) are not a NewWidenable pair",
			ErrShape, m.Rows, m.Cols, m.Stride, f.Rows, f.Cols, f.Stride)
	case n > 0 && unsafe.Pointer(unsafe.SliceData(f.Data)) != unsafe.Pointer(unsafe.SliceData(m.Data)):
		return fmt.Errorf("linalg: Widen: the float32 matrix does not share the float64 one's storage (want a NewWidenable pair)")
	}
	d, s := m.Data[:n], f.Data[:n]
	for i := n - 1; i >= 0; i-- {
		d[i] = float64(s[i]) // reads bytes 4i…4i+3, writes 8i…8i+7: only elements already read
	}
	return nil
}

// FillWidened returns an r×c float64 matrix holding, as float64, the
// elements fill computes in float32, with the float32 matrix stored in the
// first half of the float64 one's storage (NewWidenable, then Widen): the
// two never take more memory than the float64 matrix alone. fill's matrix
// is valid only until fill returns; an error of fill is returned.
func FillWidened(r, c int, fill func(f Matrix[float32]) error) (Matrix[float64], error) {
	m, f := NewWidenable(r, c)
	if err := fill(f); err != nil {
		return Matrix[float64]{}, err
	}
	if err := Widen(m, f); err != nil {
		return Matrix[float64]{}, err
	}
	return m, nil
}
