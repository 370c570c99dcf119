package main

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npyHeader returns the preamble and header of a version 1.0 .npy file of
// float64 with the given shape (a Python tuple), padded to 64 bytes.
func npyHeader(shape string) []byte {
	h := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", shape)
	pad := 64 - (10+len(h)+1)%64
	h += strings.Repeat(" ", pad%64) + "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = append(b, byte(len(h)), byte(len(h)>>8))
	return append(b, h...)
}

// sparseNpy writes a .npy whose header declares shape with elems float64
// values, as a sparse file of the full size (no disk blocks for the data).
func sparseNpy(t *testing.T, path, shape string, elems int64) {
	t.Helper()
	h := npyHeader(shape)
	if err := os.WriteFile(path, h, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(h))+8*elems); err != nil {
		t.Fatal(err)
	}
}

// limited returns the prefix that runs the command under RLIMIT_AS of
// bytes (prlimit), or nil when prlimit is missing.
func limited(bytes string) []string {
	if _, err := exec.LookPath("prlimit"); err != nil {
		return nil
	}
	return []string{"prlimit", "--as=" + bytes}
}

// TestMemoryRefusedUpFront (issue defect 2): allocations implied by a file
// or a flag are checked against the memory available (under RLIMIT_AS
// where prlimit exists) before they are made, and the refusal names what
// they need: train's Gram, a labels file longer than X (refused before
// either is read), an .npz member and a weights directory declaring tens
// of GiB. Each exits 1 quickly, never with the runtime's out-of-memory
// crash (exit 2 and a goroutine dump).
func TestMemoryRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	// 60000×10 inputs: 4.8 MB that imply a 28.8 GB Gram.
	_, _, data := svmTestData(t, dir, 60000, 10, 31)
	small := t.TempDir()
	_, _, smallData := svmTestData(t, small, 30, 4, 32)
	xSmall := strings.Split(smallData, ",")[0]
	bigY := filepath.Join(dir, "ybig.npy")
	sparseNpy(t, bigY, "(1000000000,)", 1_000_000_000) // 8 GB of labels
	netDir := filepath.Join(dir, "net")
	os.Mkdir(netDir, 0o755)
	sparseNpy(t, filepath.Join(netDir, "layer0.weight.npy"), "(65536, 65536)", 65536*65536) // 32 GiB
	npz := filepath.Join(dir, "net.npz")
	writeLyingNpz(t, npz, "layer0.weight.npy", npyHeader("(92682, 92682)"), 92682*92682*8) // 64 GiB declared
	model := filepath.Join(dir, "m.model")
	prefix := limited("4000000000")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"train Gram", []string{"train", "--machine", "krr", "--data", data, "--out", model}, "the Gram 60000×60000 float64 26.8 GiB"},
		{"train Gram float32", []string{"train", "--data", data, "--out", model, "--precision", "float32"}, "the Gram 60000×60000 float32 13.4 GiB"},
		{"labels longer than X", []string{"train", "--data", xSmall + "," + bigY, "--out", model}, "has 1000000000 labels for the 30 rows"},
		{"weights directory", []string{"certify", "--net", netDir, "--f0", "none", "--data", smallData}, "needs 32.0 GiB"},
		{".npz member", []string{"certify", "--net", npz, "--f0", "none", "--data", smallData}, "needs 64.0 GiB"},
	} {
		t0 := time.Now()
		code, _, stderr := runBinary(t, tc.args, prefix...)
		if code != 1 || !strings.Contains(stderr, tc.want) || time.Since(t0) > 20*time.Second {
			t.Errorf("%s: exit %d after %v, stderr %q; want exit 1 naming %q", tc.name, code, time.Since(t0), stderr, tc.want)
		}
	}
	checkNoOutput(t, model)
}

// writeLyingNpz writes a .npz whose member name holds only header but
// whose zip directory declares size uncompressed bytes, as a deflate bomb
// of that size would.
func writeLyingNpz(t *testing.T, path, name string, header []byte, size uint64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, CompressedSize64: uint64(len(header)),
		UncompressedSize64: uint64(len(header)) + size})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(header)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
