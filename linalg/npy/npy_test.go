package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// npyBytes hand-builds a .npy file the way numpy.save lays it out: magic,
// version, header length, the dict padded with spaces and '\n' to a multiple
// of 64 bytes, then the data.
func npyBytes(major int, dict string, data []byte) []byte {
	pre := 10
	if major > 1 {
		pre = 12
	}
	total := pre + len(dict) + 1
	total += (64 - total%64) % 64
	hlen := total - pre
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.WriteByte(byte(major))
	b.WriteByte(0)
	if major == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(hlen))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(hlen))
	}
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", total-b.Len()-1))
	b.WriteByte('\n')
	b.Write(data)
	return b.Bytes()
}

func npyFloatBytes(order binary.ByteOrder, vals any) []byte {
	var b bytes.Buffer
	binary.Write(&b, order, vals)
	return b.Bytes()
}

func npyWriteFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func npyRandMatrix[T linalg.Float](rng *rand.Rand, r, c int) linalg.Matrix[T] {
	m := linalg.New[T](r, c)
	for i := range m.Data {
		m.Data[i] = T(rng.NormFloat64())
	}
	return m
}

func npySameMatrix[T linalg.Float](a, b linalg.Matrix[T]) bool {
	if a.Rows != b.Rows || a.Cols != b.Cols {
		return false
	}
	for i := range a.Rows {
		for j := range a.Cols {
			x, y := a.At(i, j), b.At(i, j)
			if x != y && !(x != x && y != y) {
				return false
			}
		}
	}
	return true
}

// TestNpyNumpyLayout checks that our writer produces exactly numpy.save's
// bytes (format 1.0, dict text, 64-byte alignment) for a 2×3 float64 array.
func TestNpyNumpyLayout(t *testing.T) {
	m, _ := linalg.FromSlice(2, 3, []float64{0, 1, 2, 3, 4, 5})
	p := filepath.Join(t.TempDir(), "a.npy")
	if err := Write(p, m); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// numpy: b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }" + spaces + "\n"
	want := npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
		npyFloatBytes(binary.LittleEndian, m.Data))
	if !bytes.Equal(got, want) {
		t.Fatalf("writer output differs from numpy layout:\n got %q\nwant %q", got, want)
	}
	if got[8] != 'v' || len(got) != 128+48 {
		t.Fatalf("header length byte %q, file size %d; numpy gives 'v' and 176", got[8], len(got))
	}
}

func TestNpyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := [][]int{{0}, {1}, {7}, {0, 0}, {0, 5}, {5, 0}, {1, 1}, {3, 5}, {17, 1}, {1, 17}, {33, 65}}
	dir := t.TempDir()
	for _, version := range []int{1, 2, 3} {
		for _, sh := range shapes {
			r, c := 1, sh[len(sh)-1]
			if len(sh) == 2 {
				r = sh[0]
			}
			m64 := npyRandMatrix[float64](rng, r, c)
			if len(m64.Data) >= 4 {
				copy(m64.Data, []float64{math.NaN(), math.Inf(-1), math.Copysign(0, -1), 5e-324})
			}
			p := filepath.Join(dir, "x.npy")
			if err := writeNpyVersion(p, sh, m64.Data, version); err != nil {
				t.Fatal(err)
			}
			h, err := ReadHeader(p)
			if err != nil || h.Major != version || h.Dtype != Float64 || len(h.Shape) != len(sh) || h.DataOffset%64 != 0 {
				t.Fatalf("v%d %v: header %+v, %v", version, sh, h, err)
			}
			got, err := Read[float64](p)
			if err != nil || !npySameMatrix(got, m64) {
				t.Fatalf("v%d %v float64: round trip failed: %v", version, sh, err)
			}
			if npyBitsDiffer(got.Data, m64.Data) {
				t.Fatalf("v%d %v: bits changed", version, sh)
			}
			m32 := linalg.New[float32](r, c)
			for i, v := range m64.Data {
				m32.Data[i] = float32(v)
			}
			if err := writeNpyVersion(p, sh, m32.Data, version); err != nil {
				t.Fatal(err)
			}
			got32, err := Read[float32](p)
			if err != nil || !npySameMatrix(got32, m32) {
				t.Fatalf("v%d %v float32: round trip failed: %v", version, sh, err)
			}
			// float32 file read as float64 converts exactly.
			wide, err := Read[float64](p)
			if err != nil || wide.Rows != r || wide.Cols != c {
				t.Fatalf("v%d %v: float32 as float64: %v", version, sh, err)
			}
			for i, v := range m32.Data {
				if w := wide.Data[i]; w != float64(v) && !(v != v && w != w) {
					t.Fatalf("v%d %v: element %d: %v != %v", version, sh, i, w, v)
				}
			}
		}
	}
}

func npyBitsDiffer(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return true
		}
	}
	return false
}

func TestNpyStridedAndVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	big := npyRandMatrix[float64](rng, 6, 9)
	view := big.Slice(1, 5, 2, 7)
	p := filepath.Join(t.TempDir(), "v.npy")
	if err := Write(p, view); err != nil {
		t.Fatal(err)
	}
	got, err := Read[float64](p)
	if err != nil || !npySameMatrix(got, view) || got.Stride != 5 {
		t.Fatalf("strided view round trip: %v", err)
	}
	v := []float32{1, -2, 3.5}
	if err := WriteVector(p, v); err != nil {
		t.Fatal(err)
	}
	gv, err := ReadVector[float32](p)
	if err != nil || len(gv) != 3 || gv[0] != 1 || gv[1] != -2 || gv[2] != 3.5 {
		t.Fatalf("vector round trip: %v %v", gv, err)
	}
	gm, err := Read[float32](p)
	if err != nil || gm.Rows != 1 || gm.Cols != 3 {
		t.Fatalf("1-D as matrix: %d×%d %v", gm.Rows, gm.Cols, err)
	}
	col := linalg.New[float64](4, 1)
	if err := Write(p, col); err != nil {
		t.Fatal(err)
	}
	if v, err := ReadVector[float64](p); err != nil || len(v) != 4 {
		t.Fatalf("n×1 as vector: %v %v", v, err)
	}
	if err := Write(p, linalg.New[float64](2, 2)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVector[float64](p); !errors.Is(err, ErrFormat) {
		t.Fatalf("2×2 as vector: got %v, want ErrFormat", err)
	}
}

// TestNpyNumpyFiles reads files laid out byte by byte as numpy writes them,
// including big-endian data, double quotes and Python 2 long integers.
func TestNpyNumpyFiles(t *testing.T) {
	vals := []float64{1.5, -2, 0.25, 1e300, -7, 3}
	vals32 := []float32{1.5, -2, 0.25, 1e30, -7, 3}
	tests := []struct {
		name string
		file []byte
		rows int
		cols int
	}{
		{"f8 v1", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", npyFloatBytes(binary.LittleEndian, vals)), 2, 3},
		{"f8 big-endian", npyBytes(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 2), }", npyFloatBytes(binary.BigEndian, vals)), 3, 2},
		{"f4", npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", npyFloatBytes(binary.LittleEndian, vals32)), 1, 6},
		{"f4 big-endian v2", npyBytes(2, "{'descr': '>f4', 'fortran_order': False, 'shape': (1, 6), }", npyFloatBytes(binary.BigEndian, vals32)), 1, 6},
		{"v3 utf8, keys reordered, double quotes", npyBytes(3, `{"shape": (6, 1), "fortran_order": False, "descr": "<f8"}`, npyFloatBytes(binary.LittleEndian, vals)), 6, 1},
		{"python2 longs", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }", npyFloatBytes(binary.LittleEndian, vals)), 2, 3},
		{"fortran order of a vector", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,)}", npyFloatBytes(binary.LittleEndian, vals)), 1, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := npyWriteFile(t, "n.npy", tt.file)
			m, err := Read[float64](p)
			if err != nil {
				t.Fatal(err)
			}
			if m.Rows != tt.rows || m.Cols != tt.cols {
				t.Fatalf("shape %d×%d, want %d×%d", m.Rows, m.Cols, tt.rows, tt.cols)
			}
			for i, v := range m.Data {
				want := vals[i]
				if strings.Contains(tt.name, "f4") {
					want = float64(vals32[i])
				}
				if v != want {
					t.Fatalf("element %d = %v, want %v", i, v, want)
				}
			}
			mm, err := OpenMmap[float64](p)
			if err != nil {
				t.Fatal(err)
			}
			if !npySameMatrix(mm.Matrix, m) {
				t.Fatal("OpenMmap differs from Read")
			}
			if err := mm.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestNpyErrors(t *testing.T) {
	good := "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"
	data := npyFloatBytes(binary.LittleEndian, make([]float64, 6))
	valid := npyBytes(1, good, data)
	hugeHeader := append([]byte(nil), valid...)
	hugeHeader[8], hugeHeader[9] = 0xff, 0xff
	v2huge := npyBytes(2, good, data)
	v2huge[8], v2huge[9], v2huge[10], v2huge[11] = 0xff, 0xff, 0xff, 0x7f
	badUTF8 := npyBytes(3, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), '\xff': 1}", data)
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"bad magic", append([]byte("\x93NUMPX"), valid[6:]...), "bad magic"},
		{"version 4", append([]byte("\x93NUMPY\x04\x00"), valid[8:]...), "version 4.0"},
		{"version 1.1", append([]byte("\x93NUMPY\x01\x01"), valid[8:]...), "version 1.1"},
		{"header past end", hugeHeader, "past the end"},
		{"v2 header past end", v2huge, "past the end"},
		{"fortran", npyBytes(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", data), "fortran_order"},
		{"int64", npyBytes(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", data), `"<i8"`},
		{"float16", npyBytes(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", data), `"<f2"`},
		{"object", npyBytes(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }", data), `"|O"`},
		{"structured", npyBytes(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2, 3), }", data), "structured"},
		{"3-D", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 3), }", data), "3-D"},
		{"0-D", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", data[:8]), "0-D"},
		{"truncated", valid[:len(valid)-1], "truncated"},
		{"header lies", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (200000, 300000), }", data), "truncated"},
		{"huge shape", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999999999, 999999999999999999), }", data), "too large"},
		{"trailing bytes", append(append([]byte(nil), valid...), 0), "trailing"},
		{"missing key", npyBytes(1, "{'descr': '<f8', 'shape': (2, 3), }", data), "missing key"},
		{"extra key", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", data), "unexpected key"},
		{"duplicate key", npyBytes(1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}", data), "twice"},
		{"int not tuple", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6), }", data), "shape"},
		{"negative dim", npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-2, -3), }", data), "shape"},
		{"not a dict", npyBytes(1, "['descr', '<f8']", data), "not a Python dict"},
		{"text after dict", npyBytes(1, good+" x", data), "after the dict"},
		{"v3 bad utf8", badUTF8, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := npyWriteFile(t, "bad.npy", tt.file)
			for _, read := range []func() error{
				func() error { _, err := Read[float64](p); return err },
				func() error { _, err := ReadVector[float32](p); return err },
				func() error { _, err := OpenMmap[float64](p); return err },
				func() error { _, err := ReadHeader(p); return err },
			} {
				err := read()
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("got %v, want an error wrapping ErrFormat", err)
				}
				if msg := err.Error(); !strings.Contains(msg, p) || !strings.Contains(msg, tt.want) {
					t.Fatalf("error %q should name the file and contain %q", msg, tt.want)
				}
			}
			// The reader API: with the size known, the same message; with
			// it unknown, an error too (the wording may differ).
			size := int64(len(tt.file))
			for _, read := range []func(int64) error{
				func(n int64) error { _, err := ReadFrom[float64](bytes.NewReader(tt.file), n); return err },
				func(n int64) error { _, err := ReadVectorFrom[float32](bytes.NewReader(tt.file), n); return err },
			} {
				if err := read(size); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("size %d: got %v, want an error wrapping ErrFormat containing %q", size, err, tt.want)
				}
				if err := read(-1); !errors.Is(err, ErrFormat) {
					t.Fatalf("size unknown: got %v, want an error wrapping ErrFormat", err)
				}
			}
		})
	}
	if _, err := Read[float64](filepath.Join(t.TempDir(), "missing.npy")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestNpyWriterStreaming(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	full := npyRandMatrix[float64](rng, 37, 11)
	p := filepath.Join(dir, "tiles.npy")
	w, err := NewWriter[float64](p, Float32, 37, 11)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 37; i += 8 {
		if err := w.WriteRows(full.Slice(i, min(i+8, 37), 0, 11)); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("file visible before Close")
		}
	}
	if err := w.WriteRows(full.Slice(0, 1, 0, 11)); !errors.Is(err, linalg.ErrShape) {
		t.Fatalf("extra row: got %v, want ErrShape", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Read[float64](p)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got.Data {
		if v != float64(float32(full.Data[i])) {
			t.Fatalf("element %d: %v, want float32 rounding of %v", i, v, full.Data[i])
		}
	}

	// Errors: wrong width, incomplete file, bad dtype; no file and no
	// temporary file may remain.
	q := filepath.Join(dir, "partial.npy")
	w, err = NewWriter[float64](q, Float64, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRows(linalg.New[float64](2, 4)); !errors.Is(err, linalg.ErrShape) {
		t.Fatalf("wrong width: %v", err)
	}
	if err := w.WriteRows(linalg.New[float64](2, 3)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "2 of 5 rows") {
		t.Fatalf("incomplete Close: %v", err)
	}
	if _, err := NewWriter[float64](q, Dtype(2), 1, 1); err == nil {
		t.Fatal("Dtype(2) accepted")
	}
	if _, err := NewWriter[float64](q, Float64, -1, 1); err == nil {
		t.Fatal("negative rows accepted")
	}
	w, _ = NewWriter[float64](q, Float64, 1, 1)
	w.Discard()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "tiles.npy" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v, want only tiles.npy", names)
	}
}

func TestOpenNpyMmap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m := npyRandMatrix[float64](rng, 50, 31)
	p := filepath.Join(t.TempDir(), "m.npy")
	if err := Write(p, m); err != nil {
		t.Fatal(err)
	}
	mm, err := OpenMmap[float64](p)
	if err != nil {
		t.Fatal(err)
	}
	if !npySameMatrix(mm.Matrix, m) {
		t.Fatal("mapped matrix differs")
	}
	if mmapSupported != mm.Mapped() {
		t.Fatalf("Mapped() = %v on a system where mapping support is %v", mm.Mapped(), mmapSupported)
	}
	mm.Set(0, 0, 42) // copy-on-write: the file must not change
	if err := mm.Close(); err != nil {
		t.Fatal(err)
	}
	if err := mm.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	again, err := Read[float64](p)
	if err != nil || !npySameMatrix(again, m) {
		t.Fatal("writing to the mapping changed the file")
	}
	// A dtype that needs conversion falls back to reading.
	conv, err := OpenMmap[float32](p)
	if err != nil || conv.Mapped() || conv.At(3, 4) != float32(m.At(3, 4)) {
		t.Fatalf("converting open: mapped=%v err=%v", conv.Mapped(), err)
	}
	conv.Close()
	// An empty array is not mapped.
	if err := Write(p, linalg.New[float64](0, 3)); err != nil {
		t.Fatal(err)
	}
	e, err := OpenMmap[float64](p)
	if err != nil || e.Rows != 0 || e.Cols != 3 {
		t.Fatalf("empty: %v", err)
	}
	e.Close()
}

// FuzzNpyHeader decodes arbitrary bytes as a .npy file: it must never panic,
// and whatever it accepts must hold exactly the data the file carries (so
// no allocation can exceed twice the input size).
func FuzzNpyHeader(f *testing.F) {
	data := npyFloatBytes(binary.LittleEndian, []float64{1, 2, 3, 4, 5, 6})
	f.Add(npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", data))
	f.Add(npyBytes(2, "{'descr': '>f4', 'fortran_order': False, 'shape': (12,), }", data))
	f.Add(npyBytes(3, `{"descr": "<f4", "fortran_order": False, "shape": (3, 4)}`, data))
	f.Add(npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 9), }", nil))
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := readNpy[float64](bytes.NewReader(b), int64(len(b)))
		// With the size unknown the stream is accepted or refused alike.
		mu, erru := readNpy[float64](bytes.NewReader(b), -1)
		if (err == nil) != (erru == nil) || err == nil && !npySameMatrix(m, mu) {
			t.Fatalf("size known: %v; unknown: %v", err, erru)
		}
		if err != nil {
			if !errors.Is(err, ErrFormat) || !errors.Is(erru, ErrFormat) {
				t.Fatalf("errors %v, %v do not wrap ErrFormat", err, erru)
			}
			return
		}
		if 4*len(m.Data) > len(b) {
			t.Fatalf("accepted %d elements from %d bytes", len(m.Data), len(b))
		}
	})
}
