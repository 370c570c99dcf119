package linalg

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestHugeRange(t *testing.T) {
	const h = hugePageSize
	for _, c := range []struct {
		p, n, lo, hi uintptr
	}{
		{h, 2 * h, h, 3 * h},         // aligned: every page
		{h + 8, 2 * h, 2 * h, 3 * h}, // the first page is partial
		{h + 8, h, 2 * h, 2 * h},     // two partial pages: none whole
		{3*h - 8, 8 + h + 16, 3 * h, 4 * h},
	} {
		lo, hi := hugeRange(c.p, c.n)
		if lo != c.lo || hi != c.hi {
			t.Errorf("hugeRange(%#x, %#x) = [%#x, %#x), want [%#x, %#x)", c.p, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestNewAdvisesHugePages checks in /proc/self/smaps that the whole huge
// pages of a large matrix carry the kernel's "hg" flag (MADV_HUGEPAGE).
// (A small matrix shares its mapping with other objects, which may be
// advised for a large object beside it, so nothing is claimed about it.)
func TestNewAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("kernel without transparent huge pages")
	}
	// The matrix's flags are read before the control below allocates
	// anything, so that the control's advice cannot show up on memory the
	// matrix reuses.
	big := New[float64](1024, 1024) // 8 MiB
	lo, hi := hugeRange(uintptr(unsafe.Pointer(&big.Data[0])), uintptr(len(big.Data))*8)
	if hi <= lo {
		t.Fatal("an 8 MiB matrix holds no whole huge page")
	}
	flags, err := vmFlags(lo)
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(big)
	if !madviseHonoured(t) {
		t.Skip("madvise(MADV_HUGEPAGE) leaves no hg flag here (qemu user mode ignores it)")
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("mapping of an 8 MiB matrix has VmFlags %q, want hg", flags)
	}
}

// madviseHonoured advises huge pages for a fresh 8 MiB slice directly and
// reports whether the kernel then shows the hg flag on it.
func madviseHonoured(t *testing.T) bool {
	d := make([]byte, 8<<20)
	base := uintptr(unsafe.Pointer(&d[0]))
	lo, hi := hugeRange(base, uintptr(len(d)))
	if err := unix.Madvise(d[lo-base:hi-base], unix.MADV_HUGEPAGE); err != nil {
		t.Logf("madvise: %v", err)
		return false
	}
	flags, err := vmFlags(lo)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(" "+flags+" ", " hg ")
}

// vmFlags returns the VmFlags line of the mapping of /proc/self/smaps that
// holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var start, end uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &start, &end); n == 2 && !strings.Contains(line[:strings.IndexByte(line, ' ')], ":") {
			in = start <= addr && addr < end
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping of /proc/self/smaps holds %#x", addr)
}
