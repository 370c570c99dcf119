package testhold

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHold: a context of the phase Env names holds at its first Err,
// with the process ID in the marker, until the context is cancelled;
// then Err returns the cancellation, and the process does not hold again.
// Other phases' contexts are the context itself.
func TestHold(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "held")
	t.Setenv(Env, "predict="+marker)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if other := Context(ctx, "train"); other != ctx {
		t.Errorf("another phase's context is wrapped")
	}
	held := Context(ctx, "predict")
	errc := make(chan error, 2)
	go func() { errc <- held.Err() }()
	go func() { errc <- held.Err() }() // a second check waits as well
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(marker)
		if err == nil {
			if got := strings.TrimSpace(string(b)); got != strconv.Itoa(os.Getpid()) {
				t.Fatalf("marker %q, want the process ID %d", got, os.Getpid())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no marker in 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-errc:
		t.Fatalf("Err returned %v while held", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	for range 2 {
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Err after the cancellation: %v", err)
		}
	}
	again := Context(context.Background(), "predict")
	if err := again.Err(); err != nil {
		t.Errorf("a second hold: %v", err)
	}
}
