package tiles

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// HoldEnv names a test hook: when the variable is set to a file path, a
// task that computes a block stops once it has written half of the
// block's .npy bytes to the temporary file, writes its process ID to that
// path and waits for SIGUSR1 (an interrupt on systems without it) before
// it goes on. A test kills it there, in the middle of writing its block,
// to check that a task killed at that point leaves no block that counts
// as done (see "make test-slurm").
const HoldEnv = "NTKSVM_TEST_HOLD_TILE"

// holdWriter passes writes to w and, once at least at bytes have passed,
// calls hold once.
type holdWriter struct {
	w    io.Writer
	at   int64
	n    int64
	hold func() error
}

func (h *holdWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	before := h.n
	h.n += int64(n)
	if err == nil && h.hold != nil && before < h.at && h.n >= h.at {
		hold := h.hold
		h.hold = nil
		err = hold()
	}
	return n, err
}

// holdHere writes the process ID to marker and waits for holdSignal, or
// for ctx to be done (then the write fails with ctx's error).
func holdHere(ctx context.Context, marker string) func() error {
	return func() error {
		c := make(chan os.Signal, 1)
		signal.Notify(c, holdSignal)
		defer signal.Stop(c)
		err := atomicfile.WriteFile(marker, func(w io.Writer) error {
			_, err := io.WriteString(w, strconv.Itoa(os.Getpid())+"\n")
			return err
		})
		if err != nil {
			return fmt.Errorf("$%s: %w", HoldEnv, err)
		}
		select {
		case <-c:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
