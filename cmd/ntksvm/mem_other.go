//go:build !linux

package main

// addressSpaceRoom reports no address-space limit outside Linux.
func addressSpaceRoom() (uint64, bool) { return 0, false }
