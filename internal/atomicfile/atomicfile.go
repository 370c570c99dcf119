// Package atomicfile writes files so that a reader, or a later run after a
// crash or an interrupt, sees either the old content or the whole new
// content, never a part: the data goes to a temporary file in the target's
// directory, is synced, and is renamed over the target (with mode 0644),
// and the directory is synced where the system allows it. A failed or
// abandoned write removes its temporary file.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written atomically. Write to it, then call Commit to
// publish it at its path or Abort to discard it. Abort after Commit is a
// no-op, so `defer f.Abort()` is the usual pattern.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts an atomic write of path. It fails early, with an error
// naming the problem, if path is a directory or its directory does not
// exist.
func Create(path string) (*File, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
		}
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Path returns the path the file is published at by Commit.
func (f *File) Path() string { return f.path }

// Commit gives the temporary file mode 0644 (the temporary file is
// created 0600), syncs and closes it, renames it to the path and syncs the
// directory (ignoring a failure there: the data itself is synced). On
// error the temporary file is removed and the path is left as it was.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("atomicfile: %s already committed or aborted", f.path)
	}
	f.done = true
	err := f.File.Chmod(0o644)
	if err == nil {
		err = f.File.Sync()
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	syncDir(filepath.Dir(f.path))
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
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}
