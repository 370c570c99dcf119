package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startInterrupted runs "ntksvm args…" as a process, sends it sig once
// the file ready exists (plus settle), and returns its exit code and
// stderr.
func startInterrupted(t *testing.T, args []string, sig syscall.Signal, ready string, settle time.Duration) (int, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts processes")
	}
	cmd := binaryCmd(args)
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(settle)
	cmd.Process.Signal(sig)
	cmd.Wait()
	return cmd.ProcessState.ExitCode(), e.String()
}

// TestResumeFingerprint (issue defect 4): a checkpoint or a finished-run
// record carries the fingerprint of its run (configuration with the seed,
// data SHA-256, format); "equiv --resume" refuses one from another seed,
// an edited config.json, other data, or a state without a fingerprint,
// naming the field (resuming a run's own state bit-identically is tested
// in cmd/internal/experiment/equiv).
func TestResumeFingerprint(t *testing.T) {
	root := t.TempDir()
	data, other := fakeMNISTSized(t, 40, 10, 5, 1), fakeMNISTSized(t, 40, 10, 5, 2)
	equivArgs := func(out, seed, steps string) []string {
		return []string{"equiv", "--mnist-dir", data, "--allow-noncanonical", "--n-train", "30", "--n-test", "10",
			"--widths", "16", "--steps", steps, "--seed", seed, "--checkpoint-every", "-1", "--out", out}
	}
	resume := func(dir, mnistDir string) []string {
		return []string{"equiv", "--resume", dir, "--mnist-dir", mnistDir, "--allow-noncanonical"}
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, r := range []struct{ out, seed string }{{a, "6"}, {b, "5"}} {
		code, stderr := startInterrupted(t, equivArgs(r.out, r.seed, "5000000"), syscall.SIGINT, filepath.Join(r.out, "config.json"), 300*time.Millisecond)
		if code != 130 {
			t.Fatalf("interrupting seed %s: exit %d\n%s", r.seed, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(r.out, "run1.ckpt")); err != nil {
			t.Fatalf("no checkpoint after the interrupt: %v\n%s", err, stderr)
		}
	}
	ckptA, _ := os.ReadFile(filepath.Join(a, "run1.ckpt"))
	ckptB, _ := os.ReadFile(filepath.Join(b, "run1.ckpt"))
	configA, _ := os.ReadFile(filepath.Join(a, "config.json"))
	restore := func() {
		os.WriteFile(filepath.Join(a, "run1.ckpt"), ckptA, 0o644)
		os.WriteFile(filepath.Join(a, "config.json"), configA, 0o644)
	}
	for _, tc := range []struct {
		name  string
		setup func()
		args  []string
		want  string
	}{
		{"checkpoint of another seed", func() { os.WriteFile(filepath.Join(a, "run1.ckpt"), ckptB, 0o644) }, resume(a, data),
			`its configuration has "seed" = 5, config.json has 6`},
		{"config.json seed edited", func() {
			os.WriteFile(filepath.Join(a, "config.json"), bytes.Replace(configA, []byte(`"seed": 6`), []byte(`"seed": 7`), 1), 0o644)
		}, resume(a, data), `its configuration has "seed" = 6, config.json has 7`},
		{"other data", func() {}, resume(a, other), "it was trained on other data"},
		{"a checkpoint of an older format", func() { os.WriteFile(filepath.Join(a, "run1.ckpt"), ckptA[40:], 0o644) }, resume(a, data),
			"it has no fingerprint"},
	} {
		restore()
		tc.setup()
		code, _, stderr := runBinary(t, tc.args)
		if code != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "the saved run state is not of this experiment") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", tc.name, code, stderr, tc.want)
		}
	}
	restore()
	// A finished run's record from another seed is refused too.
	c, d := filepath.Join(root, "c"), filepath.Join(root, "d")
	for _, r := range []struct{ out, seed string }{{c, "6"}, {d, "5"}} {
		if code, _, stderr := runBinary(t, equivArgs(r.out, r.seed, "50")); code != 0 {
			t.Fatalf("short run: %s", stderr)
		}
	}
	doneD, _ := os.ReadFile(filepath.Join(d, "run1.done"))
	os.WriteFile(filepath.Join(c, "run1.done"), doneD, 0o644)
	if code, _, stderr := runBinary(t, resume(c, data)); code != 1 || !strings.Contains(stderr, `"seed" = 5, config.json has 6`) {
		t.Errorf("done record of another seed: exit %d, %q", code, stderr)
	}
}
