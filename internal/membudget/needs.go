package membudget

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrNoMemory is wrapped by CheckNeeds's error.
var ErrNoMemory = errors.New("not enough memory")

// Need is one allocation: what it is, for the message, and its bytes.
type Need struct {
	What  string
	Bytes uint64
}

// Matrix returns the bytes of a rows×cols matrix of elem-byte elements,
// math.MaxUint64 if that overflows (or a dimension is negative).
func Matrix(rows, cols, elem int) uint64 {
	if rows < 0 || cols < 0 || elem < 0 {
		return math.MaxUint64
	}
	return Mul(Mul(uint64(rows), uint64(cols)), uint64(elem))
}

// Mul returns a·b, or math.MaxUint64 if that overflows.
func Mul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// Add returns a+b, or math.MaxUint64 if that overflows.
func Add(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

// CheckNeeds refuses, before anything is allocated, work made of several
// allocations (a Gram, a solver's workspace, an array a file declares):
// it returns nil if the needs fit in avail bytes, or if known is false
// (the available memory cannot be told); otherwise an error wrapping
// ErrNoMemory that lists every need with its size, the total and avail.
// Sizes saturate (Matrix, Mul, Add), so an absurd declared shape is
// refused rather than wrapped to a small number.
func CheckNeeds(avail uint64, known bool, needs ...Need) error {
	var total uint64
	for _, n := range needs {
		total = Add(total, n.Bytes)
	}
	if !known || total <= avail {
		return nil
	}
	parts := make([]string, 0, len(needs))
	for _, n := range needs {
		if n.Bytes > 0 {
			parts = append(parts, n.What+" "+formatBytes(n.Bytes))
		}
	}
	return fmt.Errorf("%w: %s (%s in all), only %s is available (free memory, cgroup limit, RLIMIT_AS and GOMEMLIMIT, the smallest)",
		ErrNoMemory, strings.Join(parts, " + "), formatBytes(total), formatBytes(avail))
}

// formatBytes is Format for an unsigned count, or "more than can be
// addressed" for a saturated one.
func formatBytes(b uint64) string {
	if b > math.MaxInt64 {
		return "more than can be addressed"
	}
	return Format(int64(b))
}
