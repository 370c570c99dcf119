package linalg

import "unsafe"

// ptrLess reports whether p is at a lower address than q.
func ptrLess[T any](p, q *T) bool {
	return uintptr(unsafe.Pointer(p)) < uintptr(unsafe.Pointer(q))
}
