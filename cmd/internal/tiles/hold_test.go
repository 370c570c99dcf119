//go:build unix

package tiles

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/ntk"
)

// TestHold: with HoldEnv set, a task stops half-way through writing its
// block, with a partial temporary file and no block or record in the
// directory (the block is reported missing), names its PID in the marker,
// and on SIGUSR1 finishes the block, bit for bit the block of a task
// without the hook.
func TestHold(t *testing.T) {
	x := randInputs(3, 700, 12) // block 1 spans many of the npy writer's 64 KiB writes
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1.3, BiasStd: 0.1}
	ref := t.TempDir()
	m := computeAll[float64](t, ref, spec, x, nil, 2)

	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "held")
	t.Setenv(HoldEnv, marker)
	if err := Prepare(dir, m); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Compute(context.Background(), dir, m, 1, x, nil, ntk.Options{})
		done <- err
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if b, err := os.ReadFile(marker); err == nil && strings.HasSuffix(string(b), "\n") {
			if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid != os.Getpid() {
				t.Fatalf("the marker names PID %q, want %d", b, os.Getpid())
			}
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Compute returned without holding: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no marker after 2 minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err := Verify(dir, m, 1)
	var be *BlockError
	if !errors.As(err, &be) || be.Index != 1 || !strings.Contains(err.Error(), "is missing") {
		t.Fatalf("held block: Verify = %v, want tile 1 missing", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	full := int64(m.Blocks[1].Rows[1]-m.Blocks[1].Rows[0]) * int64(m.Blocks[1].Cols) * 8
	partial := 0
	for _, e := range entries {
		switch {
		case e.Name() == ManifestName:
		case atomicfile.IsTemp(e.Name()) && strings.HasPrefix(e.Name(), "."+m.Blocks[1].File):
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() < full/2 || fi.Size() > full/2+1<<16+4096 { // one write of at most 64 KiB past the half, and the header
				t.Errorf("the temporary file holds %d bytes, want about half of %d", fi.Size(), full)
			}
			partial++
		default:
			t.Errorf("%s in the directory while the block is half written", e.Name())
		}
	}
	if partial != 1 {
		t.Fatalf("%d partial temporary files, want 1", partial)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(dir, m, 1); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, m.Blocks[1].File))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(ref, m.Blocks[1].File))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the released block differs from the block computed without the hook")
	}
}
