package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/mnist"
)

// TestSmallerFlagDefects (issue, smaller defects): flags that were
// accepted, silently replaced or named wrongly are refused with a message
// naming the flag; an estimate too long for a Duration is printed in
// years, not as a negative time; --mem-cap's help says what 0 means.
func TestSmallerFlagDefects(t *testing.T) {
	checkBinaryRefusals(t, []binaryRefusal{
		{"genbound --delta 0", []string{"genbound", "--delta", "0", "--out", t.TempDir()}, 2, "--delta 0: want 0 < δ < 1"},
		{"genbound --delta 1", []string{"genbound", "--delta", "1", "--out", t.TempDir()}, 2, "--delta 1: want 0 < δ < 1"},
		{"certify --threads -1", []string{"certify", "--model", "m", "--threads", "-1"}, 2, "--threads -1: want ≥ 0"},
		{"equiv --checkpoint-every -5", []string{"equiv", "--checkpoint-every", "-5"}, 2, "--checkpoint-every -5: want ≥ 0"},
	})
	if _, _, stderr := runBinary(t, []string{"equiv", "--checkpoint-every", "-5"}); strings.Contains(stderr, "--threads") {
		t.Errorf("--checkpoint-every -5 names --threads: %q", stderr)
	}
	if _, _, stderr := runBinary(t, []string{"kernel", "-h"}); !strings.Contains(stderr, "0: no cap") {
		t.Errorf("kernel -h does not say what --mem-cap 0 means:\n%s", stderr)
	}
	data := fakeMNISTSized(t, 40, 10, 5, 3)
	code, _, stderr := runBinary(t, []string{"equiv", "--mnist-dir", data, "--allow-noncanonical", "--n-train", "30", "--n-test", "10",
		"--widths", "16", "--estimate", "--steps", "9223372036854775807", "--out", t.TempDir()})
	if code != 0 || !strings.Contains(stderr, "years on this machine") || strings.Contains(stderr, "about -") {
		t.Errorf("--estimate --steps 2⁶³−1: exit %d, stderr %q", code, stderr)
	}
}

// TestModelKernelTypeChecked (issue, smaller defects): a model whose
// kernel type is edited to float16 (checksum recomputed) is refused, not
// read as float64.
func TestModelKernelTypeChecked(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 20, 3, 41)
	model := filepath.Join(dir, "m")
	if code, _, stderr := runBinary(t, []string{"train", "--machine", "krr", "--data", data, "--out", model}); code != 0 {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(model)
	edited := bytes.Replace(b, []byte(`"type":"float64"`), []byte(`"type":"float16"`), 1)
	if bytes.Equal(edited, b) {
		t.Fatalf("no kernel type in the model header: %.300q", b)
	}
	sum := sha256.Sum256(edited[20 : len(edited)-32]) // the payload between the fixed head and the checksum
	copy(edited[len(edited)-32:], sum[:])
	os.WriteFile(model, edited, 0o644)
	code, _, stderr := runBinary(t, []string{"predict", "--model", model, "--data", data})
	if code != 1 || !strings.Contains(stderr, `kernel type "float16": want float32 or float64`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestOutDirLock (issue, smaller defects): a second equiv run into the
// --out of a running one is refused, naming the process that holds it.
func TestOutDirLock(t *testing.T) {
	data := fakeMNISTSized(t, 40, 10, 5, 4)
	out := t.TempDir()
	args := []string{"equiv", "--mnist-dir", data, "--allow-noncanonical", "--n-train", "30", "--n-test", "10",
		"--widths", "16", "--steps", "5000000", "--checkpoint-every", "-1", "--out", out}
	first := binaryCmd(args)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		first.Process.Signal(syscall.SIGINT)
		first.Wait()
	}()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(out, "config.json")); err == nil {
			break
		}
	}
	code, _, stderr := runBinary(t, args)
	want := "is locked by pid " + strconv.Itoa(first.Process.Pid)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("second run: exit %d, stderr %q; want exit 2 and %q", code, stderr, want)
	}
}

// TestReaderMessages (issue, smaller defects): a .npy shape of 2⁶² rows,
// a labels file that is an images file, and a gzip stream corrupt after
// its data each get a message saying what is wrong.
func TestReaderMessages(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.npy")
	os.WriteFile(huge, npyHeader("(4611686018427387904, 2)"), 0o644)
	swapped := fakeMNISTSized(t, 4, 2, 2, 5)
	imgs, _ := os.ReadFile(filepath.Join(swapped, "train-images-idx3-ubyte"))
	os.WriteFile(filepath.Join(swapped, "train-labels-idx1-ubyte"), imgs, 0o644)
	corrupt := fakeMNISTSized(t, 4, 2, 2, 6)
	labels := mnist.EncodeIDX([]uint32{4}, []byte{0, 1, 0, 1})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(append(labels, 1, 2, 3, 4, 5)) // five bytes past the data …
	zw.Close()
	g := gz.Bytes()
	g[len(g)-8] ^= 0xff // … and a damaged checksum
	os.Remove(filepath.Join(corrupt, "train-labels-idx1-ubyte"))
	os.WriteFile(filepath.Join(corrupt, "train-labels-idx1-ubyte.gz"), g, 0o644)
	k := filepath.Join(dir, "K.npy")
	checkBinaryRefusals(t, []binaryRefusal{
		{"shape of 2⁶² rows", []string{"kernel", "--data", huge, "--out", k}, 1, "dimension 4611686018427387904 is larger than any array can be"},
		{"labels file with the images' magic", []string{"kernel", "--data", "mnist01", "--mnist-dir", swapped, "--allow-noncanonical", "--out", k}, 1,
			"magic number 0x00000803 has 3 dimensions (that of an image file); a label file has 1"},
		{"corrupt gzip after the data", []string{"kernel", "--data", "mnist01", "--mnist-dir", corrupt, "--allow-noncanonical", "--out", k}, 1,
			"corrupt gzip stream"},
	})
}
