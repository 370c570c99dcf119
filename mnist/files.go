package mnist

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File names one of the four MNIST files.
type File int

// The four MNIST files.
const (
	TrainImages File = iota // train-images-idx3-ubyte: 60,000 images of 28×28
	TrainLabels             // train-labels-idx1-ubyte: 60,000 labels 0…9
	TestImages              // t10k-images-idx3-ubyte: 10,000 images
	TestLabels              // t10k-labels-idx1-ubyte: 10,000 labels
)

// Files lists the four MNIST files in a fixed order.
var Files = []File{TrainImages, TrainLabels, TestImages, TestLabels}

// canonical holds what is known of each canonical file.
var canonical = [...]struct {
	name    string // canonical file name without .gz
	variant string // the other common spelling
	sha256  string // of the uncompressed content
	count   int
}{
	TrainImages: {"train-images-idx3-ubyte", "train-images.idx3-ubyte",
		"ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db", 60000},
	TrainLabels: {"train-labels-idx1-ubyte", "train-labels.idx1-ubyte",
		"65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5", 60000},
	TestImages: {"t10k-images-idx3-ubyte", "t10k-images.idx3-ubyte",
		"0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7", 10000},
	TestLabels: {"t10k-labels-idx1-ubyte", "t10k-labels.idx1-ubyte",
		"ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2", 10000},
}

func (f File) valid() bool { return f >= 0 && int(f) < len(canonical) }

// Name returns the canonical file name without the .gz suffix, e.g.
// "train-images-idx3-ubyte".
func (f File) Name() string {
	if !f.valid() {
		return fmt.Sprintf("mnist.File(%d)", int(f))
	}
	return canonical[f].name
}

// String returns a short name such as "train-images".
func (f File) String() string {
	if !f.valid() {
		return f.Name()
	}
	n, _, _ := strings.Cut(canonical[f].name, "-idx")
	return n
}

// Candidates returns the file names f is looked for under, in order: the
// canonical name, with .gz, the dotted variant, with .gz.
func (f File) Candidates() []string {
	if !f.valid() {
		return nil
	}
	c := canonical[f]
	return []string{c.name, c.name + ".gz", c.variant, c.variant + ".gz"}
}

// Canonical returns the SHA-256 checksum of the uncompressed content of the
// canonical file f, as published with MNIST.
func Canonical(f File) [32]byte {
	var s [32]byte
	if f.valid() {
		hex.Decode(s[:], []byte(canonical[f].sha256))
	}
	return s
}

// identify returns the canonical file whose content has checksum sum.
func identify(sum [32]byte) (File, bool) {
	for _, f := range Files {
		if Canonical(f) == sum {
			return f, true
		}
	}
	return 0, false
}

// Checksum says how a file's content compares with the canonical MNIST.
type Checksum int

// The checksum states.
const (
	// ChecksumUnknown: a file not named as an MNIST file, whose content is
	// not MNIST either: another dataset in the IDX format.
	ChecksumUnknown Checksum = iota
	// ChecksumOK: byte-for-byte the canonical MNIST content for its name.
	ChecksumOK
	// ChecksumMismatch: named as an MNIST file (or placed where one is
	// expected) but with other content.
	ChecksumMismatch
)

// String returns the status as "data info" prints it.
func (c Checksum) String() string {
	switch c {
	case ChecksumOK:
		return "OK"
	case ChecksumMismatch:
		return "checksum mismatch: not the canonical MNIST file"
	case ChecksumUnknown:
		return "unknown (not an MNIST file)"
	}
	return fmt.Sprintf("mnist.Checksum(%d)", int(c))
}

// EnvDir is the environment variable naming the MNIST directory.
const EnvDir = "NTKSVM_MNIST_DIR"

// Source says where Locate found the data directory.
type Source string

// The places a directory can come from.
const (
	SourceFlag  Source = "--mnist-dir"
	SourceEnv   Source = "$" + EnvDir
	SourceCache Source = "the default cache directory"
)

// Locate returns the MNIST directory: dir if it is not empty (the --mnist
// flag), else $NTKSVM_MNIST_DIR if set, else os.UserCacheDir()/ntksvm/mnist.
// It does not check that the directory exists.
func Locate(dir string) (string, Source, error) {
	if dir != "" {
		return dir, SourceFlag, nil
	}
	if d := os.Getenv(EnvDir); d != "" {
		return d, SourceEnv, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", "", fmt.Errorf("mnist: no data directory: pass --mnist DIR or set %s (%v)", EnvDir, err)
	}
	return filepath.Join(c, "ntksvm", "mnist"), SourceCache, nil
}

// ErrNotFound is wrapped by the error for a missing MNIST file.
var ErrNotFound = errors.New("MNIST file not found")

// NotFoundError reports MNIST files missing from a directory.
type NotFoundError struct {
	Dir     string
	Missing []File // each was looked for under File.Candidates()
}

// Error lists the missing files by their canonical names (each also found
// gzipped, .gz, or spelled with a dot before idx) and how to provide them.
func (e *NotFoundError) Error() string {
	var names []string
	for _, f := range e.Missing {
		names = append(names, f.Name())
	}
	return fmt.Sprintf("%v in %s: missing %s (each may also be gzipped, .gz); to provide MNIST, set %s=DIR, pass --mnist-dir DIR, or run \"ntksvm data fetch mnist\"",
		ErrNotFound, e.Dir, strings.Join(names, ", "), EnvDir)
}

// Unwrap returns ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Find returns the path of file f in dir, trying f.Candidates() in order.
// A missing file gives a *NotFoundError.
func Find(dir string, f File) (string, error) {
	if !f.valid() {
		return "", fmt.Errorf("mnist: invalid file %d", int(f))
	}
	for _, n := range f.Candidates() {
		p := filepath.Join(dir, n)
		st, err := os.Stat(p)
		switch {
		case err == nil && st.Mode().IsRegular():
			return p, nil
		case err == nil:
			return "", fmt.Errorf("mnist: %s is not a regular file", p)
		case !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
	}
	return "", &NotFoundError{Dir: dir, Missing: []File{f}}
}
