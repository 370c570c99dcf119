//go:build !unix

package tiles

import "os"

// holdSignal releases a task held by HoldEnv (systems without SIGUSR1:
// an interrupt).
var holdSignal os.Signal = os.Interrupt
