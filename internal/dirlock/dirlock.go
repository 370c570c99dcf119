// Package dirlock gives one run at a time a directory of outputs: Lock
// takes an exclusive advisory lock (flock(2) where the system has it) on a
// lock file in the directory, held until the release function is called or
// the process ends (a killed run releases it too), so that a second run
// into the same directory is refused instead of silently interleaving its
// files with the first's.
package dirlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Name is the lock file's name in the directory.
const Name = ".ntksvm.lock"

// ErrLocked is wrapped by Lock's error when another run holds the lock.
var ErrLocked = errors.New("dirlock: the directory is in use by another run")

// Lock takes the lock of dir (which must exist) for this process and
// returns the function that releases it. If another run holds it, the
// error wraps ErrLocked and says which process (as it recorded itself).
func Lock(dir string) (release func(), err error) {
	path := filepath.Join(dir, Name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("dirlock: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dirlock: %s: %w", path, err)
	}
	if !held {
		b := make([]byte, 128)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		who := strings.TrimSpace(string(b[:n]))
		if who == "" {
			who = "unknown process"
		}
		return nil, fmt.Errorf("%w: %s is locked by %s; wait for it to finish or choose another directory", ErrLocked, dir, who)
	}
	f.Truncate(0)
	f.WriteAt([]byte(fmt.Sprintf("pid %d\n", os.Getpid())), 0)
	return func() {
		unlock(f)
		f.Close()
	}, nil
}
