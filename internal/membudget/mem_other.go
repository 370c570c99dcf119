//go:build !linux

package membudget

// addressSpaceRoom reports no address-space limit outside Linux.
func addressSpaceRoom() (uint64, bool) { return 0, false }
