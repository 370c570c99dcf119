//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package main

import "os"

// isTerminal reports whether f is a character device, the nearest
// portable test for a terminal (a console on Windows; also the null
// device, where a redrawn bar is as harmless as a log line).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
