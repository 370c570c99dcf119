package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/mnist"
)

// TestGenboundValidatesFirst: bad flags are usage errors (exit status 2)
// reported before the data is looked for, and nothing is written.
func TestGenboundValidatesFirst(t *testing.T) {
	t.Setenv(mnist.EnvDir, filepath.Join(t.TempDir(), "no-such-dir"))
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"--preset", "fig9"},
		{"--width", "0"},
		{"--lr", "-1"},
		{"--reg", "bogus"},
		{"--delta", "1.5"},
		{"--authors-code", "--loss", "squared"},
		{"--steps", "0"},
		{"stray"},
	} {
		code, _, stderr := runCLI(t, append([]string{"genbound", "--out", out}, args...)...)
		if code != 2 || strings.Contains(stderr, "MNIST") {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
	// A valid command line gets as far as the data.
	code, _, stderr := runCLI(t, "genbound", "--out", out, "--seed", "3")
	if code != 1 || !strings.Contains(stderr, "no-such-dir") {
		t.Errorf("missing data: exit %d, %s", code, stderr)
	}
}
