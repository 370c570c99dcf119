package main

import (
	"bufio"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressLogTimely (issue 32, "progress lines arrive in one burst at
// the end when stderr is not a terminal"): kernel runs as a process with
// stderr to a pipe on inputs whose Gram product (before the first row is
// done) takes seconds; its progress lines must come as the work goes: the
// first within a few seconds of the start, and at least one well before
// the process exits, each a whole line.
func TestProgressLogTimely(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process that computes a large kernel")
	}
	_, xp := randomInputs(t, t.TempDir(), 6000, 2000, 3)
	cmd := binaryCmd([]string{"kernel", "--data", xp, "--out", filepath.Join(t.TempDir(), "K.npy")})
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
	var lines []line
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		lines = append(lines, line{time.Since(start), sc.Text()})
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kernel: %v; stderr:\n%v", err, lines)
	}
	end := time.Since(start)
	var progress []line
	for _, l := range lines {
		if strings.HasPrefix(l.text, "kernel rows: ") {
			progress = append(progress, l)
		}
	}
	t.Logf("exit after %v; progress lines: %v", end.Round(time.Millisecond), progress)
	if len(progress) < 2 {
		t.Fatalf("%d progress lines, want several; stderr: %v", len(progress), lines)
	}
	// The first line is due a second into the job (timed, while the
	// product runs); 4 s leaves room for loading the inputs on a loaded
	// machine. Before, it came only once the product was done.
	if first := progress[0].at; first > 4*time.Second {
		t.Errorf("first progress line %v after the start, want ≤ 4s", first.Round(time.Millisecond))
	}
	if gap := end - progress[0].at; gap < time.Second {
		t.Errorf("the first progress line came %v before the exit (a burst at the end), want ≥ 1s", gap.Round(time.Millisecond))
	}
}
