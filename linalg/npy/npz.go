package npy

// This file reads and writes NumPy .npz archives: zip files whose members
// are .npy files, one per named array, as numpy.savez writes them (member
// "name.npy" holds the array saved as name=...). Members are written
// stored (uncompressed) and read stored or deflated (numpy.savez_compressed).

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
)

// NpzWriter writes a .npz archive array by array (WriteNpzMatrix,
// WriteNpzVector), then Close writes the zip directory. One made by
// CreateNpz publishes its file at its path only when Close succeeds, as
// Writer does. An NpzWriter is not safe for concurrent use.
type NpzWriter struct {
	sink
	zw *zip.Writer
}

// NewNpzWriter returns a writer of a .npz archive to w. Close finishes the
// archive and flushes it into w, which it does not close.
func NewNpzWriter(w io.Writer) *NpzWriter {
	z := &NpzWriter{sink: streamSink("NpzWriter", w, 1<<16)}
	z.zw = zip.NewWriter(z.w)
	return z
}

// CreateNpz starts writing a .npz archive at path, atomically: the archive
// goes to a temporary file in the same directory, which Close syncs and
// renames over path.
func CreateNpz(path string) (*NpzWriter, error) {
	out, err := fileSink("NpzWriter", path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("npy: CreateNpz %s: %w", path, err)
	}
	z := &NpzWriter{sink: out}
	z.zw = zip.NewWriter(z.w)
	return z, nil
}

// add writes the member name.npy with write.
func (z *NpzWriter) add(name string, write func(io.Writer) error) error {
	if z.err != nil {
		return z.err
	}
	if z.finished {
		return z.errorf("array %q written after Close", name)
	}
	w, err := z.zw.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: zip.Store})
	if err == nil {
		err = write(w)
	}
	if err != nil {
		z.err = z.errorf("%s: %w", name, err)
	}
	return z.err
}

// WriteNpzMatrix adds m to the archive as the 2-D array name (member
// name.npy, the bytes Write writes).
func WriteNpzMatrix[T linalg.Float](z *NpzWriter, name string, m linalg.Matrix[T]) error {
	return z.add(name, func(w io.Writer) error { return WriteTo(w, m) })
}

// WriteNpzVector adds v to the archive as the 1-D array name (member
// name.npy, the bytes WriteVector writes).
func WriteNpzVector[T linalg.Float](z *NpzWriter, name string, v []T) error {
	return z.add(name, func(w io.Writer) error { return WriteVectorTo(w, v) })
}

// Close writes the zip directory and flushes; for CreateNpz's writer it
// then syncs and renames the file into place. After an earlier error it
// returns that error, and a file is not published. Close after Close or
// Discard does nothing.
func (z *NpzWriter) Close() error {
	if z.finished {
		return nil
	}
	err := z.err
	if err == nil {
		if cerr := z.zw.Close(); cerr != nil {
			err = z.errorf("%w", cerr)
		}
	}
	return z.close(err)
}

// Discard abandons the archive: for CreateNpz's writer the temporary file
// is removed and nothing appears at the path (a stream's writer only
// stops). Discard after Close does nothing, so it can be deferred.
func (z *NpzWriter) Discard() { z.discard() }

// NpzReader reads the arrays of a .npz archive by name.
type NpzReader struct {
	name    string // the path, or "" for NewNpzReader's
	members map[string]*zip.File
	closer  io.Closer
}

// OpenNpz opens the .npz archive at path; Close releases it.
func OpenNpz(path string) (*NpzReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: OpenNpz %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("npy: OpenNpz %s: %w", path, err)
	}
	z, err := newNpzReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("npy: OpenNpz %s: %w", path, err)
	}
	z.name, z.closer = path, f
	return z, nil
}

// NewNpzReader reads a .npz archive of size bytes from r (a zip needs
// random access). Close does nothing for it.
func NewNpzReader(r io.ReaderAt, size int64) (*NpzReader, error) {
	z, err := newNpzReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("npy: NewNpzReader: %w", err)
	}
	return z, nil
}

func newNpzReader(r io.ReaderAt, size int64) (*NpzReader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	z := &NpzReader{members: map[string]*zip.File{}}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if _, dup := z.members[name]; ok && !dup {
			z.members[name] = f
		}
	}
	return z, nil
}

// Names returns the names of the arrays in the archive, sorted.
func (z *NpzReader) Names() []string {
	names := make([]string, 0, len(z.members))
	for n := range z.members {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Close releases OpenNpz's file.
func (z *NpzReader) Close() error {
	if z.closer == nil {
		return nil
	}
	err := z.closer.Close()
	z.closer = nil
	return err
}

// errorf formats an error about array name, naming the archive's file if
// it has one.
func (z *NpzReader) errorf(op, name string, err error) error {
	if z.name == "" {
		return fmt.Errorf("npy: %s %s: %w", op, name, err)
	}
	return fmt.Errorf("npy: %s %s: %s: %w", op, z.name, name+".npy", err)
}

// npzRead opens member name.npy and decodes it with decode, then checks that
// the member ends there and that its checksum holds.
func npzRead[R any](z *NpzReader, op, name string, decode func(io.Reader, int64) (R, error)) (R, error) {
	var zero R
	f, ok := z.members[name]
	if !ok {
		return zero, z.errorf(op, name, fmt.Errorf("no array %q in the archive: %w", name, fs.ErrNotExist))
	}
	if f.UncompressedSize64 > math.MaxInt64 {
		return zero, z.errorf(op, name, fmt.Errorf("%w: member of %d bytes", ErrFormat, f.UncompressedSize64))
	}
	rc, err := f.Open()
	if err != nil {
		return zero, z.errorf(op, name, err)
	}
	defer rc.Close()
	v, err := decode(rc, int64(f.UncompressedSize64))
	if err != nil {
		return zero, z.errorf(op, name, err)
	}
	// Reading to the end makes the zip reader check the member's size and
	// CRC-32.
	if n, err := io.Copy(io.Discard, rc); err != nil || n != 0 {
		if err == nil {
			err = npyErr("%d bytes after the data", n)
		}
		return zero, z.errorf(op, name, err)
	}
	return v, nil
}

// ReadNpzMatrix reads the array name (member name.npy) as Read reads a
// file. A missing array is an error wrapping fs.ErrNotExist.
func ReadNpzMatrix[T linalg.Float](z *NpzReader, name string) (linalg.Matrix[T], error) {
	return npzRead(z, "ReadNpzMatrix", name, readNpy[T])
}

// ReadNpzVector reads the array name (member name.npy) as ReadVector
// reads a file. A missing array is an error wrapping fs.ErrNotExist.
func ReadNpzVector[T linalg.Float](z *NpzReader, name string) ([]T, error) {
	return npzRead(z, "ReadNpzVector", name, readNpyVector[T])
}
