package main

import (
	"fmt"
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

// gib formats a byte count in GiB for messages.
func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
