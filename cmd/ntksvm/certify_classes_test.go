package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCertifyClassesCLI fits one-vs-one and one-vs-rest models with cv on
// three classes, certifies the test points in both norms with --verify,
// and checks the CSV (a header, one line per point, radii that parse,
// both columns or one with --norm) and the JSON summary.
func TestCertifyClassesCLI(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 90, 3, 0)
	test := writeTable(t, dir, "test.csv", 30, 3, 500)
	for _, sch := range []string{"ovo", "ovr"} {
		model := filepath.Join(dir, sch+".model")
		if code, _, stderr := runCLI(t, "cv", "--data", train, "--out", model, "--multiclass", sch, "--depth", "2", "--sigma-b", "0.5", "--C", "10"); code != 0 {
			t.Fatalf("cv: exit %d: %s", code, stderr)
		}
		out := filepath.Join(dir, sch+".csv")
		code, stdout, stderr := runCLI(t, "certify", "--model", model, "--data", test, "--verify", "20", "--out", out, "--json")
		if code != 0 {
			t.Fatalf("%s: certify: exit %d: %s", sch, code, stderr)
		}
		var s certifyClassSummary
		if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &s); err != nil {
			t.Fatalf("%s: bad JSON %q: %v", sch, stdout, err)
		}
		if s.NPoints != 30 || s.Scheme != sch || s.Violations != 0 || s.Verified != 20 || s.Accuracy == nil || len(s.Classes) != 3 ||
			!(s.Mean["linf"] > 0) || !(s.Mean["l2"] >= s.Mean["linf"]) {
			t.Errorf("%s: summary %+v", sch, s)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 31 || lines[0] != "row,class,radius_linf,radius_l2,reason" {
			t.Fatalf("%s: %d lines, header %q", sch, len(lines), lines[0])
		}
		for k, l := range lines[1:] {
			f := strings.Split(l, ",")
			a, errA := strconv.ParseFloat(f[2], 64)
			c, errC := strconv.ParseFloat(f[3], 64)
			if len(f) != 5 || f[0] != strconv.Itoa(k) || errA != nil || errC != nil || (f[4] == "") != (a > 0 && c > 0) {
				t.Errorf("%s: line %q", sch, l)
			}
		}
	}
	model, out := filepath.Join(dir, "ovo.model"), filepath.Join(dir, "l2.csv")
	code, stdout, stderr := runCLI(t, "certify", "--model", model, "--data", test, "--norm", "l2", "--points", "5", "--out", out)
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if code != 0 || len(lines) != 6 || strings.Split(lines[1], ",")[2] != "" || !strings.Contains(stdout, "mean l2") || strings.Contains(stdout, "mean linf") {
		t.Errorf("--norm l2: exit %d, %q, %s\n%s", code, stdout, stderr, b)
	}
}

// TestCertifyClassesBadInput checks that a model certified on points of
// other features, or with preprocessing other than the model records, is
// refused with exit 2 naming the problem, and nothing is written.
func TestCertifyClassesBadInput(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "train.csv", 60, 3, 0)
	model := filepath.Join(dir, "m.model")
	if code, _, stderr := runCLI(t, "cv", "--data", train, "--out", model, "--depth", "1", "--C", "1"); code != 0 {
		t.Fatalf("cv: exit %d: %s", code, stderr)
	}
	wide := writeTable(t, dir, "wide.csv", 20, 4, 0)
	out := filepath.Join(dir, "cert.csv")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"other features", []string{"--data", wide}, "has 4 features, the model " + model + " was trained on 3"},
		{"other preprocessing", []string{"--data", train, "--standardize"}, "standardises its features itself"},
		{"no data", nil, "--data is required"},
		{"a network's flags", []string{"--data", train, "--init-seed", "1"}, "certify networks, not a model"},
		{"bad norm", []string{"--data", train, "--norm", "l1"}, `unknown norm "l1"`},
		{"bad bracket", []string{"--data", train, "--hi", "0"}, "search bracket"},
	} {
		code, _, stderr := runCLI(t, append([]string{"certify", "--model", model, "--out", out}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", tc.name, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %s written", tc.name, out)
		}
	}
}
