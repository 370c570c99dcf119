//go:build !linux

package membudget

// AddressSpaceRoom reports no address-space limit outside Linux.
// AddressSpaceRoom reports no limit where RLIMIT_AS is not read.
func AddressSpaceRoom() (uint64, bool) { return 0, false }
