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

func TestOpenMNIST(t *testing.T) {
	dir := fakeMNIST(t)
	var warn bytes.Buffer
	if _, err := Open(MNIST01, Options{MNISTDir: dir}); err == nil || !strings.Contains(err.Error(), "--allow-noncanonical") {
		t.Errorf("non-canonical files accepted: %v", err)
	}
	_, err := Open(MNIST01, Options{MNISTDir: t.TempDir(), MNISTDirFlag: "--mnist-dir"})
	if !errors.Is(err, mnist.ErrNotFound) || !strings.Contains(err.Error(), "(directory from --mnist-dir)") {
		t.Errorf("empty directory: %v", err)
	}
	o := Options{MNISTDir: dir, AllowNonCanonical: true, Warn: &warn}
	s, err := Open(MNIST01, o)
	if err != nil || s.N() != 3 || s.D() != 4 || s.Ref != MNIST01 || s.X.At(0, 3) != 1 {
		t.Fatalf("mnist01: %v %+v", err, s)
	}
	if y, err := s.Targets(); err != nil || y[0] != -1 || y[1] != 1 || y[2] != 1 {
		t.Errorf("mnist01 targets %v, %v; want -1 1 1", y, err)
	}
	if n := strings.Count(warn.String(), "WARNING: "); n != 4 {
		t.Errorf("%d warnings, want one per file:\n%s", n, warn.String())
	}
	o.First, o.Standardize = 2, true
	s, err = Open("mnist01-train", o)
	if err != nil || s.N() != 2 || s.Ref != MNIST01 || math.Abs(s.X.At(0, 0)-(0-0.1307)/0.3081) > 1e-12 || s.Classes[s.Y[0]] != "-1" {
		t.Fatalf("first 2, standardised: %v %+v", err, s)
	}
	if _, err = Open(MNIST01Test, o); err != nil {
		t.Fatal(err)
	}
	o.First = 3
	if _, err = Open(MNIST01Test, o); err == nil || !strings.Contains(err.Error(), "has only 2 examples") {
		t.Errorf("first 3 of 2: %v", err)
	}
	ten, err := Open(MNIST, Options{MNISTDir: dir})
	if err != nil || ten.N() != 4 || len(ten.Classes) != 3 || ten.Ref != MNIST || ten.X.At(0, 3) != 1 {
		t.Errorf("mnist: %v %+v", err, ten)
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

// TestOpenMessages: each way a specification can be wrong gets a message
// in the user's terms, wrapping ErrData.
func TestOpenMessages(t *testing.T) {
	dir := t.TempDir()
	x := writeNpy(t, dir, "X.npy", 2, 2, 1, 2, 3, 4)
	y := writeNpy(t, dir, "y.npy", 0, 2, 1, -1)
	yNaN := writeNpy(t, dir, "yn.npy", 0, 3, 1, 1, 1)
	v := writeNpy(t, dir, "v.npy", 0, 3, 1, 2, 3)
	empty := filepath.Join(dir, "e.npy")
	npy.Write(empty, linalg.New[float64](0, 3))
	xInf := filepath.Join(dir, "xi.npy")
	mi, _ := linalg.FromSlice(1, 2, []float64{1, math.Inf(1)})
	npy.Write(xInf, mi)
	huge := filepath.Join(dir, "huge.libsvm")
	os.WriteFile(huge, []byte("1 1073741824:1\n"), 0o644)
	for _, tc := range []struct {
		spec string
		o    Options
		want string
	}{
		{"", Options{}, "no data"},
		{x + ",", Options{}, "the label file after the comma is missing"},
		{"," + y, Options{}, "the input file before the comma is missing"},
		{x + "," + y + "," + y, Options{}, "more than two files"},
		{v, Options{}, "shape [3] is not a matrix of inputs"},
		{x + "," + yNaN, Options{}, "3 labels for the 2 rows"},
		{empty, Options{}, "0 points × 3 features: no data"},
		{xInf, Options{}, "row 0, column 1 is +Inf; inputs must be finite"},
		{huge, Options{MaxBytes: 1 << 30}, "more than the 1024 MiB allowed"},
		{x, Options{First: -1}, "first -1"},
		{filepath.Join(dir, "none.csv"), Options{}, "no such file"},
		{dir, Options{}, "is not a regular file"},
	} {
		_, err := Open(tc.spec, tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q): %v; want %q", tc.spec, err, tc.want)
		}
	}
	s, err := Open(x+","+y, Options{First: 1})
	if err != nil || s.N() != 1 || len(s.Y) != 1 || s.Ref != x {
		t.Errorf("first 1: %v %+v", err, s)
	}
	if s, err = Open(x, Options{}); err != nil || s.Labelled() || s.Ref != x {
		t.Errorf("X.npy alone: %v %+v", err, s)
	}
	lib := filepath.Join(dir, "d.svm")
	os.WriteFile(lib, []byte("+1 2:0.5\n-1 1:1\n"), 0o644)
	if s, err = Open(lib, Options{Dim: 4}); err != nil || s.D() != 4 || s.X.At(0, 1) != 0.5 || s.Ref != lib {
		t.Errorf("libsvm: %v %+v", err, s)
	}
	if _, err = Open(lib, Options{Dim: 1}); err == nil || !strings.Contains(err.Error(), "feature index 2 exceeds the dimension 1") {
		t.Errorf("libsvm wider than Dim: %v", err)
	}
	txt := filepath.Join(dir, "d.txt")
	os.WriteFile(txt, []byte("+1 2:0.5\n"), 0o644)
	if s, err = Open("libsvm:"+txt, Options{}); err != nil || s.Ref != "libsvm:"+txt {
		t.Errorf("libsvm: prefix: %v %+v", err, s)
	}
}

// TestTasks: the labels of a binary task and of regression, from class
// names, numbers of any spelling, or more classes.
func TestTasks(t *testing.T) {
	x := linalg.New[float64](5, 1)
	iris := FromLabels(x, []string{"setosa", "versicolor", "virginica", "setosa", "virginica"})
	iris.Name = "iris"
	if _, err := iris.PositiveClass(""); !errors.As(err, new(*ClassesError)) || !strings.Contains(err.Error(), `iris has 3 classes ("setosa", "versicolor", "virginica")`) {
		t.Errorf("three classes: %v", err)
	}
	if _, err := iris.PositiveClass("rose"); err == nil || !strings.Contains(err.Error(), `no class "rose"`) {
		t.Errorf("unknown class: %v", err)
	}
	if y := iris.Binary("setosa"); !equal(y, []float64{1, -1, -1, 1, -1}) {
		t.Errorf("setosa against the rest: %v", y)
	}
	two, err := iris.KeepClasses([]string{"virginica", "setosa"})
	if err != nil || two.N() != 4 || two.Ref != "" {
		t.Fatalf("keep two: %v %+v", err, two)
	}
	if pos, err := two.PositiveClass(""); err != nil || pos != "virginica" || !equal(two.Binary(pos), []float64{-1, 1, -1, 1}) {
		t.Errorf("two classes: %q %v", pos, err)
	}
	if _, err := iris.Targets(); err == nil || !strings.Contains(err.Error(), `label "setosa" of example 0 is not a finite number`) {
		t.Errorf("targets of names: %v", err)
	}
	num := FromLabels(linalg.New[float64](4, 1), []string{"+1", "-1", "0.5", "-1"})
	if y, err := num.Targets(); err != nil || !equal(y, []float64{1, -1, 0.5, -1}) {
		t.Errorf("targets %v, %v", y, err)
	}
	pm := FromLabels(linalg.New[float64](3, 1), []string{"+1", "-1", "+1"})
	if pos, err := pm.PositiveClass(""); err != nil || !equal(pm.Binary(pos), []float64{1, -1, 1}) || !SameClass(pos, "1") {
		t.Errorf("±1 labels: %q %v", pos, err)
	}
	one := FromLabels(linalg.New[float64](2, 1), []string{"0", "0"})
	if pos, err := one.PositiveClass(""); err != nil || !equal(one.Binary(pos), []float64{-1, -1}) {
		t.Errorf("one class 0: %q %v", pos, err)
	}
}

func equal(a, b []float64) bool {
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

// TestRealMNIST opens the paper's task from $NTKSVM_MNIST_DIR: 12,665
// training and 2,115 test points of 784 pixels. Without the data it skips,
// or fails when $CI is set.
func TestRealMNIST(t *testing.T) {
	mnist.RealDataDirForTest(t)
	tr, err := Open(MNIST01, Options{})
	if err != nil {
		t.Fatal(err)
	}
	te, err := Open(MNIST01Test, Options{First: 100, Standardize: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr.N() != 12665 || tr.D() != 784 || te.N() != 100 || te.Ref != MNIST01Test {
		t.Errorf("train %d×%d, test %d×%d", tr.N(), tr.D(), te.N(), te.D())
	}
	if pos, err := tr.PositiveClass(""); err != nil || pos != "1" {
		t.Errorf("positive class %q, %v; want 1", pos, err)
	}
}
