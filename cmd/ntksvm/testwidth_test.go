package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCVTestWidth checks the test data's width before the fit: a CSV test
// file with other features than the training data is refused naming both
// counts, with no model fitted; a LIBSVM test file whose largest index is
// below the training data's (its last features 0, as the format allows)
// is read as that many features and scored as the same points written
// with every index, by cv and by predict.
func TestCVTestWidth(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 90, 3, 0)
	wide := writeTable(t, dir, "wide.csv", 30, 5, 500)
	code, stdout, stderr := runProcess(t, "cv", "--data", train, "--test", wide, "--depth", "1", "--sigma-b", "0", "--C", "1")
	if code != 1 || !strings.Contains(stderr, "5 features, the training data") || !strings.Contains(stderr, "have 3") || strings.Contains(stdout+stderr, "model:") {
		t.Errorf("wide CSV test data: exit %d\n%s%s", code, stdout, stderr)
	}
	// The same task in LIBSVM, the last feature 0 in every test point and
	// left out of the short file.
	lines := []string{"1 1:0.5 2:0.25 3:1", "-1 1:-0.5 2:0.75 3:-1", "1 1:0.4 2:0.3 3:0.9", "-1 1:-0.6 2:0.6 3:-0.8",
		"1 1:0.45 2:0.2 3:1.1", "-1 1:-0.55 2:0.7 3:-0.9", "1 1:0.6 2:0.1 3:0.8", "-1 1:-0.4 2:0.8 3:-1.2"}
	trainSVM := filepath.Join(dir, "train.libsvm")
	full := filepath.Join(dir, "full.libsvm")
	short := filepath.Join(dir, "short.libsvm")
	for _, f := range []struct {
		path string
		text string
	}{
		{trainSVM, strings.Join(lines, "\n") + "\n"},
		{full, "1 1:0.5 2:0.2 3:0\n-1 1:-0.5 2:0.7 3:0\n1 1:0.3 2:0.1 3:0\n"},
		{short, "1 1:0.5 2:0.2\n-1 1:-0.5 2:0.7\n1 1:0.3 2:0.1\n"},
	} {
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	var got [2]string
	model := filepath.Join(dir, "m.model")
	for k, test := range []string{full, short} {
		code, stdout, stderr := runProcess(t, "cv", "--data", trainSVM, "--test", test, "--depth", "1", "--sigma-b", "0", "--C", "1", "--folds", "2", "--out", model)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", filepath.Base(test), code, stderr)
		}
		got[k] = acc.FindString(stdout)
	}
	if got[0] == "" || got[0] != got[1] {
		t.Errorf("short LIBSVM test file: %q; written with every index: %q", got[1], got[0])
	}
	// predict reads the short file as the model's three features too.
	code, stdout, stderr = runProcess(t, "predict", "--model", model, "--data", short)
	if p := acc.FindString(stdout); code != 0 || p != got[0] {
		t.Errorf("predict on the short LIBSVM file: exit %d, %q, want %q\n%s", code, p, got[0], stderr)
	}
}
