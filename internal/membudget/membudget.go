// Package membudget says how much memory a run may use and refuses, before
// allocating, work that would not fit: the solvers that scale past one
// Gram (svm/ondemand, svm/falkon) report what they need in bytes, and the
// commands compare that with a budget, from --mem or by default a share
// of the memory the system can give.
//
// Available is the smallest of what the system reports: Linux's
// MemAvailable, the room under a cgroup v2 memory limit, the address space
// left under RLIMIT_AS (ulimit -v) and the Go memory limit (GOMEMLIMIT).
package membudget

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Available returns the bytes of memory the OS can give a new allocation
// without swapping and true, or 0 and false where it cannot tell: the
// smallest of MemAvailable in /proc/meminfo, the room left under a cgroup
// v2 memory limit (memory.max − memory.current), under RLIMIT_AS and under
// the Go memory limit.
func Available() (uint64, bool) {
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
	if room, limited := AddressSpaceRoom(); limited && (!ok || room < avail) {
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

// DefaultShare is the share of Available that Default grants.
const DefaultShare = 0.8

// Default returns the default budget: DefaultShare of Available, and
// false when the system does not say how much is available.
func Default() (int64, bool) {
	a, ok := Available()
	if !ok {
		return 0, false
	}
	return int64(float64(a) * DefaultShare), true
}

// ParseSize parses a size in bytes such as 4GiB, 512MiB, 2G, 100k or
// 1000000: SI units (k, M, G, T) are powers of 1000, binary ones (KiB, MiB,
// GiB, TiB, or Ki, Mi, …) powers of 1024, a trailing B is optional and
// case does not matter. 0 is a size; what it means (no cap, say) is the
// caller's to decide. Negative sizes and sizes past 2⁶² are errors.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 4GiB, 512MiB, 1000000)", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
		"ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30, "ti": 1 << 40,
	}[strings.ToLower(unit)]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q (use B, k, M, G, T, KiB, MiB, GiB, TiB)", s, unit)
	}
	if v*mult > 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v * mult), nil
}

// NeedError is a run refused because it would not fit its budget.
type NeedError struct {
	What   string // what was to run
	Need   int64  // the bytes it needs
	Budget int64  // the bytes it may use
	Hint   string // what to change, if anything helps
}

// Error says what needs how much, against which budget.
func (e *NeedError) Error() string {
	msg := fmt.Sprintf("%s needs %s of memory; the budget is %s", e.What, Format(e.Need), Format(e.Budget))
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// Check returns a *NeedError if need exceeds budget, and nil otherwise.
func Check(what string, need, budget int64, hint string) error {
	if need > budget {
		return &NeedError{What: what, Need: need, Budget: budget, Hint: hint}
	}
	return nil
}

// Format writes a byte count for people: "1.5 GiB", "300.0 MiB", "12 KiB".
func Format(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
