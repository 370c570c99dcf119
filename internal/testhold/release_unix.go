//go:build unix

package testhold

import (
	"os"
	"syscall"
)

// Release is the signal that releases a held process and lets its work
// go on.
var Release os.Signal = syscall.SIGUSR1
