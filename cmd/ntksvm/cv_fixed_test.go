package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/svm"
)

// TestCVFixed: "--kernel ntk,fixed" puts the NTKs with fixed first layers
// in the grid table (the fixed column), a grid of them alone refits a
// fixed-layer model that predict applies with the same test accuracy, the
// tiled cross-validation gives the one-process table and model, and a
// task directory of the grid without them is refused.
func TestCVFixed(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 60, 3, 0)
	test := writeTable(t, dir, "test.csv", 45, 3, 500)
	grid := []string{"cv", "--data", train, "--depth", "1,3", "--C", "0.1,10", "--sigma-b", "0.5", "--folds", "3"}
	table := mustRun(t, append(append([]string{}, grid...), "--kernel", "ntk,fixed")...)
	row := regexp.MustCompile(`(?m)^ntk\s+(\d+)\s+(\d+)\s+0\.5\s+`)
	var got []string
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		got = append(got, m[1]+"/"+m[2])
	}
	if want := "1/0 1/0 3/0 3/0 3/1 3/1 3/2 3/2"; strings.Join(got, " ") != want {
		t.Fatalf("table rows (depth/fixed) %v, want %s:\n%s", got, want, table)
	}
	model := filepath.Join(dir, "fixed.model")
	out := mustRun(t, append(append([]string{}, grid...), "--kernel", "fixed", "--select", "best", "--test", test, "--out", model)...)
	if !regexp.MustCompile(`model: ntk L=3 F=[12] `).MatchString(out) {
		t.Fatalf("the refitted model is not a fixed-layer NTK:\n%s", out)
	}
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	pred := mustRun(t, "predict", "--model", model, "--data", test)
	if a, b := acc.FindString(out), acc.FindString(pred); a == "" || a != b {
		t.Errorf("predict says %q, cv said %q", b, a)
	}
	fixed := append(append([]string{}, grid...), "--kernel", "ntk,fixed")
	tasks := filepath.Join(dir, "tasks")
	for i := range 3 {
		mustRun(t, append(append([]string{}, fixed...), "--task", fmt.Sprintf("%d/3", i), "--out", tasks)...)
	}
	if got := mustRun(t, append(append([]string{}, fixed...), "--collect", tasks)...); cut(got) != cut(table) {
		t.Errorf("tasks: the table differs:\n%s\nin one process:\n%s", got, table)
	}
	code, _, stderr := runCLI(t, append(append([]string{}, grid...), "--kernel", "ntk", "--collect", tasks)...)
	if code != 1 || !strings.Contains(stderr, "holds the tasks of another cross-validation") {
		t.Errorf("collect without the fixed layers: exit %d, %q", code, stderr)
	}
}

// TestTrainFixed: "train --fixed F" fits on the NTK with F fixed layers,
// writes it in the model, and predict applies it (the same accuracy and
// loss as train's report on the same data); F = L writes the NTK kind with
// the NNGP's values.
func TestTrainFixed(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 40, 5, 2)
	model := filepath.Join(dir, "m")
	out := mustRun(t, "train", "--data", data, "--out", model, "--machine", "svm", "--solver", "exact", "--lambda", "0.1", "--depth", "3", "--fixed", "2")
	trainLine, _, _ := strings.Cut(out, "\n")
	f, err := os.Open(model)
	if err != nil {
		t.Fatal(err)
	}
	m, err := svm.ReadModel(f)
	f.Close()
	if err != nil || m.Kernel.Fixed != 2 || m.Kernel.Depth != 3 {
		t.Fatalf("model kernel %v, %v", m.Kernel, err)
	}
	pred := mustRun(t, "predict", "--model", model, "--data", data)
	ga, gl := svmParseReport(t, strings.TrimSpace(strings.SplitN(pred, ":", 2)[1]))
	wa, wl := svmParseReport(t, strings.TrimSpace(strings.SplitN(trainLine, ":", 2)[1]))
	if ga != wa || math.Abs(gl-wl) > 1e-4 {
		t.Errorf("predict says %q, train said %q", pred, trainLine)
	}
	plain := mustRun(t, "train", "--data", data, "--out", model, "--machine", "svm", "--solver", "exact", "--lambda", "0.1", "--depth", "3")
	if _, pl := svmParseReport(t, strings.TrimSpace(strings.SplitN(plain, ":", 2)[1])); pl == wl {
		t.Errorf("the NTK and the NTK with 2 fixed layers give the same training loss %v", wl)
	}
}
