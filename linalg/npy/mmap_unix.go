//go:build unix

package npy

import (
	"os"

	"golang.org/x/sys/unix"
)

// mmapSupported says whether OpenMmap can map files here.
const mmapSupported = true

// mmapFile maps the first size bytes of f privately (copy-on-write: writes
// change this process's view, never the file) and returns the mapping and
// the function that releases it.
func mmapFile(f *os.File, size int) ([]byte, func() error, error) {
	b, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return unix.Munmap(b) }, nil
}
