package linalg

import "unsafe"

// hugePageMin is the least allocation, in bytes, that makeData advises
// the kernel to back with transparent huge pages (NumPy's threshold).
// The products whose operands stream from memory read one cache line or
// a few per row of B, a row every 80,000 bytes in the paper's 10000-wide
// layers: with 4 KiB pages every row is a TLB miss. With 2 MiB pages the
// 1-thread float64 product 128×10000×10000 measured 69.9 → 72.6 GFLOP/s
// (medians of 5 interleaved rounds of 5 runs, Sapphire Rapids Xeon);
// OpenBLAS, which packs B in a pass of its own, did not change (65.0
// against 64.4 with glibc's hugetlb tunable).
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
