package membudget

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// AddressSpaceRoom returns the bytes of address space left under
// RLIMIT_AS (ulimit -v): the limit less the process's virtual size from
// /proc/self/statm; false when there is no limit.
func AddressSpaceRoom() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) {
		return 0, false
	}
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) == 0 {
		return 0, false
	}
	pages, err := strconv.ParseUint(string(f[0]), 10, 64)
	if err != nil {
		return 0, false
	}
	used := pages * uint64(os.Getpagesize())
	if used >= r.Cur {
		return 0, true
	}
	return r.Cur - used, true
}
