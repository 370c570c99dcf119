// Package atomicfile writes files so that a reader, or a later run after a
// crash or an interrupt, sees either the old content or the whole new
// content, never a part: the data goes to a temporary file in the target's
// directory, is synced, and is renamed over the target, and the directory
// is synced where the system allows it. A failed or abandoned write
// removes its temporary file; one left by a killed process is removed by
// the next write of the same file once that process is gone (the name
// holds its process ID and its machine), and by any later write into the
// same directory once it is StaleAge old.
//
// Only a regular file, a new name, or a symbolic link to either is
// written: a device, a named pipe or a socket at the path is refused
// rather than replaced. A replaced file keeps its permission bits; a new
// one gets 0666 less the process's umask, or 0600 when written Private.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ntksvm/ntksvm/internal/testhold"
)

// StaleAge is how old (by modification time) a temporary file of this
// package must be before a write into its directory removes it as left
// by a killed process: a live write modifies its file far more often.
const StaleAge = time.Hour

// NameMax is the longest file name, in bytes, that is accepted: the limit
// of the common Linux, macOS and BSD file systems.
const NameMax = 255

// tmpMarker separates a temporary file's name from its random suffix.
const tmpMarker = ".tmp-"

// File is a file being written atomically. Write to it, then call Commit to
// publish it at its path or Abort to discard it. Abort after Commit is a
// no-op, so `defer f.Abort()` is the usual pattern.
type File struct {
	*os.File
	path    string // as given, for messages
	target  string // path with symbolic links resolved: what the rename replaces
	mode    os.FileMode
	private bool
	done    bool
}

// describe names the kind of a file that is not regular, for messages.
func describe(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// resolve returns the file a write of path replaces (path itself, or the
// end of its chain of symbolic links) and that file's information (nil
// for a new name), or an error naming what is in the way.
func resolve(path string) (string, os.FileInfo, error) {
	if path == "" {
		return "", nil, errors.New("empty file name")
	}
	if path == "-" {
		return "", nil, errors.New(`"-" (standard output) is not accepted here; give a file name`)
	}
	if base := filepath.Base(path); len(base) > NameMax {
		return "", nil, fmt.Errorf("cannot write %s: the file name is %d bytes long, the limit is %d", path, len(base), NameMax)
	}
	li, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, nil, checkDir(path, path)
	}
	if err != nil {
		return "", nil, err
	}
	target := path
	if li.Mode()&os.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			dest, _ := os.Readlink(path)
			return "", nil, fmt.Errorf("%s is a symbolic link to %s, which cannot be followed: %v", path, dest, err)
		}
		target = t
		if li, err = os.Lstat(target); err != nil {
			return "", nil, err
		}
		if !li.Mode().IsRegular() {
			return "", nil, fmt.Errorf("%s is a symbolic link to %s, %s, not a regular file", path, target, describe(li.Mode()))
		}
	}
	switch {
	case li.IsDir():
		return "", nil, fmt.Errorf("%s is a directory, not a file", path)
	case !li.Mode().IsRegular():
		return "", nil, fmt.Errorf("%s is %s, not a regular file: refusing to replace it", path, describe(li.Mode()))
	}
	return target, li, checkDir(path, target)
}

// checkDir checks that the directory of target exists and that the base
// name is not too long; path is the name the user gave, for messages.
func checkDir(path, target string) error {
	dir, base := filepath.Dir(target), filepath.Base(target)
	if len(base) > NameMax {
		return fmt.Errorf("cannot write %s: the file name is %d bytes long, the limit is %d", path, len(base), NameMax)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	return nil
}

// Check reports, before any work is done, why path cannot be written by
// Create: an empty name or "-", a directory, a device, named pipe or
// socket (or a symbolic link to one), a missing directory, a name longer
// than NameMax, or a directory where a file cannot be created (no
// permission, a read-only file system: a temporary file is created there
// and removed to find out).
func Check(path string) error {
	target, _, err := resolve(path)
	if err != nil {
		return err
	}
	f, err := createTemp(target, 0o600)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// unwrapPath drops the temporary file's name from a *PathError, which
// would only confuse a message about the user's path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Identity returns what identifies the file a write of path replaces:
// the file's own information when it exists, else the directory's
// together with the base name. Two paths that give equal identities
// (SameIdentity) are written to the same file whatever their spelling.
func Identity(path string) (Ident, error) {
	target, fi, err := resolve(path)
	if err != nil {
		return Ident{}, err
	}
	if fi != nil {
		return Ident{fi: fi}, nil
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	di, err := os.Stat(dir)
	if err != nil {
		return Ident{}, err
	}
	return Ident{fi: di, base: base}, nil
}

// Ident identifies a file, existing or to be created; see Identity.
type Ident struct {
	fi   os.FileInfo
	base string // "" for an existing file; the new name in directory fi
}

// SameIdentity reports whether a and b are the same file (by device and
// inode), or the same new name in the same directory.
func SameIdentity(a, b Ident) bool {
	return a.fi != nil && b.fi != nil && a.base == b.base && os.SameFile(a.fi, b.fi)
}

// SameFile reports whether the existing file fi is the file ident names.
func (id Ident) SameFile(fi os.FileInfo) bool {
	return id.fi != nil && id.base == "" && os.SameFile(id.fi, fi)
}

// tmpCount makes temporary names unique within the process; the pid and
// the time make them unique between processes.
var tmpCount atomic.Uint64

// createTemp creates a new temporary file for target in its directory
// with permission perm (less the umask).
func createTemp(target string, perm os.FileMode) (*os.File, error) {
	dir, base := filepath.Split(target)
	if len(base) > NameMax-60 { // room for the dot and the suffix (at most 5+7+1+10+1+20 bytes)
		cut := NameMax - 60
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	for {
		suffix := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(uint64(machineID), 10) + "-" +
			strconv.FormatUint(uint64(time.Now().UnixNano())^tmpCount.Add(1)<<20, 10)
		name := filepath.Join(dir, "."+base+tmpMarker+suffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
}

// IsTemp reports whether name (a base name) has the form of this
// package's temporary files: a dot, a name, ".tmp-" and decimal digits,
// in groups joined by "-" (the process ID, the machine and a random part).
func IsTemp(name string) bool {
	i := strings.LastIndex(name, tmpMarker)
	if !strings.HasPrefix(name, ".") || i < 1 {
		return false
	}
	for _, g := range strings.Split(name[i+len(tmpMarker):], "-") {
		if g == "" || strings.Trim(g, "0123456789") != "" {
			return false
		}
	}
	return true
}

// tempMaker returns the process ID in the temporary name name and
// whether that process ran on this machine (since its last boot): false
// for another machine's file, or one of the earlier form without them.
func tempMaker(name string) (pid int, here bool) {
	i := strings.LastIndex(name, tmpMarker)
	if i < 0 {
		return 0, false
	}
	g := strings.Split(name[i+len(tmpMarker):], "-")
	if len(g) != 3 || g[1] != strconv.FormatUint(uint64(machineID), 10) {
		return 0, false
	}
	pid, err := strconv.Atoi(g[0])
	return pid, err == nil && pid > 0
}

// SweepOrphans removes the temporary files of this package for target
// (its directory and base name) that were made on this machine by a
// process that is gone, and were last modified before the process now
// holding that process ID (if any) started: those of a killed run of the
// same output. It returns the names removed; errors are ignored.
func SweepOrphans(target string) []string {
	dir, base := filepath.Split(target)
	ents, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !IsTemp(name) || !strings.HasPrefix(name, "."+base+tmpMarker) {
			continue
		}
		pid, here := tempMaker(name)
		if !here || pid == os.Getpid() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !processGone(pid, fi.ModTime()) {
			continue
		}
		p := filepath.Join(dir, name)
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// SweepStale removes the temporary files of this package in dir that
// were last modified more than age ago: those of a process that was
// killed. It returns the names removed; errors are ignored (another
// process may sweep at the same time, or the directory may not be
// readable).
func SweepStale(dir string, age time.Duration) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	now := time.Now()
	for _, e := range ents {
		if !e.Type().IsRegular() || !IsTemp(e.Name()) {
			continue
		}
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < age {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// Create starts an atomic write of path. It fails early, with an error
// naming the problem, for everything Check refuses. Stale temporary files
// in the directory are removed first (see StaleAge).
func Create(path string) (*File, error) {
	target, fi, err := resolve(path)
	if err != nil {
		return nil, err
	}
	SweepStale(filepath.Dir(target), StaleAge)
	SweepOrphans(target)
	mode := os.FileMode(0)
	perm := os.FileMode(0o666) // less the umask, by the system
	if fi != nil {
		mode = fi.Mode().Perm()
		perm = 0o600 // until Commit gives it the old file's mode
	}
	f, err := createTemp(target, perm)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return &File{File: f, path: path, target: target, mode: mode}, nil
}

// Path returns the path the file is published at by Commit.
func (f *File) Path() string { return f.path }

// Private makes the file readable and writable by its owner only (0600),
// whatever the mode of a file it replaces and the umask: for files that
// hold a user's data.
func (f *File) Private() { f.private = true }

// Commit gives the temporary file its mode (0600 if Private, else the
// replaced file's, else 0666 less the umask as created), syncs and closes
// it, renames it to the path and syncs the directory (ignoring a failure
// there: the data itself is synced). A failure to sync or close (a full
// disk, an I/O error) is an error. On error the temporary file is removed
// and the path is left as it was.
func (f *File) Commit() error { return f.CommitContext(context.Background()) }

// CommitContext is Commit that publishes nothing once ctx is done: after
// the data is synced (which may take long for a large file) and right
// before the rename it checks ctx, and if ctx has ended it removes the
// temporary file and returns ctx's error. An interrupted command thus
// leaves the path as it was.
func (f *File) CommitContext(ctx context.Context) error {
	if f.done {
		return fmt.Errorf("atomicfile: %s already committed or aborted", f.path)
	}
	f.done = true
	var err error
	switch {
	case f.private:
		err = f.File.Chmod(0o600)
	case f.mode != 0:
		err = f.File.Chmod(f.mode)
	}
	if err == nil {
		err = f.File.Sync()
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.target)
	}
	if err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	syncDir(filepath.Dir(f.target))
	return nil
}

// syncDir makes a rename durable where the system allows syncing a
// directory; failure only weakens durability, so it is ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Abort closes and removes the temporary file, leaving the path as it was.
// It does nothing after Commit or a previous Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// WriteFile writes path atomically with the content that write produces.
// If write returns an error, the path is left as it was.
func WriteFile(path string, write func(w io.Writer) error) error {
	return WriteFileContext(context.Background(), path, false, write)
}

// WritePrivateFile is WriteFile for a file readable by its owner only
// (see File.Private).
func WritePrivateFile(path string, write func(w io.Writer) error) error {
	return WriteFileContext(context.Background(), path, true, write)
}

// WriteFileContext is WriteFile (WritePrivateFile if private) that stops
// once ctx is done: every write to the file fails with ctx's error from
// then on, and nothing is committed (see CommitContext).
func WriteFileContext(ctx context.Context, path string, private bool, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if private {
		f.Private()
	}
	var w io.Writer = namedWriter{f}
	if ctx.Done() != nil {
		w = ctxWriter{testhold.Context(ctx, "write"), w}
	}
	if err := write(w); err != nil {
		return err
	}
	return f.CommitContext(ctx)
}

// WriterContext returns a writer to the file that fails every write once
// ctx is done (a test can hold it at its first write: testhold's phase
// "write") and reports a failed write under the file's path (not the
// temporary file's name): for writers that create the file themselves
// and then CommitContext.
func (f *File) WriterContext(ctx context.Context) io.Writer {
	return ctxWriter{testhold.Context(ctx, "write"), namedWriter{f}}
}

// namedWriter reports a failed write (a full disk, an I/O error) under
// the path being written rather than the temporary file's name.
type namedWriter struct{ f *File }

func (n namedWriter) Write(b []byte) (int, error) {
	k, err := n.f.Write(b)
	if err != nil {
		err = &os.PathError{Op: "write", Path: n.f.path, Err: unwrapPath(err)}
	}
	return k, err
}

// ContextWriter returns a writer that passes writes to w until ctx is
// done and fails every write after that with ctx's error, so that a long
// serialisation into w stops soon after a cancellation. It is w itself
// for a context that is never done.
func ContextWriter(ctx context.Context, w io.Writer) io.Writer {
	if ctx.Done() == nil {
		return w
	}
	return ctxWriter{ctx, w}
}

// ctxWriter fails every Write once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(b)
}
