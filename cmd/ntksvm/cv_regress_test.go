package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// writeRegression writes a CSV of n rows, d features and the numeric target
// "level" = 10 + 3·sin(f0) + f1² (every value distinct), rows offset….
func writeRegression(t *testing.T, dir, name string, n, d, offset int) string {
	t.Helper()
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("level\n")
	for i := offset; i < offset+n; i++ {
		x := make([]float64, d)
		for j := range x {
			x[j] = math.Sin(float64(3*i+7*j)) * 2
			fmt.Fprintf(&b, "%.6f,", x[j])
		}
		fmt.Fprintf(&b, "%.6f\n", 10+3*math.Sin(x[0])+x[1]*x[1])
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCVRegressionThenPredict detects a regression, fits it with a test
// set, and checks that predict on the saved model gives the same metrics
// and a "row,value" file.
func TestCVRegressionThenPredict(t *testing.T) {
	dir := t.TempDir()
	train := writeRegression(t, dir, "train.csv", 80, 3, 0)
	test := writeRegression(t, dir, "test.csv", 30, 3, 1000)
	model := filepath.Join(dir, "m.model")
	grid := []string{"--depth", "1-2", "--sigma-b", "0,1", "--C", "0.1,10", "--epsilon", "0.05,0.2"}
	code, stdout, stderr := runProcess(t, append([]string{"cv", "--data", train, "--test", test, "--out", model}, grid...)...)
	if code != 0 {
		t.Fatalf("cv: exit %d: %s", code, stderr)
	}
	metrics := regexp.MustCompile(`RMSE [0-9.e+-]+, MAE [0-9.e+-]+, R² (-?[0-9.]+) \(30 examples\)`)
	m := metrics.FindStringSubmatch(stdout)
	if !strings.HasPrefix(stdout, "task: regression (detected: the label column holds 80 distinct numbers") ||
		!strings.Contains(stdout, "← chosen (1se)") || !strings.Contains(stdout, "model: svr") || m == nil {
		t.Fatalf("cv output lacks the task, the grid, the choice or the metrics:\n%s", stdout)
	}
	if got := strings.Count(stdout, "\nntk "); got != 2*2*2*2 {
		t.Errorf("%d grid rows, want 16", got)
	}
	if r2, _ := strconv.ParseFloat(m[1], 64); r2 < 0.5 {
		t.Errorf("test R² %s: the machine did not learn the target", m[1])
	}
	pred := filepath.Join(dir, "pred.csv")
	code, pout, stderr := runProcess(t, "predict", "--model", model, "--data", test, "--out", pred)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if got := metrics.FindString(pout); got != m[0] {
		t.Errorf("predict says %q, cv said %q", got, m[0])
	}
	b, err := os.ReadFile(pred)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err != nil || len(lines) != 31 || lines[0] != "row,value" || !strings.HasPrefix(lines[1], "0,") {
		t.Errorf("predictions file: %v\n%s", err, b)
	}
	// --task regression with KRR says why it regresses.
	code, stdout, stderr = runProcess(t, append([]string{"cv", "--data", train, "--task", "regression", "--machine", "krr"}, grid...)...)
	if code != 0 || !strings.HasPrefix(stdout, "task: regression (--task regression)") || !strings.Contains(stdout, "model: krr") {
		t.Errorf("cv --task regression --machine krr: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestCVRegressionBadInput checks the errors of a regression: each names
// the problem, exits 2 (1 for a constant target) and writes nothing.
func TestCVRegressionBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.model")
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := writeRegression(t, dir, "good.csv", 40, 2, 0)
	for _, tc := range []struct {
		name string
		code int
		args []string
		want string
	}{
		{"Inf target", 2, []string{"--task", "regression", "--data", file("inf.csv", "a,y\n1,2.5\n2,3.5\n3,inf\n4,1\n")},
			`label "inf" of example 2 is not a finite number (data row 2)`},
		{"-Inf target", 2, []string{"--machine", "svr", "--data", file("minf.csv", "a,y\n1,2.5\n2,-Inf\n3,4\n4,1\n")},
			`label "-Inf" of example 1 is not a finite number (data row 1)`},
		{"NaN target", 2, []string{"--task", "regression", "--data", file("nan.csv", "a,y\n1,2.5\n2,NaN\n3,4\n4,1\n")},
			"nan.csv: line 3: the label (column 2 (the label)) is missing"},
		{"text target", 2, []string{"--task", "regression", "--data", file("text.csv", "a,y\n1,2.5\n2,high\n3,4\n4,1\n")},
			`label "high" of example 1 is not a finite number`},
		{"constant target", 1, []string{"--task", "regression", "--data", file("const.csv", "a,y\n1,2\n2,2\n3,2\n4,2\n")}, "the target is constant"},
		{"classifier's machine", 2, []string{"--task", "regression", "--machine", "svm2", "--data", good}, "--machine svm2: a regression fits svr (ε-SVR) or krr"},
		{"classifier's flag", 2, []string{"--data", good, "--multiclass", "ovr"}, "--multiclass: not for a regression"},
		{"bad ε", 2, []string{"--data", good, "--epsilon", "0.1,-1"}, "--epsilon"},
		{"no data", 2, []string{"--task", "regression"}, "--data is required"},
	} {
		code, _, stderr := runProcess(t, append([]string{"cv", "--out", out, "--depth", "1", "--sigma-b", "0"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and an error mentioning %q", tc.name, code, stderr, tc.code, tc.want)
		}
		checkNoOutput(t, out)
	}
}

// TestRegressionModelElsewhere checks that certify refuses a regression
// model and predict a data file whose labels are not numbers.
func TestRegressionModelElsewhere(t *testing.T) {
	dir := t.TempDir()
	train := writeRegression(t, dir, "train.csv", 40, 2, 0)
	model := filepath.Join(dir, "m.model")
	if code, _, stderr := runProcess(t, "cv", "--data", train, "--out", model, "--depth", "1", "--sigma-b", "0", "--C", "1", "--epsilon", "0.1"); code != 0 {
		t.Fatalf("cv: exit %d: %s", code, stderr)
	}
	lib := filepath.Join(dir, "x.libsvm")
	os.WriteFile(lib, []byte("1 1:0.5 2:0.25\n-1 1:0.1 2:0.75\n"), 0o644)
	code, _, stderr := runProcess(t, "certify", "--model", model, "--data", lib)
	if code != 2 || !strings.Contains(stderr, "a regression model") {
		t.Errorf("certify of a regression model: exit %d, %q", code, stderr)
	}
	text := filepath.Join(dir, "text.csv")
	os.WriteFile(text, []byte("f0,f1,level\n1,2,high\n"), 0o644)
	out := filepath.Join(dir, "p.csv")
	code, _, stderr = runProcess(t, "predict", "--model", model, "--data", text, "--out", out)
	if code != 2 || !strings.Contains(stderr, `label "high" of example 0 is not a finite number`) {
		t.Errorf("predict on text labels: exit %d, %q", code, stderr)
	}
	checkNoOutput(t, out)
}
