// Package testhold lets a test hold a process in a named phase of its
// work until the test signals it, so that tests of signals and of
// progress do not depend on how fast the host does the work.
//
// A phase wraps the context its work checks: Context(ctx, "predict").
// When the environment variable Env is "predict=MARKER", the first call
// of Err on that context (the work's own check of its cancellation,
// inside the phase) writes the process ID to the file MARKER and waits
// until ctx is done (a signal that cancels the command) or until Release
// arrives (SIGUSR1 where there is one); then Err returns ctx's error and
// the work goes on, so a signalled phase must notice its cancellation at
// its own check. Every call of Err meanwhile, from any goroutine, waits
// too; the process holds once. Without the variable, Context returns ctx
// itself.
package testhold

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
)

// Env names the hook's variable: "PHASE=MARKER".
const Env = "NTKSVM_TEST_HOLD"

// hold is the process's one hold.
var hold sync.Once

// Context returns ctx, or, when Env names phase, a context whose first
// Err holds the process (see the package doc).
func Context(ctx context.Context, phase string) context.Context {
	name, marker, ok := strings.Cut(os.Getenv(Env), "=")
	if !ok || name != phase || marker == "" {
		return ctx
	}
	return &holdContext{Context: ctx, marker: marker}
}

// holdContext holds at its first Err.
type holdContext struct {
	context.Context
	marker string
}

func (h *holdContext) Err() error {
	hold.Do(func() { wait(h.Context, h.marker) })
	return h.Context.Err()
}

// wait writes the process ID to marker and returns once ctx is done or
// Release arrives.
func wait(ctx context.Context, marker string) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, Release)
	defer signal.Stop(c)
	// Written whole under a temporary name and renamed: a test that reads
	// the marker sees the whole ID or nothing.
	tmp := marker + ".tmp"
	err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
	if err == nil {
		err = os.Rename(tmp, marker)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "$%s: %v\n", Env, err)
		return
	}
	select {
	case <-c:
	case <-ctx.Done():
	}
}
