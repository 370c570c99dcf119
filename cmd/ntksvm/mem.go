package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
)

// availableMemory returns the bytes of memory the OS can give a new
// allocation without swapping and true, or 0 and false where it cannot
// tell; a variable so that tests can pretend a small machine.
var availableMemory = systemAvailableMemory

// systemAvailableMemory is availableMemory: the smallest of MemAvailable
// in Linux's /proc/meminfo, the room left under a cgroup v2 memory limit
// (memory.max − memory.current), under RLIMIT_AS (ulimit -v) and the Go
// memory limit (GOMEMLIMIT).
func systemAvailableMemory() (uint64, bool) {
	avail, ok := uint64(0), false
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		avail, ok = parseMemAvailable(b)
	}
	lim, err1 := os.ReadFile("/sys/fs/cgroup/memory.max")
	cur, err2 := os.ReadFile("/sys/fs/cgroup/memory.current")
	if err1 == nil && err2 == nil {
		if room, limited := cgroupRoom(lim, cur); limited && (!ok || room < avail) {
			avail, ok = room, true
		}
	}
	if room, limited := addressSpaceRoom(); limited && (!ok || room < avail) {
		avail, ok = room, true
	}
	if l := debug.SetMemoryLimit(-1); l < math.MaxInt64 && (!ok || uint64(l) < avail) {
		avail, ok = uint64(l), true
	}
	return avail, ok
}

// cgroupRoom returns the bytes left under a cgroup v2 limit given the
// contents of memory.max ("max": no limit) and memory.current.
func cgroupRoom(maxText, currentText []byte) (uint64, bool) {
	lim, err := strconv.ParseUint(string(bytes.TrimSpace(maxText)), 10, 64)
	if err != nil {
		return 0, false
	}
	cur, err := strconv.ParseUint(string(bytes.TrimSpace(currentText)), 10, 64)
	if err != nil || cur >= lim {
		return 0, err == nil
	}
	return lim - cur, true
}

// parseMemAvailable reads the "MemAvailable: N kB" line of a
// /proc/meminfo text.
func parseMemAvailable(meminfo []byte) (uint64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) != 3 || string(f[0]) != "MemAvailable:" || string(f[2]) != "kB" {
			continue
		}
		kb, err := strconv.ParseUint(string(f[1]), 10, 64)
		if err != nil || kb > 1<<44 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// releaseMemory collects the garbage and returns the freed pages to the
// OS. Go's scavenger otherwise keeps freed memory resident up to about the
// heap goal, which the first allocation of a training Gram doubles: the
// loaders' garbage, or training inputs no longer needed, would stay in the
// process's resident set through the fit.
func releaseMemory() { debug.FreeOSMemory() }

// gib formats a byte count in GiB for messages.
func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
