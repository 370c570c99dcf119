package linalg

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageSize is the size of a transparent huge page on the Linux
// architectures this module builds for (x86-64 and arm64 with 4 KiB base
// pages).
const hugePageSize = 2 << 20

// adviseHugePages asks the kernel to back the whole 2 MiB pages inside
// the n bytes at p with transparent huge pages (madvise MADV_HUGEPAGE), if
// n is at least hugePageMin. It is a hint: with THP set to "never", or
// where the memory is already faulted in with small pages and khugepaged
// has not collapsed it yet, nothing changes; an error is ignored for the
// same reason.
func adviseHugePages(p unsafe.Pointer, n uintptr) {
	if n < hugePageMin {
		return
	}
	lo, hi := hugeRange(uintptr(p), n)
	if hi <= lo {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, lo-uintptr(p))), hi-lo), unix.MADV_HUGEPAGE)
}

// hugeRange returns the whole huge pages [lo, hi) inside the n bytes at
// address p; hi ≤ lo when there are none.
func hugeRange(p, n uintptr) (lo, hi uintptr) {
	return (p + hugePageSize - 1) &^ (hugePageSize - 1), (p + n) &^ (hugePageSize - 1)
}
