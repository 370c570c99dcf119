//go:build !unix

package linalg

import "os"

// mmapSupported says whether OpenNpyMmap can map files here.
const mmapSupported = false

// mmapFile reports that memory mapping is unsupported here; OpenNpyMmap
// then reads the file into memory.
func mmapFile(f *os.File, size int) ([]byte, func() error, error) {
	return nil, nil, errMmapUnsupported
}
