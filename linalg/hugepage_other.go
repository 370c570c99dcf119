//go:build !linux

package linalg

import "unsafe"

// adviseHugePages does nothing outside Linux.
func adviseHugePages(unsafe.Pointer, uintptr) {}
