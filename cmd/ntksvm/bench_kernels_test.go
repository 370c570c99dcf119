package main

import (
	"strings"
	"testing"
)

// TestBenchKernelsUsage: bad command lines of the kernel benchmarks exit 2
// with a message.
func TestBenchKernelsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "relu", "--n", "0"},
		{"bench", "relu", "--n", "-5"},
		{"bench", "relu", "--n", "1e12"},
		{"bench", "relu", "--n", "99999999999"},
		{"bench", "relu", "--runs", "0"},
		{"bench", "relu", "--threads", "0"},
		{"bench", "relu", "stray"},
		{"bench", "micro", "--k", "0"},
		{"bench", "micro", "--k", "100000"},
		{"bench", "micro", "--bogus"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

// TestBenchHelp: every benchmark prints its usage line and flags, and
// bench svm keeps the deprecated --mnist spelling of --mnist-dir.
func TestBenchHelp(t *testing.T) {
	for _, b := range benchmarks {
		code, _, errOut := runCLI(t, "bench", b.name, "-h")
		if code != 0 || !strings.Contains(errOut, "Usage: ntksvm bench "+b.name+" ") || !strings.Contains(errOut, "Flags:") {
			t.Errorf("bench %s -h: exit %d, stderr %q", b.name, code, errOut)
		}
	}
	_, _, errOut := runCLI(t, "bench", "svm", "-h")
	if !strings.Contains(errOut, "-mnist-dir") || !strings.Contains(errOut, "deprecated: use --mnist-dir") {
		t.Errorf("bench svm -h lacks --mnist-dir or its alias:\n%s", errOut)
	}
}
