package npy

import (
	"archive/zip"
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNpzRoundTrip writes an archive to a bytes.Buffer and to a file, and
// reads both back by name.
func TestNpzRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	m := npyRandMatrix[float64](rng, 4, 6).Slice(0, 4, 1, 5) // strided
	v := []float32{1, 2, 3}
	write := func(z *NpzWriter) {
		t.Helper()
		if err := WriteNpzMatrix(z, "w", m); err != nil {
			t.Fatal(err)
		}
		if err := WriteNpzVector(z, "b", v); err != nil {
			t.Fatal(err)
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	write(NewNpzWriter(&buf))
	path := filepath.Join(t.TempDir(), "a.npz")
	z, err := CreateNpz(path)
	if err != nil {
		t.Fatal(err)
	}
	write(z)
	if file, _ := os.ReadFile(path); !bytes.Equal(file, buf.Bytes()) {
		t.Fatal("CreateNpz and NewNpzWriter bytes differ")
	}
	// Members are numpy.savez's: stored name.npy, each the bytes of WriteTo.
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 2 || zr.File[0].Name != "w.npy" || zr.File[1].Name != "b.npy" || zr.File[0].Method != zip.Store {
		t.Fatalf("members %v", zr.File)
	}

	fromFile, err := OpenNpz(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fromFile.Close()
	fromBuf, err := NewNpzReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*NpzReader{fromFile, fromBuf} {
		if got := r.Names(); !slices.Equal(got, []string{"b", "w"}) {
			t.Errorf("Names() = %v", got)
		}
		gm, err := ReadNpzMatrix[float64](r, "w")
		if err != nil || !npySameMatrix(gm, m) {
			t.Fatalf("matrix: %v", err)
		}
		gv, err := ReadNpzVector[float64](r, "b")
		if err != nil || !slices.Equal(gv, []float64{1, 2, 3}) {
			t.Fatalf("vector %v: %v", gv, err)
		}
		if _, err := ReadNpzMatrix[float64](r, "nothing"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing array: %v, want fs.ErrNotExist", err)
		}
		if _, err := ReadNpzVector[float64](r, "w"); !errors.Is(err, ErrFormat) {
			t.Errorf("4×4 read as a vector: %v", err)
		}
	}
	if _, err := ReadNpzMatrix[float64](fromFile, "nothing"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v does not name the archive", err)
	}
}

// TestNpzDeflated reads a member compressed as numpy.savez_compressed
// writes it.
func TestNpzDeflated(t *testing.T) {
	m := npyRandMatrix[float32](rand.New(rand.NewPCG(1, 1)), 30, 30)
	var npy, buf bytes.Buffer
	if err := WriteTo(&npy, m); err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "x.npy", Method: zip.Deflate})
	w.Write(npy.Bytes())
	zw.Close()
	r, err := NewNpzReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadNpzMatrix[float32](r, "x"); err != nil || !npySameMatrix(got, m) {
		t.Fatalf("deflated member: %v", err)
	}
}

// TestNpzCorrupt: a damaged member (checksum), a member whose .npy is bad,
// and a file that is not a zip are errors; a failed write publishes
// nothing.
func TestNpzCorrupt(t *testing.T) {
	m := npyRandMatrix[float64](rand.New(rand.NewPCG(2, 2)), 3, 3)
	var buf bytes.Buffer
	z := NewNpzWriter(&buf)
	WriteNpzMatrix(z, "w", m)
	z.Close()
	b := buf.Bytes()
	i := bytes.Index(b, []byte("\x93NUMPY"))
	damaged := slices.Clone(b)
	damaged[i+128+10]++ // in the data of the stored member (its header is 128 bytes)
	badMagic := slices.Clone(b)
	badMagic[i+1] = 'X'
	for name, c := range map[string]struct {
		b    []byte
		want error
	}{
		"checksum":  {damaged, zip.ErrChecksum},
		"bad magic": {badMagic, ErrFormat},
	} {
		r, err := NewNpzReader(bytes.NewReader(c.b), int64(len(c.b)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := ReadNpzMatrix[float64](r, "w"); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := NewNpzReader(bytes.NewReader([]byte("not a zip")), 9); err == nil {
		t.Error("not a zip: no error")
	}
	if _, err := OpenNpz(filepath.Join(t.TempDir(), "missing.npz")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing archive: %v", err)
	}

	dir := t.TempDir()
	z, err := CreateNpz(filepath.Join(dir, "x.npz"))
	if err != nil {
		t.Fatal(err)
	}
	WriteNpzMatrix(z, "w", m)
	z.Discard()
	if err := z.Close(); err != nil {
		t.Errorf("Close after Discard: %v", err)
	}
	if err := WriteNpzMatrix(z, "v", m); err == nil {
		t.Error("write after Discard: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a discarded archive left %d files", len(ents))
	}
}
