package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/mnist"
)

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// fakeMNIST writes a small non-canonical MNIST into a new directory: train
// labels 0,1,2,1 and test labels 1,0, images of 2×2 pixels.
func fakeMNIST(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("train-images-idx3-ubyte.gz", gzipBytes(mnist.EncodeIDX([]uint32{4, 2, 2}, make([]byte, 16))))
	write("train-labels-idx1-ubyte", mnist.EncodeIDX([]uint32{4}, []byte{0, 1, 2, 1}))
	write("t10k-images-idx3-ubyte", mnist.EncodeIDX([]uint32{2, 2, 2}, make([]byte, 8)))
	write("t10k-labels-idx1-ubyte.gz", gzipBytes(mnist.EncodeIDX([]uint32{2}, []byte{1, 0})))
	return dir
}

func TestDataInfo(t *testing.T) {
	dir := fakeMNIST(t)
	code, out, errOut := runCLI(t, "data", "info", "--mnist", dir)
	if code != 1 {
		t.Errorf("non-canonical files: exit %d, want 1", code)
	}
	for _, want := range []string{
		"MNIST directory: " + dir + " (from --mnist-dir)",
		filepath.Join(dir, "train-images-idx3-ubyte.gz"), "gzip, ", "4 images of 2×2", "2 labels", "raw, ",
		"checksum mismatch: not the canonical MNIST file",
		"per class 0:1 1:2 2:1 3:0", "paper task 0 vs 1: 3 train, 2 test",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "4 problem(s)") {
		t.Errorf("stderr: %s", errOut)
	}

	// Missing files: each is listed with the names tried, and the error
	// says how to provide the data.
	empty := t.TempDir()
	t.Setenv(mnist.EnvDir, empty)
	code, out, errOut = runCLI(t, "data", "info")
	if code != 1 || !strings.Contains(out, "(from $"+mnist.EnvDir+")") ||
		!strings.Contains(out, "t10k-labels   missing (looked for t10k-labels-idx1-ubyte, t10k-labels-idx1-ubyte.gz") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	for _, want := range []string{empty, "set " + mnist.EnvDir, "--mnist-dir DIR", "ntksvm data fetch mnist"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error lacks %q: %s", want, errOut)
		}
	}

	// A broken file is reported with its problem; the others still are.
	os.WriteFile(filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"), mnist.EncodeIDX([]uint32{3}, []byte{1, 0}), 0o644)
	code, out, _ = runCLI(t, "data", "info", "--mnist", dir)
	if code != 1 || !strings.Contains(out, "ERROR: "+filepath.Join(dir, "t10k-labels-idx1-ubyte.gz")+": invalid IDX file: truncated") ||
		!strings.Contains(out, "4 images of 2×2") {
		t.Errorf("broken file: exit %d, output:\n%s", code, out)
	}
}

func TestDataReal(t *testing.T) {
	dir := mnist.RealDataDirForTest(t)
	code, out, errOut := runCLI(t, "data", "info", "--mnist", dir)
	if code != 0 || strings.Count(out, "checksum OK") != 4 || !strings.Contains(out, "paper task 0 vs 1: 12665 train, 2115 test") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if testing.Short() {
		return
	}
	// Fetch through a local mirror serving the real files.
	s := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer s.Close()
	dst := t.TempDir()
	code, out, errOut = runCLI(t, "data", "fetch", "mnist", "--mnist", dst, "--mirror", s.URL+"/")
	if code != 0 || !strings.Contains(out, "all four files verified") || !strings.Contains(errOut, "train-images-idx3-ubyte.gz: 100%") {
		t.Errorf("fetch: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestDataFetchErrors(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	defer down.Close()
	dir := t.TempDir()
	checkRefusals(t, nil, []cliRefusal{
		{[]string{"data"}, 2, "needs a subcommand"},
		{[]string{"data", "nope"}, 2, "unknown data subcommand"},
		{[]string{"data", "fetch"}, 2, "needs the dataset name"},
		{[]string{"data", "fetch", "cifar"}, 2, "only mnist"},
		{[]string{"data", "fetch", "mnist", "--mirror", "ftp://x"}, 2, "not an http(s) URL"},
		{[]string{"data", "fetch", "mnist", "extra"}, 2, "unexpected argument"},
		{[]string{"data", "fetch", "--mnist", dir, "--mirror", down.URL, "mnist"}, 1, "could not download train-images-idx3-ubyte from any mirror"},
		{[]string{"data", "info", "stray"}, 1, "open stray: no such file"}, // data info FILE: a data file that is not there
		{[]string{"data", "info", "--mnist-dir", "x", "stray"}, 2, "unexpected argument"},
	})
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("failed fetch left %d files", len(es))
	}
}
