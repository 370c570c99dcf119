package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/internal/testhold"
)

// writeBlobs writes a CSV of n points of d features in k classes, class
// c shifted by sep along feature c (overlapping classes, so that each
// one-vs-one sub-problem keeps many support vectors), and returns its
// path.
func writeBlobs(t *testing.T, dir, name string, n, d, k int, sep float64, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("label\n")
	for i := range n {
		c := i % k
		for j := range d {
			v := rng.NormFloat64()
			if j == c {
				v += sep
			}
			fmt.Fprintf(&b, "%.6f,", v)
		}
		fmt.Fprintf(&b, "k%d\n", c)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCVResume interrupts "ntksvm cv --mem … --checkpoint FILE" with
// SIGINT once the checkpoint holds the first of its 10 one-vs-one
// sub-problems (each on a dense Gram of its own pair, about 0.1 s apiece),
// and checks that it exits 130 keeping the checkpoint and no model; that
// the checkpoint is refused by a run with another C (naming it), not
// overwritten without --resume, and that a corrupt one is refused; and
// that "--resume" on another thread count says where it continues, prints
// the test accuracy line of the uninterrupted run, writes its model byte
// for byte, and removes the checkpoint.
func TestCVResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	train := writeBlobs(t, dir, "train.csv", 4000, 10, 5, 1.5, 1)
	test := writeBlobs(t, dir, "test.csv", 300, 10, 5, 1.5, 2)
	ck := filepath.Join(dir, "fit.ckpt")
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	point := []string{"cv", "--data", train, "--test", test, "--depth", "2", "--sigma-b", "0", "--C", "10", "--mem", "80M"}
	full := filepath.Join(dir, "full.model")
	code, stdout, stderr := runProcess(t, append(point, "--threads", "1", "--out", full)...)
	if code != 0 || !strings.Contains(stderr, "SMO each pair of classes on a dense Gram of its own points") {
		t.Fatalf("uninterrupted: exit %d: %s", code, stderr)
	}
	wantAcc := acc.FindString(stdout)
	part := filepath.Join(dir, "part.model")
	args := append(point, "--threads", "1", "--out", part, "--checkpoint", ck)
	interrupted := regexp.MustCompile(`checkpoint .*fit\.ckpt: ([1-9]) of 10 sub-problems done; continue with --resume`)
	stderr = interruptAtCheckpoint(t, args, ck)
	m := interrupted.FindStringSubmatch(stderr)
	if m == nil || !strings.Contains(stderr, "interrupted") {
		t.Fatalf("interrupted: stderr does not name the checkpoint:\n%s", stderr)
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Errorf("the interrupted run wrote its model: %v", err)
	}
	corrupt := filepath.Join(dir, "corrupt.ckpt")
	ckBytes, _ := os.ReadFile(ck)
	os.WriteFile(corrupt, append(bytes.Clone(ckBytes[:len(ckBytes)-1]), ckBytes[len(ckBytes)-1]^1), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"other C", append(point, "--C", "1", "--checkpoint", ck, "--resume"), 1, "the checkpoint is of another fit: C: 10 in the checkpoint, 1 here"},
		{"no --resume", append(point, "--checkpoint", ck), 2, "exists: add --resume to continue from it"},
		{"corrupt", append(point, "--checkpoint", corrupt, "--resume"), 1, "checksum mismatch"},
		{"--resume alone", append(point, "--resume"), 2, "--resume needs --checkpoint FILE"},
	} {
		code, _, stderr := runProcess(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.name, code, stderr, tc.code, tc.want)
		}
	}
	if b, _ := os.ReadFile(ck); !bytes.Equal(b, ckBytes) {
		t.Fatal("a refused run changed the checkpoint")
	}
	code, stdout, stderr = runProcess(t, append(point, "--threads", "2", "--out", part, "--checkpoint", ck, "--resume")...)
	if code != 0 || !strings.Contains(stderr, "resuming: "+m[1]+" of 10 sub-problems done") || !strings.Contains(stderr, "removed the checkpoint") {
		t.Fatalf("resumed: exit %d: %s", code, stderr)
	}
	if got := acc.FindString(stdout); got == "" || got != wantAcc {
		t.Errorf("resumed: %q, uninterrupted: %q", got, wantAcc)
	}
	a, _ := os.ReadFile(full)
	b, _ := os.ReadFile(part)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the resumed model (%d bytes) differs from the uninterrupted one (%d bytes)", len(b), len(a))
	}
	if _, err := os.Stat(ck); !os.IsNotExist(err) {
		t.Errorf("the checkpoint of the finished fit stays: %v", err)
	}
}

// interruptAtCheckpoint runs "ntksvm args…", held (testhold) once its
// first checkpoint is written, sends it SIGINT there, and returns its
// stderr after checking that it exited 130.
func interruptAtCheckpoint(t *testing.T, args []string, ck string) string {
	t.Helper()
	cmd := binaryCmd(args)
	marker := filepath.Join(t.TempDir(), "held")
	cmd.Env = append(cmd.Env, testhold.Env+"=checkpoint="+marker)
	var e lockedBuffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	waitHeld(t, cmd, exited, marker, &e)
	if _, err := os.Stat(ck); err != nil {
		t.Errorf("held after the first checkpoint, but: %v", err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130: %s", code, e.String())
	}
	return e.String()
}

// TestCVResumeFalkon interrupts "ntksvm cv --machine krr --mem …
// --checkpoint FILE" (Falkon with 2000 centres, about 30 ms a CG
// iteration) at its first checkpoint, resumes it without --mem (the
// checkpoint's budget, which decides the kernel blocks kept in float32),
// and checks the message, the test accuracy line and the model against
// the uninterrupted run's.
func TestCVResumeFalkon(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	train := writeBlobs(t, dir, "train.csv", 4000, 10, 5, 1.5, 1)
	test := writeBlobs(t, dir, "test.csv", 300, 10, 5, 1.5, 2)
	ck := filepath.Join(dir, "fit.ckpt")
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	point := []string{"cv", "--data", train, "--test", test, "--depth", "2", "--sigma-b", "0", "--C", "10", "--machine", "krr", "--centres", "2000", "--threads", "1"}
	full := filepath.Join(dir, "full.model")
	code, stdout, stderr := runProcess(t, append(point, "--mem", "200M", "--out", full)...)
	if code != 0 || !strings.Contains(stderr, "Falkon with 2000 centres") {
		t.Fatalf("uninterrupted: exit %d: %s", code, stderr)
	}
	part := filepath.Join(dir, "part.model")
	stderr = interruptAtCheckpoint(t, append(point, "--mem", "200M", "--out", part, "--checkpoint", ck), ck)
	m := regexp.MustCompile(`checkpoint .*fit\.ckpt: Falkon at CG iteration (\d+); continue with --resume`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("interrupted: stderr does not name the checkpoint:\n%s", stderr)
	}
	code, rout, stderr := runProcess(t, append(point, "--out", part, "--checkpoint", ck, "--resume")...)
	if code != 0 || !strings.Contains(stderr, "resuming: Falkon at CG iteration "+m[1]) {
		t.Fatalf("resumed: exit %d: %s", code, stderr)
	}
	if got, want := acc.FindString(rout), acc.FindString(stdout); got == "" || got != want {
		t.Errorf("resumed: %q, uninterrupted: %q", got, want)
	}
	a, _ := os.ReadFile(full)
	b, _ := os.ReadFile(part)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the resumed model (%d bytes) differs from the uninterrupted one (%d bytes)", len(b), len(a))
	}
}
