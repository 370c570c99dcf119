package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fileSums returns the SHA-256 of each file, to check that a refused run
// changed none.
func fileSums(t *testing.T, paths ...string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m[p] = sha256.Sum256(b)
	}
	return m
}

// TestOutputIsAnInput (issue defect 1): an output equal to an input, or to
// another output of the run, is refused before anything is read or
// written, whatever its spelling, and the files are left as they were.
func TestOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 30, 3, 11)
	xp, yp, _ := strings.Cut(data, ",")
	model := filepath.Join(dir, "m.model")
	if code, _, stderr := runCLI(t, "train", "--machine", "krr", "--lambda", "1", "--data", data, "--out", model); code != 0 {
		t.Fatal(stderr)
	}
	os.Symlink("X.npy", filepath.Join(dir, "xlink.npy"))
	before := fileSums(t, xp, yp, model)
	other := filepath.Join(dir, "sub", "..", "X.npy")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	train := []string{"train", "--data", data, "--machine", "krr", "--lambda", "1"}
	sub := []string{"train", "--data", data, "--solver", "subgradient", "--steps", "5"}
	checkBinaryRefusals(t, []binaryRefusal{
		{"train --out X", append(train, "--out", xp), 2, "--out " + xp + " is the same file as the input --data " + xp},
		{"train --out y", append(train, "--out", yp), 2, "same file as the input --data " + yp},
		{"another spelling", append(train, "--out", other), 2, "same file as the input --data"},
		{"a symbolic link", append(train, "--out", filepath.Join(dir, "xlink.npy")), 2, "same file as the input --data"},
		{"--test", append(train, "--test", data, "--out", filepath.Join(dir, "n"), "--export-libsvm", yp), 2, "--export-libsvm " + yp + " is the same file as the input"},
		{"--log = --out", append(sub, "--out", filepath.Join(dir, "n"), "--log", filepath.Join(dir, "sub", "..", "n")), 2, "is the same file as --out"},
		{"--export-libsvm = --out", append(train, "--out", filepath.Join(dir, "n"), "--export-libsvm", filepath.Join(dir, "n")), 2, "is the same file as --out"},
		{"predict --out model", []string{"predict", "--model", model, "--data", data, "--out", model}, 2, "same file as the input --model"},
		{"certify --out model", []string{"certify", "--model", model, "--data", data, "--out", model}, 2, "same file as the input --model"},
		{"kernel --out X", []string{"kernel", "--data", xp, "--out", xp}, 2, "same file as the input --data"},
		{"export-libsvm --out y", []string{"export-libsvm", "--data", data, "--out", yp}, 2, "same file as the input --data"},
	})
	for p, s := range fileSums(t, xp, yp, model) {
		if before[p] != s {
			t.Errorf("%s was changed by a refused run", p)
		}
	}
	checkNoOutput(t, filepath.Join(dir, "n"))
}

// TestOutputModes (issue defect 1): new outputs honour the umask, a
// replaced file keeps its mode, and a model with embedded training data
// is written 0600 whatever the umask.
func TestOutputModes(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 20, 3, 13)
	m := filepath.Join(dir, "m")
	umask := func(u string) []string { return []string{"sh", "-c", "umask " + u + ` && exec "$0"`} }
	mode := func(p string) os.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	train := []string{"train", "--machine", "krr", "--lambda", "1", "--data", data, "--out", m}
	for _, tc := range []struct {
		name     string
		umask    string
		existing os.FileMode
		embed    bool
		want     os.FileMode
	}{
		{"new, umask 077", "077", 0, false, 0o600},
		{"new, umask 022", "022", 0, false, 0o644},
		{"new, umask 002", "002", 0, false, 0o664},
		{"replacing 0600, umask 022", "022", 0o600, false, 0o600},
		{"--embed, umask 022", "022", 0, true, 0o600},
		{"--embed over 0644", "000", 0o644, true, 0o600},
	} {
		os.Remove(m)
		if tc.existing != 0 {
			os.WriteFile(m, nil, tc.existing)
			os.Chmod(m, tc.existing)
		}
		args := train
		if tc.embed {
			args = append(args[:len(args):len(args)], "--embed")
		}
		if code, _, stderr := runBinary(t, args, umask(tc.umask)...); code != 0 {
			t.Fatalf("%s: %s", tc.name, stderr)
		}
		if got := mode(m); got != tc.want {
			t.Errorf("%s: mode %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStaleTemporaryFilesSwept (issue defect 1): a temporary file of ours
// left by a killed run (older than an hour) is removed by the next write
// into the directory; a recent one (a run still writing) is kept.
func TestStaleTemporaryFilesSwept(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 20, 3, 14)
	old, fresh := filepath.Join(dir, ".K.npy.tmp-1234567"), filepath.Join(dir, ".K.npy.tmp-7654321")
	os.WriteFile(old, []byte("left by SIGKILL"), 0o600)
	os.WriteFile(fresh, []byte("being written"), 0o600)
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, past, past)
	if code, _, stderr := runBinary(t, []string{"kernel", "--data", strings.Split(data, ",")[0], "--out", filepath.Join(dir, "K.npy")}); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("the stale temporary file is still there")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a recent temporary file was removed")
	}
}
