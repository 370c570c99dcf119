package npy

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/ntksvm/ntksvm/linalg"
)

// readLimit is SetReadLimit's bound in bytes (0: none).
var readLimit atomic.Int64

// ErrTooLarge is wrapped by the error of a reader refusing an array that
// needs more memory than SetReadLimit allows.
var ErrTooLarge = errors.New("npy: array too large for the memory available")

// SetReadLimit bounds the bytes the readers of this package (Read,
// ReadVector, their From forms and the .npz readers) allocate for one
// array: an array whose header declares more is refused before anything
// is allocated, with an error wrapping ErrTooLarge that says how much it
// needs. n ≤ 0 removes the bound (the default). It returns the previous
// bound. A command sets it to the memory available, so that a file that
// declares gigabytes it cannot hold fails with a message, not with the
// runtime's out-of-memory crash.
func SetReadLimit(n int64) int64 {
	return readLimit.Swap(max(n, 0))
}

// checkReadSize refuses an array of h's shape read as T that exceeds the
// read limit.
func checkReadSize[T linalg.Float](h Header) error {
	lim := readLimit.Load()
	if lim <= 0 {
		return nil
	}
	var z T
	size := int64(unsafe.Sizeof(z))
	n := int64(h.Len())
	if n > lim/size {
		return fmt.Errorf("%w: shape %v read as %d-byte elements needs %.1f GiB, only %.1f GiB of memory is available",
			ErrTooLarge, h.Shape, size, float64(n)*float64(size)/(1<<30), float64(lim)/(1<<30))
	}
	return nil
}
