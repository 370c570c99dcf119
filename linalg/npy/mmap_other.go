//go:build !unix

package npy

import (
	"os"
)

// mmapSupported says whether OpenMmap can map files here.
const mmapSupported = false

// mmapFile reports that memory mapping is unsupported here; OpenMmap
// then reads the file into memory.
func mmapFile(f *os.File, size int) ([]byte, func() error, error) {
	return nil, nil, errMmapUnsupported
}
