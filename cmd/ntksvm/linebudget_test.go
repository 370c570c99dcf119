//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestLIBSVMLineBudget (issue 32, defect 2: "a LIBSVM file … dies on an
// 800 MB row buffer"): every command that reads a LIBSVM file refuses a
// line longer than a fifth of its memory budget (here GOMEMLIMIT=100MiB),
// naming the file and the line, without holding the line: the process's
// peak resident size stays within 20 MB of that of "ntksvm version" (the
// line is 29 MB, and 48 MB more parsed).
func TestLIBSVMLineBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString("1 1:0.5\n-1 2:1\n1")
	for j := 1; j <= 3_000_000; j++ { // a 29 MB line: 3·10⁶ features, 48 MB parsed
		b.WriteString(" " + strconv.Itoa(j) + ":1")
	}
	b.WriteString("\n")
	path := filepath.Join(dir, "big.libsvm")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	base := peakRSS(t, []string{"version"})
	for _, args := range [][]string{
		{"train", "--machine", "krr", "--data", path, "--out", filepath.Join(dir, "m.model")},
		{"export-libsvm", "--data", path, "--out", filepath.Join(dir, "e.txt")},
		{"data", "info", path},
		{"cv", "--data", path, "--out", filepath.Join(dir, "cv.model")},
	} {
		cmd := binaryCmd(args)
		cmd.Env = append(cmd.Env, "GOMEMLIMIT=100MiB")
		var e bytes.Buffer
		cmd.Stderr = &e
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatal(err)
			}
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kB on Linux
		msg := strings.TrimSpace(e.String())
		t.Logf("%s: exit %d, peak RSS %d MB (version: %d MB): %s", args[0], cmd.ProcessState.ExitCode(), rss>>20, base>>20, msg)
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(msg, "big.libsvm") ||
			!(strings.Contains(msg, ":3: the line is longer than") || strings.Contains(msg, "line 3 is longer than")) ||
			!strings.Contains(msg, "memory budget") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and the line refused, naming big.libsvm line 3 and the memory budget", args, code, msg)
		}
		if rss > base+20<<20 {
			t.Errorf("%v: peak RSS %d MB, %d MB for \"version\": the line was held (it is 29 MB, 48 MB parsed)", args, rss>>20, base>>20)
		}
	}
}

// peakRSS runs "ntksvm args…" and returns its peak resident size in bytes
// (which counts the test process it was forked from).
func peakRSS(t *testing.T, args []string) int64 {
	t.Helper()
	cmd := binaryCmd(args)
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}
