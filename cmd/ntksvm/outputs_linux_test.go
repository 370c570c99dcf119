//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

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
