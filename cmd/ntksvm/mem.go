package main

import (
	"fmt"
	"math"
	"runtime/debug"

	"github.com/ntksvm/ntksvm/internal/membudget"
)

// availableMemory returns the bytes of memory the OS can give a new
// allocation and true, or 0 and false where it cannot tell
// (membudget.Available); a variable so that tests can pretend a small
// machine.
var availableMemory = membudget.Available

// releaseMemory collects the garbage and returns the freed pages to the
// OS. Go's scavenger otherwise keeps freed memory resident up to about the
// heap goal, which the first allocation of a training Gram doubles: the
// loaders' garbage, or training inputs no longer needed, would stay in the
// process's resident set through the fit.
func releaseMemory() { debug.FreeOSMemory() }

// limitToAddressSpace sets the Go memory limit to nine tenths of the
// address space left under RLIMIT_AS (ulimit -v), when that is below the
// limit in force: the collector then works before the OS refuses the heap
// more address space, which the Go runtime cannot survive ("fatal error:
// out of memory"), and the commands' memory checks, which read the limit,
// refuse work that does not fit.
func limitToAddressSpace() {
	room, limited := membudget.AddressSpaceRoom()
	if !limited {
		return
	}
	if l := int64(min(room/10*9, math.MaxInt64)); l < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(l)
	}
}

// gib formats a byte count in GiB for messages.
func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
