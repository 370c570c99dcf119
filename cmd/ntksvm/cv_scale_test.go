package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCVMem runs "ntksvm cv --mem" with budgets that force the fits at
// scale (on-demand SMO for svm, Falkon for krr) and checks the route it
// announces, that the on-demand SVM scores the test data as the dense one
// does, that predict on the saved model agrees, and the refusals: a grid
// of several points past the dense Gram, and a budget too small for any
// fit, named before anything is computed.
func TestCVMem(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 300, 3, 0)
	test := writeTable(t, dir, "test.csv", 120, 3, 1000)
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	point := []string{"cv", "--data", train, "--test", test, "--depth", "2", "--sigma-b", "0", "--C", "10", "--threads", "1"}
	code, stdout, stderr := runProcess(t, point...)
	if code != 0 || strings.Contains(stderr, "on demand") || !strings.Contains(stderr, "cross-validating 1 grid points × 4 folds") {
		t.Fatalf("dense cv: exit %d: %s", code, stderr)
	}
	denseAcc := acc.FindString(stdout)
	for _, tc := range []struct {
		name, mem, machine, route string
	}{
		{"svm", "10M", "svm", "SMO each pair of classes on a dense Gram of its own points where it fits"},
		{"krr", "2M", "krr", "Falkon with "},
	} {
		model := filepath.Join(dir, tc.name+".model")
		code, stdout, stderr := runProcess(t, append(point, "--mem", tc.mem, "--machine", tc.machine, "--out", model)...)
		if code != 0 || !strings.Contains(stderr, tc.route) || !strings.Contains(stderr, "fitting 1 grid point (no cross-validation at scale)") {
			t.Fatalf("%s: exit %d, stderr %q; want %q", tc.name, code, stderr, tc.route)
		}
		got := acc.FindString(stdout)
		if tc.machine == "svm" && got != denseAcc {
			t.Errorf("svm on demand: %q, dense %q", got, denseAcc)
		}
		code, pout, stderr := runProcess(t, "predict", "--model", model, "--data", test)
		if code != 0 || acc.FindString(pout) != got {
			t.Errorf("%s: predict exit %d, %q %s; cv said %q", tc.name, code, acc.FindString(pout), stderr, got)
		}
	}
	code, stdout, stderr = runProcess(t, "cv", "--data", train, "--depth", "1-2", "--sigma-b", "0", "--C", "10", "--mem", "10M", "--holdout", "0.25")
	if code != 0 || strings.Count(stderr, "validation split: grid point") != 2 || !strings.Contains(stderr, "choosing among 2 grid points on a validation split of 0.25") || !strings.Contains(stdout, "← chosen (validation split, 1se)") {
		t.Errorf("--holdout: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"grid", []string{"--depth", "1-2", "--mem", "10M"}, "fit one grid point"},
		{"too small", []string{"--depth", "2", "--sigma-b", "0", "--C", "10", "--mem", "300k"}, "the SMO on an on-demand Gram of 300 points (two cached rows, a block of 256 rows) needs"},
		{"bad size", []string{"--mem", "lots"}, `--mem "lots"`},
		{"bad holdout", []string{"--mem", "10M", "--holdout", "1.5"}, "--holdout 1.5"},
	} {
		code, _, stderr := runProcess(t, append([]string{"cv", "--data", train, "--test", test}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%s: exit %d, stderr %q; want %q", tc.name, code, stderr, tc.want)
		}
	}
}

// TestCVEigenPro runs "ntksvm cv --machine krr --solver eigenpro": the
// route it announces, its epochs, a model that predict scores as cv did,
// and the refusals of flags that do not go with it.
func TestCVEigenPro(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 300, 3, 0)
	test := writeTable(t, dir, "test.csv", 120, 3, 1000)
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	model := filepath.Join(dir, "ep.model")
	point := []string{"cv", "--data", train, "--test", test, "--depth", "2", "--sigma-b", "0", "--C", "10", "--threads", "1", "--machine", "krr"}
	code, stdout, stderr := runProcess(t, append(point, "--solver", "eigenpro", "--epochs", "3", "--out", model)...)
	if code != 0 || !strings.Contains(stderr, "KRR by EigenPro on all 300 training points") || !strings.Contains(stderr, "EigenPro: 3 epochs") {
		t.Fatalf("eigenpro: exit %d, stderr %q", code, stderr)
	}
	got := acc.FindString(stdout)
	code, pout, stderr := runProcess(t, "predict", "--model", model, "--data", test)
	if code != 0 || got == "" || acc.FindString(pout) != got {
		t.Errorf("predict exit %d, %q %s; cv said %q", code, acc.FindString(pout), stderr, got)
	}
	// Checkpointed after every epoch; the finished fit removes the
	// checkpoint once its model is written.
	ckPath := filepath.Join(dir, "ep.ck")
	code, _, stderr = runProcess(t, append(point, "--solver", "eigenpro", "--epochs", "2", "--checkpoint", ckPath, "--out", filepath.Join(dir, "ep2.model"))...)
	if _, err := os.Stat(ckPath); code != 0 || !os.IsNotExist(err) {
		t.Fatalf("eigenpro with --checkpoint: exit %d (checkpoint left: %v), %s", code, err == nil, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"epochs 0", []string{"--solver", "eigenpro", "--epochs", "0"}, "--epochs 0"},
		{"epochs without eigenpro", []string{"--epochs", "3"}, "with --solver eigenpro"},
		{"solver", []string{"--solver", "cg"}, `--solver "cg"`},
		{"svm", []string{"--solver", "eigenpro", "--machine", "svm"}, "use it with --machine krr"},
	} {
		code, _, stderr := runProcess(t, append(point, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", tc.name, code, stderr, tc.want)
		}
	}
}
