//go:build unix

package atomicfile

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestModes: a new file gets 0666 less the umask, a replaced file keeps
// its mode, a private one is 0600 whatever the umask and the old mode.
func TestModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, tc := range []struct {
		name     string
		umask    int
		existing os.FileMode // 0: a new file
		private  bool
		want     os.FileMode
	}{
		{"new, umask 022", 0o022, 0, false, 0o644},
		{"new, umask 077", 0o077, 0, false, 0o600},
		{"new, umask 002", 0o002, 0, false, 0o664},
		{"replacing 0600 keeps it", 0o022, 0o600, false, 0o600},
		{"replacing 0755 keeps it", 0o077, 0o755, false, 0o755},
		{"private new", 0o000, 0, true, 0o600},
		{"private over 0644", 0o022, 0o644, true, 0o600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if tc.existing != 0 {
				os.WriteFile(path, []byte("old"), 0o600)
				os.Chmod(path, tc.existing)
			}
			syscall.Umask(tc.umask)
			write := WriteFile
			if tc.private {
				write = WritePrivateFile
			}
			err := write(path, writeString("new"))
			syscall.Umask(0o022)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tc.want {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tc.want)
			}
		})
	}
}

// TestRefusesSpecialFiles: a device, a named pipe, a socket and symbolic
// links to them are refused by Check and Create and left alone; a
// symbolic link to a regular file is written through, and stays a link.
func TestRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	linkDev := filepath.Join(dir, "null-link")
	os.Symlink("/dev/null", linkDev)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere", "x"), dangling)
	for _, tc := range []struct{ path, want string }{
		{"/dev/null", "is a character device, not a regular file"},
		{fifo, "is a named pipe (FIFO)"},
		{sock, "is a socket"},
		{linkDev, "symbolic link to /dev/null, a character device"},
		{dangling, "cannot be followed"},
	} {
		if err := Check(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%s) = %v, want %q", tc.path, err, tc.want)
		}
		if err := WriteFile(tc.path, writeString("x")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WriteFile(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
	real := filepath.Join(dir, "real")
	os.WriteFile(real, []byte("old"), 0o640)
	link := filepath.Join(dir, "link")
	os.Symlink("real", link)
	if err := WriteFile(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symbolic link was replaced by a file")
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("link target holds %q", b)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Errorf("link target mode %v, want 0640", fi.Mode().Perm())
	}
}

// TestCheckUnwritableDir: a directory without write permission is found
// by Check (as root, which ignores permissions, a read-only file system
// would be needed; the case is skipped).
func TestCheckUnwritableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a mode 0555 directory; the read-only mount case is in cmd/ntksvm's tests")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	if err := Check(filepath.Join(dir, "x")); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("Check in a 0555 directory: %v", err)
	}
}

// TestLongNames: a name of NameMax bytes is written (its temporary file
// has a shortened name); the temporary name is recognised as ours.
func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, strings.Repeat("é", NameMax/2)) // 254 bytes
	if err := Check(path); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if !IsTemp(filepath.Base(f.Name())) || len(filepath.Base(f.Name())) > NameMax {
		t.Errorf("temporary name %q", filepath.Base(f.Name()))
	}
	f.WriteString("x")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestSweepStale: a temporary file older than StaleAge is removed by the
// next Create in its directory; a fresh one, and files of other names,
// are kept.
func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, ".K.npy.tmp-123456")
	fresh := filepath.Join(dir, ".K.npy.tmp-654321")
	other := filepath.Join(dir, ".K.npy.tmp-notours")
	for _, p := range []string{old, fresh, other} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	past := time.Now().Add(-StaleAge - time.Minute)
	os.Chtimes(old, past, past)
	os.Chtimes(other, past, past)
	if err := WriteFile(filepath.Join(dir, "y"), writeString("y")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("the stale temporary file was kept")
	}
	for _, p := range []string{fresh, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}

// TestSweepOrphans: the next write of a file removes the temporary file
// of it left by a process of this machine that is gone (a killed run),
// and keeps those of a live process, of another machine, of the earlier
// name form, and of other files.
func TestSweepOrphans(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "K.npy")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	here := strconv.FormatUint(uint64(machineID), 10)
	name := func(file string, pid int, machine string) string {
		return filepath.Join(dir, "."+file+tmpMarker+strconv.Itoa(pid)+"-"+machine+"-12345")
	}
	orphan := name("K.npy", dead.Process.Pid, here)
	live := name("K.npy", os.Getppid(), here)
	elsewhere := name("K.npy", dead.Process.Pid, here+"1")
	old := filepath.Join(dir, ".K.npy.tmp-123456")
	other := name("L.npy", dead.Process.Pid, here)
	for _, p := range []string{orphan, live, elsewhere, old, other} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	if err := WriteFile(target, writeString("k")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) && runtime.GOOS == "linux" {
		t.Error("the temporary file of a process that is gone was kept")
	}
	for _, p := range []string{live, elsewhere, old, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".a.tmp-1": true, ".a.b.tmp-0123": true, "a.tmp-1": false, ".a.tmp-": false, ".a.tmp-1x": false, ".tmp-1": false,
		".a.tmp-12-34-56": true, ".a.tmp-12--56": false, ".a.tmp-12-": false,
	} {
		if IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v", name, !want)
		}
	}
}
