package dataset

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/svm"
)

// fakeMNIST writes a small non-canonical MNIST: train labels 0,1,2,1 and
// test labels 1,0, images of 2×2 pixels.
func fakeMNIST(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"train-images-idx3-ubyte": mnist.EncodeIDX([]uint32{4, 2, 2}, []byte{0, 0, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
		"train-labels-idx1-ubyte": mnist.EncodeIDX([]uint32{4}, []byte{0, 1, 2, 1}),
		"t10k-images-idx3-ubyte":  mnist.EncodeIDX([]uint32{2, 2, 2}, make([]byte, 8)),
		"t10k-labels-idx1-ubyte":  mnist.EncodeIDX([]uint32{2}, []byte{1, 0}),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMNIST(t *testing.T) {
	dir := fakeMNIST(t)
	var warn bytes.Buffer
	if _, err := Load("mnist01", Options{MNISTDir: dir}); err == nil || !strings.Contains(err.Error(), "--allow-noncanonical") {
		t.Errorf("non-canonical files accepted: %v", err)
	}
	_, err := Load("mnist01", Options{MNISTDir: t.TempDir(), MNISTDirFlag: "--mnist-dir"})
	if !errors.Is(err, mnist.ErrNotFound) || !strings.Contains(err.Error(), "(directory from --mnist-dir)") {
		t.Errorf("empty directory: %v", err)
	}
	opt := Options{MNISTDir: dir, AllowNonCanonical: true, Warn: &warn}
	s, err := Load("mnist01", opt)
	if err != nil || s.X.Rows != 3 || s.X.Cols != 4 || s.Source != "mnist01" || s.X.At(0, 3) != 1 {
		t.Fatalf("mnist01: %v %+v", err, s)
	}
	if n := strings.Count(warn.String(), "WARNING: "); n != 4 {
		t.Errorf("%d warnings, want one per file:\n%s", n, warn.String())
	}
	opt.First, opt.Standardize = 2, true
	s, err = Load("mnist01-train", opt)
	if err != nil || s.X.Rows != 2 || s.Source != "mnist01" || math.Abs(s.X.At(0, 0)-(0-0.1307)/0.3081) > 1e-12 || s.Y[0] != -1 {
		t.Fatalf("first 2, standardised: %v %+v", err, s)
	}
	if _, err = Load("mnist01-test", opt); err != nil {
		t.Fatal(err)
	}
	opt.First = 3
	if _, err = Load("mnist01-test", opt); err == nil || !strings.Contains(err.Error(), "only 2 points") {
		t.Errorf("first 3 of 2: %v", err)
	}
}

func writeNpy(t *testing.T, dir, name string, rows, cols int, vals ...float64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	var err error
	if rows == 0 && cols == len(vals) {
		err = npy.WriteVector(p, vals)
	} else {
		m, _ := linalg.FromSlice(rows, cols, vals)
		err = npy.Write(p, m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMessages: each way a specification can be wrong gets a message in
// the user's terms.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	x := writeNpy(t, dir, "X.npy", 2, 2, 1, 2, 3, 4)
	y := writeNpy(t, dir, "y.npy", 0, 2, 1, -1)
	y3 := writeNpy(t, dir, "y3.npy", 0, 2, 3, 1)
	yNaN := writeNpy(t, dir, "yn.npy", 0, 3, 1, 1, 1)
	v := writeNpy(t, dir, "v.npy", 0, 3, 1, 2, 3)
	empty := writeNpy(t, dir, "e.npy", 0, 2, 0, 0)
	os.WriteFile(empty, nil, 0o644)
	m0 := linalg.New[float64](0, 3)
	npy.Write(empty, m0)
	xInf := writeNpy(t, dir, "xi.npy", 1, 2, 1, 1)
	mi, _ := linalg.FromSlice(1, 2, []float64{1, math.Inf(1)})
	npy.Write(xInf, mi)
	huge := filepath.Join(dir, "huge.libsvm")
	os.WriteFile(huge, []byte("1 1073741824:1\n"), 0o644)
	small := func() (uint64, bool) { return 1 << 30, true }
	for _, tc := range []struct {
		spec string
		opt  Options
		want string
	}{
		{"", Options{}, "no data"},
		{x + ",", Options{}, "the label file after the comma is missing"},
		{"," + y, Options{}, "the input file before the comma is missing"},
		{v, Options{}, "shape [3] is not a matrix of inputs"},
		{x + "," + yNaN, Options{}, "3 labels for the 2 rows"},
		{empty, Options{}, "0 points × 3 features: no data"},
		{xInf, Options{}, "row 0, column 1 is +Inf"},
		{huge, Options{Available: small}, "only 1.0 GiB of memory is available"},
		{x, Options{First: -1}, "first -1"},
	} {
		_, err := Load(tc.spec, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q): %v; want %q", tc.spec, err, tc.want)
		}
	}
	s, err := Load(x+","+y3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckLabels(svm.MachineSVM); err == nil || !strings.Contains(err.Error(), "label 0 is 3") {
		t.Errorf("label 3 for svm: %v", err)
	}
	if err := s.CheckLabels(svm.MachineKRR); err != nil {
		t.Errorf("label 3 for krr: %v", err)
	}
	s, err = Load(x+","+y, Options{First: 1})
	if err != nil || s.X.Rows != 1 || len(s.Y) != 1 || !filepath.IsAbs(s.Source) {
		t.Errorf("first 1: %v %+v", err, s)
	}
	lib := filepath.Join(dir, "d.svm")
	os.WriteFile(lib, []byte("1 2:0.5\n-1 1:1\n"), 0o644)
	if s, err = Load(lib, Options{Dim: 4}); err != nil || s.X.Cols != 4 || s.X.At(0, 1) != 0.5 {
		t.Errorf("libsvm: %v %+v", err, s)
	}
}

// TestRealMNIST loads the paper's task from $NTKSVM_MNIST_DIR: 12,665
// training and 2,115 test points of 784 pixels. Without the data it skips,
// or fails when $CI is set.
func TestRealMNIST(t *testing.T) {
	mnist.RealDataDirForTest(t)
	tr, err := Load("mnist01", Options{})
	if err != nil {
		t.Fatal(err)
	}
	te, err := Load("mnist01-test", Options{First: 100, Standardize: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr.X.Rows != 12665 || tr.X.Cols != 784 || te.X.Rows != 100 || te.Source != "mnist01-test" {
		t.Errorf("train %d×%d, test %d×%d", tr.X.Rows, tr.X.Cols, te.X.Rows, te.X.Cols)
	}
	if err := tr.CheckLabels(svm.MachineSVM); err != nil {
		t.Error(err)
	}
}
