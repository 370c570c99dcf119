package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceBadFlags: every bad flag is an error (exit 2) before any
// work: no output directory is created and MNIST is never looked for.
func TestReproduceBadFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--quick", "--paper"}, "--quick and --paper exclude each other"},
		{[]string{"--only", "table9"}, "unknown experiment table9"},
		{[]string{"--only", "figB2,figB2"}, "figB2 named more than once"},
		{[]string{"--only", ""}, ""},
		{[]string{"--out", file}, "want a directory"},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"--paper", "--table2-width-1e6", "--table2-mem-gib", "4"}, "the width-1000000 network needs about"},
		{[]string{"--table2-widths", "1e6"}, "width 1e6 needs --table2-width-1e6"},
		{[]string{"--table2-widths", "1e2"}, "--table2-widths: width \"1e2\""},
		{[]string{"--table2-mem-gib", "-1"}, "want a finite number ≥ 0"},
	} {
		args := append([]string{"reproduce", "--mnist-dir", filepath.Join(dir, "nomnist"), "--no-fetch", "--out", out}, tc.args...)
		if tc.want == "" {
			continue // an empty --only selects every experiment: not an error
		}
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "MNIST not found") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: created %s before failing", tc.args, out)
		}
	}
}

// TestReproduceNoMNIST: without MNIST and without downloading, the command
// says where it looked and exits 2.
func TestReproduceNoMNIST(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NTKSVM_MNIST_DIR", filepath.Join(dir, "env"))
	missing := filepath.Join(dir, "nomnist")
	code, _, stderr := runCLI(t, "reproduce", "--only", "figB2", "--mnist-dir", missing, "--no-fetch", "--out", filepath.Join(dir, "out"))
	if code != 2 {
		t.Errorf("exit %d, want 2; stderr %q", code, stderr)
	}
	for _, want := range []string{"MNIST not found in " + missing + " (given by --mnist-dir, which overrides $NTKSVM_MNIST_DIR=" + filepath.Join(dir, "env") + ")",
		"missing train-images-idx3-ubyte", "ntksvm data fetch mnist"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
}

// TestOutDirBeforeData: an --out directory that cannot be created fails
// the experiment commands (exit 2, naming --out) before MNIST is looked
// for, loaded or downloaded.
func TestOutDirBeforeData(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "out") // under a regular file
	nomnist := filepath.Join(dir, "nomnist")
	for _, args := range [][]string{
		{"reproduce", "--only", "figB2", "--mnist-dir", nomnist, "--no-fetch", "--out", bad},
		{"equiv", "--preset", "fig1", "--quick", "--mnist-dir", nomnist, "--out", bad},
		{"genbound", "--preset", "figB2", "--mnist-dir", nomnist, "--out", bad},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, `--out "`+bad+`"`) || strings.Contains(stderr, "MNIST") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and an --out error before any MNIST message", args[0], code, stderr)
		}
	}
}
