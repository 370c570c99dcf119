package mnist

import (
	"errors"
	"fmt"
	"os"
)

// RealDataDir returns the directory where the tests and benchmarks that
// need the real MNIST files read them, the one named by $NTKSVM_MNIST_DIR,
// and whether that variable is set. Such a test skips when it is not set.
// When it is set, err is nil only if the directory holds the four MNIST
// files (each may be gzipped) and each can be opened; otherwise err names
// the variable, the directory and what is wrong, and the test fails rather
// than skips: data that was asked for must be there.
func RealDataDir() (dir string, set bool, err error) {
	dir = os.Getenv(EnvDir)
	if dir == "" {
		return "", false, nil
	}
	var missing []File
	for _, f := range Files {
		path, err := Find(dir, f)
		var nf *NotFoundError
		if errors.As(err, &nf) {
			missing = append(missing, f)
			continue
		}
		if err == nil {
			var fh *os.File
			if fh, err = os.Open(path); err == nil {
				err = fh.Close()
			}
		}
		if err != nil {
			return dir, true, fmt.Errorf("$%s is %s, but the MNIST files there cannot be read: %w", EnvDir, dir, err)
		}
	}
	if len(missing) > 0 {
		return dir, true, fmt.Errorf("$%s is %s, but the MNIST files are not there: %w", EnvDir, dir, &NotFoundError{Dir: dir, Missing: missing})
	}
	return dir, true, nil
}

// TB is the part of testing.TB that RealDataDirForTest uses: *testing.T
// and *testing.B have it (this package does not import testing).
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// RealDataDirForTest returns RealDataDir's directory to a test that needs
// the real MNIST files. It skips tb, naming $NTKSVM_MNIST_DIR, when that
// variable is not set, but fails it when $CI is set as well (continuous
// integration must run the real-data tests); it fails tb when the variable
// is set but the data is missing or unreadable.
func RealDataDirForTest(tb TB) string {
	tb.Helper()
	dir, set, err := RealDataDir()
	switch {
	case !set && os.Getenv("CI") != "":
		tb.Fatalf("CI is set but %s is not: the test on the real MNIST files cannot run", EnvDir)
	case !set:
		tb.Skipf("%s not set: skipping the test on the real MNIST files", EnvDir)
	case err != nil:
		tb.Fatalf("%v", err)
	}
	return dir
}
