package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/internal/testhold"
)

// TestProgressLogTimely (issue 32, "progress lines arrive in one burst at
// the end when stderr is not a terminal"): kernel runs as a process with
// stderr to a pipe, held (testhold) at its kernel phase's first check,
// before any row is done, as a long Gram product would keep it; its
// progress lines must come while it is held, the first within a few
// seconds of the start, each a whole line; released, it finishes.
func TestProgressLogTimely(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	_, xp := randomInputs(t, t.TempDir(), 500, 20, 3)
	out := filepath.Join(t.TempDir(), "K.npy")
	marker := filepath.Join(t.TempDir(), "held")
	cmd := binaryCmd([]string{"kernel", "--data", xp, "--out", out})
	cmd.Env = append(cmd.Env, testhold.Env+"=kernel="+marker)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type line struct {
		at   time.Duration
		text string
	}
	lines := make(chan line)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- line{time.Since(start), sc.Text()}
		}
		close(lines)
	}()
	var all, progress []line
	// Held, the process writes its timed lines (the first a second after
	// the report starts; 4 s leaves room for loading on a loaded machine).
	timeout := time.After(10 * time.Second)
	for len(progress) < 2 {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("kernel ended while held: %v", all)
			}
			all = append(all, l)
			if strings.HasPrefix(l.text, "kernel rows: ") {
				progress = append(progress, l)
			}
		case <-timeout:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("while held 10 s, %d progress lines, want 2 (a burst at the end?): %v", len(progress), all)
		}
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("progress lines, but the process is not held: %v", err)
	}
	if first := progress[0].at; first > 4*time.Second {
		t.Errorf("first progress line %v after the start, want ≤ 4s", first.Round(time.Millisecond))
	}
	cmd.Process.Signal(testhold.Release)
	for l := range lines {
		all = append(all, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kernel: %v; stderr:\n%v", err, all)
	}
	t.Logf("progress lines while held: %v", progress)
	if _, err := os.Stat(out); err != nil {
		t.Errorf("released, kernel wrote nothing: %v", err)
	}
}
