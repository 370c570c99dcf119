package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	labelled "github.com/ntksvm/ntksvm/svm/dataset"
	"github.com/ntksvm/ntksvm/svm/train"
)

// svmTestData writes n separable points in d dimensions with ±1 labels as
// X.npy and y.npy under dir and returns them with the "--data" spec.
func svmTestData(t *testing.T, dir string, n, d int, seed uint64) (linalg.Matrix[float64], []float64, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	x := linalg.New[float64](n, d)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(1 - 2*(i%2))
		for j := range d {
			x.Set(i, j, rng.Float64())
		}
		x.Set(i, 0, x.At(i, 0)+0.8*y[i]) // the first feature carries the label
	}
	xp, yp := filepath.Join(dir, "X.npy"), filepath.Join(dir, "y.npy")
	if err := npy.Write(xp, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteVector(yp, y); err != nil {
		t.Fatal(err)
	}
	return x, y, xp + "," + yp
}

// TestTrainPredictRoundTrip trains every machine with each solver on a
// small set, then predicts the training set from the model file: the
// printed training report must match.
func TestTrainPredictRoundTrip(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 40, 5, 1)
	for _, tc := range []struct{ name string }{
		{"--machine svm --solver exact --bias --lambda 0.1"},
		{"--machine svm --solver exact --lambda 0.1 --embed --precision float32"},
		{"--machine svm2 --solver exact --lambda 0.5 --objective mean"},
		{"--machine svr --solver exact --epsilon 0.1 --lambda 0.5 --bias"},
		{"--machine krr --solver exact --lambda 0.01"},
		{"--machine logistic --solver subgradient --lambda 0.01 --lr 1 --steps 200"},
		{"--machine svm --solver subgradient --lambda 0.01 --objective mean --batch 8 --epochs 5 --decay exact --seed 3"},
	} {
		model := filepath.Join(dir, "m")
		args := append([]string{"train", "--data", data, "--out", model}, strings.Fields(tc.name)...)
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		trainLine, _, _ := strings.Cut(out, "\n")
		pred := filepath.Join(dir, "pred.npy")
		code, out, errOut = runCLI(t, "predict", "--model", model, "--data", data, "--out", pred)
		if code != 0 {
			t.Fatalf("%s: predict exit %d: %s", tc.name, code, errOut)
		}
		got := strings.TrimSpace(strings.SplitN(out, ":", 2)[1])
		want := strings.TrimSpace(strings.SplitN(trainLine, ":", 2)[1])
		// The same accuracy, and the same loss up to the rounding of the
		// cross kernel against the Gram (float32: ~1e-7 relative).
		ga, gl := svmParseReport(t, got)
		wa, wl := svmParseReport(t, want)
		if ga != wa || math.Abs(gl-wl) > 1e-4 {
			t.Errorf("%s: predict says %q, train said %q", tc.name, got, want)
		}
		if !strings.Contains(want, "accuracy 100.0000%") && !strings.Contains(tc.name, "svr") && !strings.Contains(tc.name, "krr") {
			t.Errorf("%s: separable data not fitted: %s", tc.name, want)
		}
		p, err := npy.ReadVector[float64](pred)
		if err != nil || len(p) != 40 {
			t.Fatalf("%s: predictions: %d, %v", tc.name, len(p), err)
		}
	}
}

// TestTrainExactTestReport checks the test report of the exact solvers,
// which reload the training inputs after the fit and compute the test
// kernel a few rows at a time, against "ntksvm predict" on the same data
// (one block of rows): the same accuracy and loss.
func TestTrainExactTestReport(t *testing.T) {
	defer func(b int) { testBlockBytes = b }(testBlockBytes)
	testBlockBytes = 3 * 8 * 40 // three rows of the 40-point training kernel
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 40, 5, 3)
	testDir := filepath.Join(dir, "test")
	if err := os.Mkdir(testDir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, test := svmTestData(t, testDir, 17, 5, 4)
	for _, tc := range []struct{ name string }{
		{"--machine svm --lambda 0.1 --bias"},
		{"--machine krr --lambda 0.01"},
		{"--machine svr --lambda 0.5 --embed"},
		{"--machine svm2 --lambda 0.5 --precision float32"},
		{"--machine svm --lambda 0.1 --kernel nngp --depth 2"},
	} {
		model := filepath.Join(dir, "m")
		args := append([]string{"train", "--data", data, "--test", test, "--out", model}, strings.Fields(tc.name)...)
		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		_, testLine, ok := strings.Cut(out, "\ntest: ")
		if !ok {
			t.Fatalf("%s: no test report in %q", tc.name, out)
		}
		code, out, errOut = runCLI(t, "predict", "--model", model, "--data", test, "--out", filepath.Join(dir, "p.npy"))
		if code != 0 {
			t.Fatalf("%s: predict exit %d: %s", tc.name, code, errOut)
		}
		ga, gl := svmParseReport(t, strings.SplitN(out, ":", 2)[1])
		wa, wl := svmParseReport(t, testLine)
		if ga != wa || math.Abs(gl-wl) > 1e-12*max(1, math.Abs(wl)) {
			t.Errorf("%s: train's test report %q, predict %q", tc.name, testLine, out)
		}
	}
}

// svmParseReport returns the accuracy and the loss of a report line.
func svmParseReport(t *testing.T, s string) (acc string, loss float64) {
	t.Helper()
	f := strings.Fields(strings.NewReplacer(",", " ").Replace(s))
	for i, w := range f {
		if w == "accuracy" {
			acc = f[i+1]
		}
		if w == "loss" {
			if _, err := fmt.Sscan(f[i+1], &loss); err != nil {
				t.Fatalf("report %q: %v", s, err)
			}
		}
	}
	return acc, loss
}

// TestTrainExactMatchesPackage checks the model's α against svm.SolveDual
// on the same NTK Gram, and the exported precomputed kernel against ntk.
func TestTrainExactMatchesPackage(t *testing.T) {
	dir := t.TempDir()
	x, y, data := svmTestData(t, dir, 30, 4, 2)
	model, export := filepath.Join(dir, "m"), filepath.Join(dir, "k.libsvm")
	code, _, errOut := runCLI(t, "train", "--data", data, "--out", model, "--lambda", "0.2", "--bias", "--gap", "1e-9",
		"--depth", "2", "--export-libsvm", export)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	k, err := ntk.Gram(t.Context(), ntk.DefaultSpec(2), x, ntk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := svm.SolveDual(t.Context(), svm.NewDense(k), y, svm.DualConfig{Loss: svm.Hinge, Lambda: 0.2, Bias: true, Tol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(model)
	m, err := svm.ReadModel(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range m.Alpha {
		if math.Abs(a-r.Machine.Alpha[i]) > 1e-9 {
			t.Fatalf("α[%d] = %g, package %g", i, a, r.Machine.Alpha[i])
		}
	}
	if m.Kernel.Depth != 2 || !m.HasBias || m.Train.N != 30 || m.Train.SHA256 != svm.InputsSHA256(x) {
		t.Errorf("model header %+v", m)
	}
	ef, _ := os.Open(export)
	defer ef.Close()
	ey, ek, err := svm.ReadPrecomputed(ef, export)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if ey[i] != y[i] {
			t.Fatalf("exported label %d", i)
		}
		for j := range 30 {
			if ek.At(i, j) != k.At(i, j) {
				t.Fatalf("exported K(%d,%d) = %v, want %v", i, j, ek.At(i, j), k.At(i, j))
			}
		}
	}
}

func TestTrainSubgradientLog(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 24, 3, 3)
	logFile := filepath.Join(dir, "log.csv")
	code, _, errOut := runCLI(t, "train", "--data", data, "--test", data, "--out", filepath.Join(dir, "m"), "--solver", "subgradient",
		"--lambda", "0.001", "--objective", "mean", "--batch", "5", "--epochs", "10", "--log-count", "20", "--log", logFile,
		"--track-train", "0,5", "--track-test", "23")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := train.LogSteps(50, 20)
	if len(recs[0]) != 11 || recs[0][10] != "test_out_23" || recs[1][8] != "0" {
		t.Errorf("tracked columns: header %v, first row %v", recs[0], recs[1])
	}
	if len(recs) != len(want)+1 || recs[0][0] != "step" || recs[1][0] != "1" || recs[1][5] != "0" || recs[len(recs)-1][0] != "50" {
		t.Errorf("log has %d rows (want %d), first %v, last %v", len(recs)-1, len(want), recs[1], recs[len(recs)-1])
	}
}

func TestTrainBadInput(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 10, 2, 4)
	out := filepath.Join(dir, "m")
	checkRefusals(t, []string{"train"}, []cliRefusal{
		{[]string{"--data", data}, 2, "--out is required"},
		{[]string{"--data", data, "--out", out, "--machine", "svm3"}, 2, "--machine"},
		{[]string{"--data", data, "--out", out, "--machine", "logistic"}, 2, "no exact solver"},
		{[]string{"--data", data, "--out", out, "--solver", "subgradient", "--bias"}, 2, "--bias"},
		{[]string{"--data", data, "--out", out, "--lambda", "0"}, 2, "--lambda 0: the exact solver needs λ > 0"},
		{[]string{"--data", data, "--out", out, "--objective", "avg"}, 2, "objective"},
		{[]string{"--data", data, "--out", out, "--depth", "0"}, 2, "depth"},
		{[]string{"--data", data, "--out", out, "--precision", "float16"}, 2, "--precision"},
		{[]string{"--data", filepath.Join(dir, "none.npy"), "--out", out}, 1, "none.npy"},
		{[]string{"--data", data, "--out", out, "--solver", "subgradient", "--lr", "-1"}, 2, "--lr"},
	})
	checkNoOutput(t, out)
}

func TestPredictRejectsBadModel(t *testing.T) {
	dir := t.TempDir()
	x, _, data := svmTestData(t, dir, 12, 2, 5)
	model := filepath.Join(dir, "m")
	if code, _, errOut := runCLI(t, "train", "--data", data, "--out", model, "--lambda", "0.1"); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	b, _ := os.ReadFile(model)
	b[len(b)/2] ^= 1
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, b, 0o644)
	if code, _, errOut := runCLI(t, "predict", "--model", bad, "--data", data); code != 1 || !strings.Contains(errOut, "checksum") {
		t.Errorf("corrupted model: exit %d, %q", code, errOut)
	}
	// Changing the training inputs the model refers to is detected.
	x.Set(0, 0, 42)
	npy.Write(filepath.Join(dir, "X.npy"), x)
	if code, _, errOut := runCLI(t, "predict", "--model", model, "--data", data); code != 1 || !strings.Contains(errOut, "not those the model was trained on") {
		t.Errorf("changed training inputs: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI(t, "predict", "--data", data); code != 2 {
		t.Errorf("missing --model: exit %d", code)
	}
}

func TestExportLIBSVMSparse(t *testing.T) {
	dir := t.TempDir()
	x, y, data := svmTestData(t, dir, 8, 3, 6)
	out := filepath.Join(dir, "d.libsvm")
	if code, _, errOut := runCLI(t, "export-libsvm", "--data", data, "--sparse", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The exported file is itself a valid --data.
	m := filepath.Join(dir, "m")
	if code, _, errOut := runCLI(t, "train", "--data", out, "--out", m, "--lambda", "0.1", "--embed"); code != 0 {
		t.Fatalf("train on the LIBSVM file: %s", errOut)
	}
	b, _ := os.ReadFile(out)
	s, err := labelled.ReadLIBSVM(bytes.NewReader(b), out, labelled.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		label, err := strconv.ParseFloat(s.Classes[s.Y[i]], 64)
		x2 := 0.0 // an absent feature is 0
		if s.X.Cols > 2 {
			x2 = s.X.At(i, 2)
		}
		if err != nil || label != y[i] || x2 != x.At(i, 2) {
			t.Fatalf("row %d differs", i)
		}
	}
}

// TestTrainMNIST trains the exact SVM on the first 300 MNIST 0/1 training
// points and predicts the test set. It needs $NTKSVM_MNIST_DIR; it fails
// without it when $CI is set.
func TestTrainMNIST(t *testing.T) {
	mnist.RealDataDirForTest(t)
	model := filepath.Join(t.TempDir(), "m")
	code, out, errOut := runCLI(t, "train", "--data", "mnist01", "--first", "300", "--lambda", "0.064", "--bias", "--out", model)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errOut)
	}
	code, out, errOut = runCLI(t, "predict", "--model", model, "--data", "mnist01-test")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "(2115 points)") || !strings.Contains(out, "accuracy 99.") {
		t.Errorf("predict output: %s", out)
	}
	// A version 1 model (typed metadata came with version 2): KRR on the
	// first 2000 standardised points, as the version 1 program printed it.
	code, out, errOut = runCLI(t, "predict", "--model", "../../svm/testdata/v1-krr-standardize.model", "--data", "mnist01-test")
	if code != 0 || out != "mnist01-test: mean squared loss 0.712755, sign accuracy 99.8582% (2115 points)\n" {
		t.Errorf("version 1 model: exit %d, %q, %s", code, out, errOut)
	}
}
