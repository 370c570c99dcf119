//go:build !unix

package testhold

import "os"

// Release is the signal that releases a held process (systems without
// SIGUSR1: an interrupt, which also cancels the command).
var Release os.Signal = os.Interrupt
