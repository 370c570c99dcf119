package mnist

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// idxBytes is EncodeIDX with type code typ (0x08 is EncodeIDX's own).
func idxBytes(typ byte, dims []uint32, data []byte) []byte {
	b := EncodeIDX(dims, data)
	b[2] = typ
	return b
}

// gz compresses b.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// seq returns n bytes 0, 1, 2, … (mod 256).
func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestRead(t *testing.T) {
	img := idxBytes(0x08, []uint32{3, 4, 5}, seq(60))
	lbl := idxBytes(0x08, []uint32{6}, []byte{0, 1, 2, 9, 0, 1})
	corruptCRC := gz(img)
	corruptCRC[len(corruptCRC)-8] ^= 0xff // the CRC-32 in the gzip trailer
	tests := []struct {
		name    string
		in      []byte
		wantErr string // substring of the error; "" means success
		dims    []int
		gzip    bool
	}{
		{name: "images raw", in: img, dims: []int{3, 4, 5}},
		{name: "images gzip", in: gz(img), dims: []int{3, 4, 5}, gzip: true},
		{name: "labels raw", in: lbl, dims: []int{6}},
		{name: "labels gzip", in: gz(lbl), dims: []int{6}, gzip: true},
		{name: "empty dimension", in: idxBytes(0x08, []uint32{0, 28, 28}, nil), dims: []int{0, 28, 28}},
		{name: "gzip of two members", in: append(gz(img[:10]), gz(img[10:])...), dims: []int{3, 4, 5}, gzip: true},
		{name: "empty file", in: nil, wantErr: "too short for the 4-byte magic"},
		{name: "short magic", in: []byte{0, 0, 8}, wantErr: "too short for the 4-byte magic"},
		{name: "gzip of nothing", in: gz(nil), wantErr: "too short for the 4-byte magic"},
		{name: "bad magic", in: append([]byte{0x12, 0x34}, img[2:]...), wantErr: "bad magic number 0x12340803"},
		{name: "float type", in: idxBytes(0x0D, []uint32{3}, make([]byte, 12)), wantErr: "type code 0x0D (32-bit float) is not supported"},
		{name: "unknown type", in: idxBytes(0x07, []uint32{3}, make([]byte, 3)), wantErr: "unknown type code 0x07"},
		{name: "zero dimensions", in: idxBytes(0x08, nil, nil), wantErr: "0 dimensions"},
		{name: "too many dimensions", in: idxBytes(0x08, make([]uint32, 17), nil), wantErr: "17 dimensions"},
		{name: "truncated sizes", in: idxBytes(0x08, []uint32{3, 4, 5}, nil)[:10], wantErr: "truncated header"},
		{name: "truncated data raw", in: img[:len(img)-1], wantErr: "truncated"},
		{name: "truncated data gzip", in: gz(img[:len(img)-1]), wantErr: "truncated"},
		{name: "gzip cut short", in: gz(img)[:30], wantErr: "truncated"},
		{name: "gzip without trailer", in: gz(img)[:len(gz(img))-4], wantErr: "cut short before its checksum trailer"},
		{name: "gzip bad checksum", in: corruptCRC, wantErr: "corrupt gzip stream"},
		{name: "lying header raw", in: idxBytes(0x08, []uint32{1 << 31, 28, 28}, seq(100)), wantErr: "truncated"},
		{name: "lying header gzip", in: gz(idxBytes(0x08, []uint32{1 << 31, 28, 28}, seq(100))), wantErr: "truncated"},
		{name: "overflowing sizes", in: idxBytes(0x08, []uint32{1 << 31, 1 << 31, 1 << 31}, nil), wantErr: "more than"},
		{name: "trailing bytes raw", in: append(bytes.Clone(img), 1, 2, 3), wantErr: "3 trailing bytes"},
		{name: "trailing bytes gzip", in: gz(append(bytes.Clone(img), 1, 2, 3)), wantErr: "3 trailing bytes"},
		{name: "gzip and stray bytes", in: append(gz(img), 0, 0, 0), wantErr: "followed by stray bytes"},
		{name: "gzip and zero padding", in: append(gz(img), make([]byte, 20)...), wantErr: "corrupt gzip stream: gzip: invalid header"},
	}
	for _, tc := range tests {
		for _, size := range []int64{int64(len(tc.in)), -1} {
			f, err := Read(bytes.NewReader(tc.in), size)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrFormat) {
					t.Errorf("%s (size %d): error %v, want one wrapping ErrFormat containing %q", tc.name, size, err, tc.wantErr)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s (size %d): %v", tc.name, size, err)
				continue
			}
			if !equalInts(f.Dims, tc.dims) || f.Gzip != tc.gzip {
				t.Errorf("%s (size %d): dims %v gzip %v, want %v %v", tc.name, size, f.Dims, f.Gzip, tc.dims, tc.gzip)
			}
			if n := product(tc.dims); len(f.Data) != n {
				t.Errorf("%s: %d data bytes, want %d", tc.name, len(f.Data), n)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func product(d []int) int {
	n := 1
	for _, v := range d {
		n *= v
	}
	return n
}

// TestReadDataAndChecksum checks the pixels and that the checksum is of the
// uncompressed content, the same for raw and gzip.
func TestReadDataAndChecksum(t *testing.T) {
	raw := idxBytes(0x08, []uint32{2, 3, 3}, seq(18))
	a, err := Read(bytes.NewReader(raw), -1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(bytes.NewReader(gz(raw)), -1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Data, seq(18)) || !bytes.Equal(b.Data, seq(18)) {
		t.Errorf("data %v / %v, want %v", a.Data, b.Data, seq(18))
	}
	if a.SHA256 != b.SHA256 {
		t.Errorf("raw and gzip checksums differ: %x, %x", a.SHA256, b.SHA256)
	}
	c, _ := Read(bytes.NewReader(idxBytes(0x08, []uint32{2, 3, 3}, seq(19)[1:])), -1)
	if c.SHA256 == a.SHA256 {
		t.Error("different content, same checksum")
	}
}

// TestLyingHeaderAllocation checks that a tiny file whose header claims 2³¹
// images fails without allocating anywhere near what the header claims.
func TestLyingHeaderAllocation(t *testing.T) {
	lie := idxBytes(0x08, []uint32{1 << 31, 28, 28}, seq(1000))
	for _, tc := range []struct {
		name string
		in   []byte
		size int64
	}{
		{"raw, size known", lie, int64(len(lie))},
		{"raw, size unknown", lie, -1},
		{"gzip", gz(lie), -1},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Read(bytes.NewReader(tc.in), tc.size)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want ErrFormat", tc.name, err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte input", tc.name, d, len(tc.in))
		}
	}
}

// writeFile writes b to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadImagesLabels(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		file    string
		data    []byte
		labels  bool
		wantErr string
		status  Checksum
	}{
		{name: "images", file: "x-images.idx", data: idxBytes(8, []uint32{2, 2, 2}, seq(8)), status: ChecksumUnknown},
		{name: "labels", file: "x-labels.idx.gz", data: gz(idxBytes(8, []uint32{3}, []byte{9, 0, 5})), labels: true, status: ChecksumUnknown},
		{name: "canonical name, other content", file: "train-images-idx3-ubyte", data: idxBytes(8, []uint32{1, 1, 1}, []byte{7}), status: ChecksumMismatch},
		{name: "canonical variant name gz", file: "t10k-labels.idx1-ubyte.gz", data: gz(idxBytes(8, []uint32{1}, []byte{7})), labels: true, status: ChecksumMismatch},
		{name: "label out of range", file: "l1", data: idxBytes(8, []uint32{3}, []byte{1, 10, 2}), labels: true, wantErr: "label 1 (of 3) is 10"},
		{name: "labels with 3 dims", file: "l2", data: idxBytes(8, []uint32{1, 1, 1}, []byte{1}), labels: true, wantErr: "label file has 1"},
		{name: "images with 1 dim", file: "i1", data: idxBytes(8, []uint32{4}, seq(4)), wantErr: "image file has 3"},
		{name: "images of 0 columns", file: "i2", data: idxBytes(8, []uint32{4, 28, 0}, nil), wantErr: "images of 28×0 pixels"},
		{name: "truncated images", file: "i3.gz", data: gz(idxBytes(8, []uint32{4, 2, 2}, seq(15))), wantErr: "truncated"},
	}
	for _, tc := range tests {
		p := writeFile(t, dir, tc.file, tc.data)
		var info *FileInfo
		var err error
		if tc.labels {
			var l *Labels
			if l, err = ReadLabels(p); err == nil {
				info = &l.Info
			}
		} else {
			var im *Images
			if im, err = ReadImages(p); err == nil {
				info = &im.Info
			}
		}
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %v, want one naming %s and containing %q", tc.name, err, p, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if info.Checksum != tc.status || info.Path != p || info.Size != int64(len(tc.data)) {
			t.Errorf("%s: status %v path %s size %d; want %v %s %d", tc.name, info.Checksum, info.Path, info.Size, tc.status, p, len(tc.data))
		}
		if got := info.Problem(); (got == "") != (tc.status == ChecksumOK) || tc.status == ChecksumMismatch && !strings.Contains(got, "not the canonical MNIST file") {
			t.Errorf("%s: Problem() = %q", tc.name, got)
		}
	}
}

// writeSplit writes an images and a labels file for split s into dir.
func writeSplit(t *testing.T, dir string, s Split, labels []byte, gzipped bool) {
	t.Helper()
	fi, fl := s.Files()
	im := idxBytes(8, []uint32{uint32(len(labels)), 2, 2}, seq(4*len(labels)))
	lb := idxBytes(8, []uint32{uint32(len(labels))}, labels)
	ni, nl := fi.Name(), fl.Name()
	if gzipped {
		im, lb, ni, nl = gz(im), gz(lb), ni+".gz", nl+".gz"
	}
	writeFile(t, dir, ni, im)
	writeFile(t, dir, nl, lb)
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	writeSplit(t, dir, Train, []byte{0, 1, 2, 1, 0}, true)
	writeSplit(t, dir, Test, []byte{3, 1}, false)
	train, test, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 5 || test.Len() != 2 || train.Counts() != [10]int{2, 2, 1} || !train.Images.Info.Gzip || test.Images.Info.Gzip {
		t.Errorf("train %d %v gz %v, test %d gz %v", train.Len(), train.Counts(), train.Images.Info.Gzip, test.Len(), test.Images.Info.Gzip)
	}
	if err := train.Verify(); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "train-images-idx3-ubyte.gz") {
		t.Errorf("Verify: %v, want a checksum error naming the files", err)
	}
	if _, _, err := LoadBinary[float64](dir, 0, 1, Options{}); !errors.Is(err, ErrChecksum) {
		t.Errorf("LoadBinary of non-canonical files: %v, want ErrChecksum", err)
	}
	tr, te, err := LoadBinary[float32](dir, 0, 1, Options{AllowNonCanonical: true})
	if err != nil || tr.X.Rows != 4 || te.X.Rows != 1 {
		t.Errorf("LoadBinary with AllowNonCanonical: %v", err)
	}

	// The dotted file-name variant is found too.
	dir2 := t.TempDir()
	writeFile(t, dir2, "t10k-images.idx3-ubyte", idxBytes(8, []uint32{1, 1, 1}, []byte{0}))
	writeFile(t, dir2, "t10k-labels.idx1-ubyte.gz", gz(idxBytes(8, []uint32{1}, []byte{0})))
	if s, err := LoadSplit(dir2, Test); err != nil || s.Len() != 1 {
		t.Errorf("variant names: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	_, _, err := Load(empty)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || !slices.Equal(nf.Missing, Files) || nf.Dir != empty {
		t.Fatalf("empty dir: %v, want a NotFoundError for all four files", err)
	}
	for _, want := range []string{"missing train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte", ".gz", empty, EnvDir, "--mnist-dir DIR", "ntksvm data fetch mnist"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("not-found error lacks %q: %v", want, err)
		}
	}

	mismatch := t.TempDir()
	writeSplit(t, mismatch, Test, []byte{1, 2, 3}, false)
	writeFile(t, mismatch, TestLabels.Name(), idxBytes(8, []uint32{2}, []byte{1, 2}))
	if _, err := LoadSplit(mismatch, Test); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "3 images but") {
		t.Errorf("count mismatch: %v", err)
	}

	bad := t.TempDir()
	writeSplit(t, bad, Train, []byte{1, 2}, false)
	writeFile(t, bad, TrainLabels.Name(), idxBytes(8, []uint32{2}, []byte{1, 200}))
	if _, err := LoadSplit(bad, Train); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "is 200") {
		t.Errorf("label out of range: %v", err)
	}
}

func TestLocate(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux and the BSDs
	t.Setenv("HOME", cache)
	t.Setenv(EnvDir, "/from/env")
	if d, s, err := Locate("/from/flag"); err != nil || d != "/from/flag" || s != SourceFlag {
		t.Errorf("flag: %q %q %v", d, s, err)
	}
	if d, s, err := Locate(""); err != nil || d != "/from/env" || s != SourceEnv {
		t.Errorf("env: %q %q %v", d, s, err)
	}
	t.Setenv(EnvDir, "")
	d, s, err := Locate("")
	want, _ := os.UserCacheDir()
	if err != nil || d != filepath.Join(want, "ntksvm", "mnist") || s != SourceCache {
		t.Errorf("cache: %q %q %v", d, s, err)
	}
}

func FuzzIDX(f *testing.F) {
	img := idxBytes(0x08, []uint32{2, 3, 3}, seq(18))
	for _, b := range [][]byte{
		img, gz(img), img[:10], append(bytes.Clone(img), 0),
		idxBytes(0x08, []uint32{1 << 31, 28, 28}, seq(50)),
		gz(idxBytes(0x08, []uint32{1 << 31, 28, 28}, seq(50))),
		idxBytes(0x0D, []uint32{1}, seq(4)), idxBytes(0x08, []uint32{4}, []byte{1, 2, 3, 4}),
	} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		known, errKnown := Read(bytes.NewReader(in), int64(len(in)))
		unknown, errUnknown := Read(bytes.NewReader(in), -1)
		if (errKnown == nil) != (errUnknown == nil) {
			t.Fatalf("size known: %v; size unknown: %v", errKnown, errUnknown)
		}
		for _, err := range []error{errKnown, errUnknown} {
			if err != nil && !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
		}
		if errKnown != nil {
			return
		}
		for _, g := range []*IDX{known, unknown} {
			if len(g.Data) != product(g.Dims) {
				t.Fatalf("dims %v but %d data bytes", g.Dims, len(g.Data))
			}
			if !g.Gzip && 4+4*len(g.Dims)+len(g.Data) != len(in) {
				t.Fatalf("raw input of %d bytes gave dims %v", len(in), g.Dims)
			}
		}
		if known.SHA256 != unknown.SHA256 || !bytes.Equal(known.Data, unknown.Data) {
			t.Fatal("the size hint changed the result")
		}
	})
}
