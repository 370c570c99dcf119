package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// availableMemory returns the bytes of memory the OS can give a new
// allocation without swapping and true, or 0 and false where it cannot
// tell; a variable so that tests can pretend a small machine.
var availableMemory = systemAvailableMemory

// systemAvailableMemory is availableMemory from MemAvailable in Linux's
// /proc/meminfo.
func systemAvailableMemory() (uint64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	return parseMemAvailable(b)
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

// gib formats a byte count in GiB for messages.
func gib(n uint64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
