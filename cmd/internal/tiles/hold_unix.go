//go:build unix

package tiles

import (
	"os"
	"syscall"
)

// holdSignal releases a task held by HoldEnv.
var holdSignal os.Signal = syscall.SIGUSR1
