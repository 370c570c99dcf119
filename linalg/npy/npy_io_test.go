package npy

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestNpyReaderWriterRoundTrip writes matrices and vectors to a
// bytes.Buffer, checks the bytes against the file writer's and reads them
// back with the size known and unknown, through readers that return one
// byte at a time too.
func TestNpyReaderWriterRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	dir := t.TempDir()
	big := npyRandMatrix[float64](rng, 3, 3*npyGrowStep) // several growth steps when the size is unknown
	for _, m := range []linalg.Matrix[float64]{
		npyRandMatrix[float64](rng, 5, 7),
		npyRandMatrix[float64](rng, 0, 4),
		npyRandMatrix[float64](rng, 6, 9).Slice(1, 5, 2, 8), // strided
		big,
	} {
		var buf bytes.Buffer
		if err := WriteTo(&buf, m); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "m.npy")
		if err := Write(p, m); err != nil {
			t.Fatal(err)
		}
		if file, _ := os.ReadFile(p); !bytes.Equal(file, buf.Bytes()) {
			t.Fatalf("%d×%d: WriteTo and Write bytes differ", m.Rows, m.Cols)
		}
		b := buf.Bytes()
		for _, size := range []int64{int64(len(b)), -1} {
			for name, r := range map[string]io.Reader{"whole": bytes.NewReader(b), "one byte": iotest.OneByteReader(bytes.NewReader(b))} {
				if m.Rows*m.Cols > 1000 && name == "one byte" {
					continue
				}
				got, err := ReadFrom[float64](r, size)
				if err != nil {
					t.Fatalf("%d×%d size %d %s: %v", m.Rows, m.Cols, size, name, err)
				}
				if !npySameMatrix(got, m) {
					t.Fatalf("%d×%d size %d %s: read back differs", m.Rows, m.Cols, size, name)
				}
			}
			got32, err := ReadFrom[float32](bytes.NewReader(b), size)
			if err != nil || got32.Rows != m.Rows || got32.Cols != m.Cols {
				t.Fatalf("as float32: %v", err)
			}
			for i := range m.Rows {
				for j := range m.Cols {
					if got32.At(i, j) != float32(m.At(i, j)) {
						t.Fatalf("as float32: (%d, %d) = %v, want %v", i, j, got32.At(i, j), float32(m.At(i, j)))
					}
				}
			}
		}
	}
	v := []float32{1.5, -2, 3.25}
	var buf bytes.Buffer
	if err := WriteVectorTo(&buf, v); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "v.npy")
	if err := WriteVector(p, v); err != nil {
		t.Fatal(err)
	}
	if file, _ := os.ReadFile(p); !bytes.Equal(file, buf.Bytes()) {
		t.Fatal("WriteVectorTo and WriteVector bytes differ")
	}
	for _, size := range []int64{int64(buf.Len()), -1} {
		got, err := ReadVectorFrom[float64](bytes.NewReader(buf.Bytes()), size)
		if err != nil || len(got) != 3 || got[0] != 1.5 || got[1] != -2 || got[2] != 3.25 {
			t.Fatalf("size %d: vector %v, %v", size, got, err)
		}
	}
	if _, err := ReadVectorFrom[float64](bytes.NewReader(nil), -1); !errors.Is(err, ErrFormat) {
		t.Errorf("empty stream: %v", err)
	}
}

// TestNpyReaderTruncated cuts a valid stream at every length: every cut
// is an error wrapping ErrFormat, with the size known or not.
func TestNpyReaderTruncated(t *testing.T) {
	m := npyRandMatrix[float32](rand.New(rand.NewPCG(1, 2)), 3, 5)
	var buf bytes.Buffer
	if err := WriteTo(&buf, m); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	for n := range len(b) {
		for _, size := range []int64{int64(n), -1} {
			if _, err := ReadFrom[float32](bytes.NewReader(b[:n]), size); !errors.Is(err, ErrFormat) {
				t.Fatalf("cut at %d of %d, size %d: %v, want an error wrapping ErrFormat", n, len(b), size, err)
			}
		}
		if _, err := ReadFrom[float32](bytes.NewReader(b[:n]), -1); n > 128 && !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("cut in the data at %d: %v, want \"truncated\"", n, err)
		}
	}
	// A size that promises more than the reader holds.
	if _, err := ReadFrom[float32](bytes.NewReader(b[:len(b)-1]), int64(len(b))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short reader: %v, want io.ErrUnexpectedEOF", err)
	}
	// A reader error is passed on.
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(b[:100]), iotest.ErrReader(boom))
	if _, err := ReadFrom[float32](r, -1); !errors.Is(err, boom) {
		t.Errorf("failing reader: %v, want boom", err)
	}
}

// errWriter fails every write after the first n bytes.
type errWriter struct{ n int }

func (w *errWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(b)
	return len(b), nil
}

// TestNpyWriterTo checks the streaming writer on an io.Writer: rows in
// tiles, the row count enforced, write errors reported.
func TestNpyWriterTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	full := npyRandMatrix[float64](rng, 20, 6)
	var buf bytes.Buffer
	w, err := NewWriterTo[float64](&buf, Float64, 20, 6)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i += 7 {
		if err := w.WriteRows(full.Slice(i, min(i+7, 20), 0, 6)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteRows(full.Slice(0, 1, 0, 6)); !errors.Is(err, linalg.ErrShape) {
		t.Errorf("a row too many: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFrom[float64](&buf, int64(buf.Len()))
	if err != nil || !npySameMatrix(got, full) {
		t.Fatalf("read back: %v", err)
	}

	w, _ = NewWriterTo[float64](io.Discard, Float32, 3, 2)
	w.WriteRows(full.Slice(0, 2, 0, 2))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "2 of 3 rows") {
		t.Errorf("closed early: %v", err)
	}
	if _, err := NewWriterTo[float64](io.Discard, Dtype(2), 1, 1); err == nil {
		t.Error("bad dtype accepted")
	}
	if _, err := NewWriterTo[float64](io.Discard, Float64, -1, 1); err == nil {
		t.Error("negative rows accepted")
	}
	if err := WriteTo(&errWriter{n: 200}, npyRandMatrix[float64](rng, 100, 100)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: %v", err)
	}
}

// TestReadAtParallel checks the concurrent read of Read's data: every
// byte in place whatever the number of pieces, and a source shorter than
// the destination (a file that shrank after its size was taken) as
// io.ErrUnexpectedEOF.
func TestReadAtParallel(t *testing.T) {
	defer linalg.SetThreads(0)
	src := make([]byte, 10_000)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	for _, tc := range []struct {
		name            string
		threads         int
		n, off, minPart int
		have            int // bytes the source holds
		wantErr         bool
	}{
		{"empty", 4, 0, 0, 100, 10_000, false},
		{"one piece", 1, 9_000, 3, 100, 10_000, false},
		{"three pieces", 3, 9_000, 3, 100, 10_000, false},
		{"pieces capped by minPiece", 8, 500, 0, 200, 10_000, false},
		{"short source, last piece", 3, 9_000, 0, 100, 8_000, true},
		{"short source, one piece", 1, 9_000, 0, 100, 8_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			linalg.SetThreads(tc.threads)
			dst := make([]byte, tc.n)
			err := readAtParallel(bytes.NewReader(src[:tc.have]), int64(tc.off), dst, tc.minPart)
			if tc.wantErr {
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("error %v, want io.ErrUnexpectedEOF", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dst, src[tc.off:tc.off+tc.n]) {
				t.Fatal("bytes differ from the source")
			}
		})
	}
}

// TestReadNpyLargeParallel reads a file large enough for two concurrent
// pieces (over 2·npyPieceMin bytes) back bit for bit, float64 and as
// float32 (the converting path).
func TestReadNpyLargeParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 34 MB file")
	}
	defer linalg.SetThreads(0)
	linalg.SetThreads(2)
	rng := rand.New(rand.NewPCG(31, 32))
	m := npyRandMatrix[float64](rng, 4200, 1000)
	path := filepath.Join(t.TempDir(), "big.npy")
	if err := Write(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := Read[float64](path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != m.Rows || got.Cols != m.Cols || npyBitsDiffer(got.Data, m.Data) {
		t.Fatalf("read %d×%d, not the %d×%d written", got.Rows, got.Cols, m.Rows, m.Cols)
	}
	g32, err := Read[float32](path)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range m.Data {
		if g32.Data[i] != float32(v) {
			t.Fatalf("float32 element %d: %v, want %v", i, g32.Data[i], float32(v))
		}
	}
}
