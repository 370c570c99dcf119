package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// runProcess runs the test binary as the ntksvm command in a process of its
// own (see TestMain) and returns its exit status and output.
func runProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "NTKSVM_TEST_ARGS="+strings.Join(args, "\n"))
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, o.String(), e.String()
}

// writeTable writes a CSV of three classes on three noisy rays (d
// features) and returns its path.
func writeTable(t *testing.T, dir, name string, n, d, offset int) string {
	t.Helper()
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("species\n")
	for i := offset; i < offset+n; i++ {
		a := float64(i%3)*2.1 + 0.2*math.Sin(float64(7*i))
		for j := range d {
			fmt.Fprintf(&b, "%.6f,", (1+float64(i%5)/5)*math.Cos(a+float64(j)))
		}
		fmt.Fprintf(&b, "%s\n", []string{"setosa", "versicolor", "virginica"}[i%3])
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCVBadInput runs the command on each bad input of a user's own data
// and checks that it exits 1 naming the problem and writes nothing.
func TestCVBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.model")
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	good := writeTable(t, dir, "good.csv", 60, 3, 0)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"ragged", []string{"--data", file("ragged.csv", "a,b,y\n1,2,x\n3,4,y\n5,z\n")}, "line 4 has 2 fields, the first line has 3"},
		{"non-numeric", []string{"--data", file("nonnum.csv", "a,b,y\n1,2,x\n3,four,y\n")}, `line 3, column 2 ("b"): "four" is not a finite number`},
		{"single class", []string{"--data", file("one.csv", "a,b,y\n1,2,x\n3,4,x\n5,6,x\n")}, "needs two or more"},
		{"fewer rows than folds", []string{"--data", file("few.csv", "a,y\n1,x\n2,y\n3,x\n")}, "3 examples, fewer than the 4 folds"},
		{"empty", []string{"--data", file("empty.csv", "")}, "no data rows"},
		{"no label column", []string{"--data", good, "--label", "class"}, `no column is named "class"`},
		{"duplicate header", []string{"--data", file("dup.csv", "a,a,y\n1,2,x\n")}, `columns 1 and 2 have the same name "a"`},
		{"missing value", []string{"--data", file("miss.csv", "a,b,y\n1,,x\n")}, `line 2, column 2 ("b"): missing value`},
		{"too big", []string{"--data", file("huge.libsvm", strings.Repeat("1 1000000000:1\n", 10))}, "more than the"},
		{"index past 2³⁰", []string{"--data", file("far.libsvm", "1 99999999999:1\n")}, "1-based index up to 1073741824"},
		{"bad grid", []string{"--data", good, "--depth", "3-1"}, "--depth"},
		{"bad kernel", []string{"--data", good, "--kernel", "ntk,fixd"}, `--kernel: classify: kernel "fixd": want ntk, nngp or fixed`},
		{"fixed, no depth ≥ 2", []string{"--data", good, "--kernel", "fixed", "--depth", "0-1"}, "fixed layers need a depth ≥ 2"},
		{"bad folds", []string{"--data", good, "--folds", "1"}, "--folds 1"},
	} {
		code, _, stderr := runProcess(t, append([]string{"cv", "--out", out}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%s: exit %d, stderr %q; want an error mentioning %q", tc.name, code, stderr, tc.want)
		}
		checkNoOutput(t, out)
	}
}

// TestCVThenPredict fits a model by cross-validation with a test set, then
// checks that predict on the saved model gives the same test accuracy, and
// that a test file with another feature count is refused.
func TestCVThenPredict(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 90, 3, 0)
	test := writeTable(t, dir, "test.csv", 60, 3, 500)
	model := filepath.Join(dir, "m.model")
	code, stdout, stderr := runProcess(t, "cv", "--data", train, "--test", test, "--out", model, "--depth", "1-2", "--C", "0.1,10", "--kernel", "ntk,nngp")
	if code != 0 {
		t.Fatalf("cv: exit %d: %s", code, stderr)
	}
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	cvAcc := acc.FindString(stdout)
	if cvAcc == "" || !strings.Contains(stdout, "← chosen (1se)") || !strings.Contains(stdout, "recall") {
		t.Fatalf("cv output lacks the grid, the choice or the report:\n%s", stdout)
	}
	pred := filepath.Join(dir, "pred.csv")
	code, stdout, stderr = runProcess(t, "predict", "--model", model, "--data", test, "--out", pred, "--decision")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if got := acc.FindString(stdout); got != cvAcc {
		t.Errorf("predict says %q, cv said %q", got, cvAcc)
	}
	b, err := os.ReadFile(pred)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err != nil || len(lines) != 61 || !strings.HasPrefix(lines[0], "row,class,") || !strings.Contains(string(b), "versicolor") {
		t.Errorf("predictions file: %v\n%s", err, b)
	}
	narrow := writeTable(t, dir, "narrow.csv", 30, 2, 0)
	code, _, stderr = runProcess(t, "predict", "--model", model, "--data", narrow)
	if code != 1 || !strings.Contains(stderr, "has 2 features, the model was trained on 3") {
		t.Errorf("narrow data: exit %d, %q", code, stderr)
	}
	code, stdout, _ = runProcess(t, "data", "info", train)
	if code != 0 || !strings.Contains(stdout, "90 rows, 3 features, 3 classes") || !strings.Contains(stdout, "setosa") {
		t.Errorf("data info: exit %d, %q", code, stdout)
	}
}

// TestCVUnitNorm checks that --unit-norm is kept in the model: predict on
// the test rows, and on the test rows each scaled by its own factor,
// reports the accuracy that cv reported.
func TestCVUnitNorm(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 60, 3, 0)
	test := writeTable(t, dir, "test.csv", 45, 3, 500)
	raw, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i := 1; i < len(lines); i++ {
		f := strings.Split(lines[i], ",")
		for j := range 3 {
			var v float64
			fmt.Sscan(f[j], &v)
			f[j] = fmt.Sprint(v * float64(1+i%4) * 2.5)
		}
		lines[i] = strings.Join(f, ",")
	}
	scaled := filepath.Join(dir, "scaled.csv")
	if err := os.WriteFile(scaled, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.model")
	code, stdout, stderr := runProcess(t, "cv", "--data", train, "--test", test, "--out", model, "--depth", "2",
		"--C", "10", "--sigma-b", "0", "--no-standardize", "--unit-norm")
	if code != 0 {
		t.Fatalf("cv: exit %d: %s", code, stderr)
	}
	acc := regexp.MustCompile(`accuracy [0-9.]+% \(\d+ of \d+\)`)
	cvAcc := acc.FindString(stdout)
	if cvAcc == "" {
		t.Fatalf("cv output lacks the test accuracy:\n%s", stdout)
	}
	for _, data := range []string{test, scaled} {
		code, stdout, stderr = runProcess(t, "predict", "--model", model, "--data", data)
		if code != 0 {
			t.Fatalf("predict %s: exit %d: %s", data, code, stderr)
		}
		if got := acc.FindString(stdout); got != cvAcc {
			t.Errorf("predict %s says %q, cv said %q", filepath.Base(data), got, cvAcc)
		}
	}
}

// TestSmallClassesGoOn (issue 44, "a class with two examples stopped cv
// and bench datasets"): a class of two examples and one of one, fewer
// than the 4 folds, are each named in a warning with their count, and cv
// and bench datasets go on and finish; data info lists them.
func TestSmallClassesGoOn(t *testing.T) {
	dir := t.TempDir()
	rows := func(n int) string {
		b, err := os.ReadFile(writeTable(t, dir, "t.csv", n, 3, 0))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	table := rows(60) + "0.1,0.2,0.3,rare2\n0.2,0.1,0.3,rare2\n0.3,0.3,0.1,rare1\n"
	train := filepath.Join(dir, "small.csv")
	if err := os.WriteFile(train, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	warnings := []string{`warning: class "rare2" has 2 examples, fewer than the 4 folds`, `warning: class "rare1" has 1 example, fewer than the 4 folds`}
	code, _, stderr := runProcess(t, "cv", "--data", train, "--depth", "1", "--C", "1,10", "--out", filepath.Join(dir, "m.model"))
	if code != 0 {
		t.Fatalf("cv: exit %d: %s", code, stderr)
	}
	for _, w := range warnings {
		if !strings.Contains(stderr, w) {
			t.Errorf("cv: stderr lacks %q:\n%s", w, stderr)
		}
	}
	code, stdout, _ := runProcess(t, "data", "info", train)
	if code != 0 || !strings.Contains(stdout, "fewer examples than cv's 4 folds") || !strings.Contains(stdout, "rare1 (1), rare2 (2)") {
		t.Errorf("data info: exit %d, %q", code, stdout)
	}
	// bench datasets: the same table, its small classes in the training
	// split.
	bench := t.TempDir()
	n := 63
	var tr, te []int
	for i := range n {
		if i%4 == 3 && i < 60 {
			te = append(te, i)
		} else {
			tr = append(tr, i)
		}
	}
	sp, err := json.Marshal(map[string]any{"dataset": "small", "files": []string{"small.csv"}, "n_rows": n,
		"splits": []map[string][]int{{"train": tr, "test": te}}})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bench, "small.csv"), []byte(table), 0o644)
	os.WriteFile(filepath.Join(bench, "small.splits.json"), sp, 0o644)
	code, stdout, stderr = runProcess(t, "bench", "datasets", bench, "--depth", "1", "--C", "1,10")
	if code != 0 {
		t.Fatalf("bench datasets: exit %d: %s", code, stderr)
	}
	for _, w := range warnings {
		if w = strings.Replace(w, "warning: ", "warning: small, split 0: ", 1); !strings.Contains(stderr, w) {
			t.Errorf("bench datasets: stderr lacks %q:\n%s", w, stderr)
		}
	}
	if !strings.Contains(stdout, "small") {
		t.Errorf("bench datasets: no row for the dataset:\n%s", stdout)
	}
}
