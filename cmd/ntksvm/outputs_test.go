package main

import (
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// TestOutputSpecialFiles (issue defect 1): a device, a named pipe, a
// socket or a symbolic link to one is refused as an output, left as it
// was, and the run reads nothing (the data named does not exist).
func TestOutputSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/null", filepath.Join(dir, "null.npy"))
	missing := filepath.Join(dir, "none.npy") + "," + filepath.Join(dir, "none-y.npy")
	checkBinaryRefusals(t, []binaryRefusal{
		{"/dev/null", []string{"train", "--data", missing, "--out", "/dev/null"}, 2, "--out: /dev/null is a character device, not a regular file"},
		{"/dev/stdout", []string{"predict", "--model", "m", "--data", missing, "--out", "/dev/stdout"}, 2, "/dev/stdout is a symbolic link to"},
		{"a FIFO", []string{"export-libsvm", "--data", missing, "--out", fifo}, 2, "is a named pipe (FIFO)"},
		{"a link to /dev/null", []string{"kernel", "--data", missing, "--out", filepath.Join(dir, "null.npy")}, 2, "symbolic link to /dev/null, a character device"},
		{"--log /dev/null", []string{"train", "--data", missing, "--out", filepath.Join(dir, "m"), "--solver", "subgradient", "--log", "/dev/null"}, 2, "--log: /dev/null is a character device"},
		{"a 300-byte name", []string{"train", "--data", missing, "--out", filepath.Join(dir, strings.Repeat("m", 300))}, 2, "the file name is 300 bytes long, the limit is 255"},
		{"stdout as -", []string{"certify", "--model", "m", "--data", missing, "--out", "-"}, 2, "standard output"},
	})
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatal("/dev/null is no longer a character device")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

// TestOutputDeviceCopyAsRoot: as root, a copy of /dev/full (a character
// device made by mknod) given as --out is refused and stays a device, where
// renaming a regular file over it would replace the device and report
// success. Skipped when not root.
func TestOutputDeviceCopyAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod needs root")
	}
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 20, 3, 12)
	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, int(1<<8|7)); err != nil { // major 1, minor 7: /dev/full
		t.Skipf("mknod: %v", err)
	}
	code, _, stderr := runBinary(t, []string{"train", "--machine", "krr", "--data", data, "--out", full})
	if code != 2 || !strings.Contains(stderr, full+" is a character device") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if fi, err := os.Lstat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Error("the device was replaced")
	}
}

// TestOutputReadOnlyMount (issue defect 1): an output in a read-only
// file system is refused before any data is read. Runs the command in a
// private mount namespace (unshare -m) where a read-only tmpfs is mounted;
// skipped when not root or without unshare.
func TestOutputReadOnlyMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	missing := filepath.Join(dir, "none.npy") + "," + filepath.Join(dir, "none-y.npy")
	script := `mount -t tmpfs -o ro tmpfs "$1" || exit 99; shift; exec "$@"`
	code, _, stderr := runBinary(t, []string{"train", "--data", missing, "--out", filepath.Join(ro, "m")},
		"unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", ro)
	if code == 99 {
		t.Skip("cannot mount in a private namespace here")
	}
	if code != 2 || !strings.Contains(stderr, "read-only file system") || strings.Contains(stderr, "none.npy") {
		t.Errorf("exit %d, %q", code, stderr)
	}
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

// TestOutputFullDisk (issue defect 1): a write that runs out of space (a
// 16 KiB tmpfs in a private mount namespace) fails with exit 1 naming the
// problem, and leaves neither the output nor a temporary file. Skipped
// when not root or without unshare.
func TestOutputFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	dir := t.TempDir()
	_, xp := randomInputs(t, dir, 100, 3, 51) // a 100×100 float64 kernel: 80 kB
	small := filepath.Join(dir, "small")
	os.Mkdir(small, 0o755)
	script := `d=$1; mount -t tmpfs -o size=16k tmpfs "$d" || exit 99; shift; "$@"; code=$?; echo "left: $(ls -A "$d")" >&2; exit $code`
	code, _, stderr := runBinary(t, []string{"kernel", "--data", xp, "--out", filepath.Join(small, "K.npy")},
		"unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", small)
	if code == 99 {
		t.Skip("cannot mount in a private namespace here")
	}
	if code != 1 || !strings.Contains(stderr, "write "+filepath.Join(small, "K.npy")+": no space left on device") || !strings.Contains(stderr, "left: \n") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
