package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// source is one data source of TestEverySource and what it is.
type source struct {
	name, spec string
	labelled   bool     // has labels
	multi      bool     // more than two classes
	pos        string   // the positive class of a binary task on named classes
	extra      []string // flags every command takes with it
}

// testSources writes one small file of every form a command reads: a
// three-class CSV (iris-like, class names), a two-class CSV, an ARFF, a
// LIBSVM file with +1/-1 labels, X.npy with 0/1 labels and X.npy alone.
func testSources(t *testing.T, dir string) []source {
	t.Helper()
	iris := writeTable(t, dir, "iris.csv", 30, 4, 0)
	two := filepath.Join(dir, "two.csv")
	arff := filepath.Join(dir, "two.arff")
	lib := filepath.Join(dir, "two.libsvm")
	var csvText, arffText, libText strings.Builder
	csvText.WriteString("a,b,c,label\n")
	arffText.WriteString("@relation two\n@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n@attribute class {cat,dog}\n@data\n")
	x := linalg.New[float64](20, 3)
	y01 := make([]float64, 20)
	for i := range 20 {
		cls := []string{"cat", "dog"}[i%2]
		row := x.Row(i)
		for j := range row {
			row[j] = float64((i*7+j*3)%11)/10 - 0.5 + float64(i%2)*0.4
		}
		line := strings.Join([]string{fmtF(row[0]), fmtF(row[1]), fmtF(row[2])}, ",")
		csvText.WriteString(line + "," + cls + "\n")
		arffText.WriteString(line + "," + cls + "\n")
		libText.WriteString([]string{"-1", "+1"}[i%2] + " 1:" + fmtF(row[0]) + " 2:" + fmtF(row[1]) + " 3:" + fmtF(row[2]) + "\n")
		y01[i] = float64(i % 2)
	}
	for p, s := range map[string]string{two: csvText.String(), arff: arffText.String(), lib: libText.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	xp, yp := filepath.Join(dir, "X.npy"), filepath.Join(dir, "y.npy")
	if err := npy.Write(xp, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteVector(yp, y01); err != nil {
		t.Fatal(err)
	}
	return []source{
		{"iris.csv", iris, true, true, "setosa", nil}, {"two.csv", two, true, false, "dog", nil}, {"two.arff", arff, true, false, "dog", nil},
		{"two.libsvm", lib, true, false, "", nil}, {"X.npy,y.npy", xp + "," + yp, true, false, "", nil}, {"X.npy", xp, false, false, "", nil},
	}
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// TestEverySource: every command that reads data accepts every source it
// should, through the one data layer, and refuses the rest with a message
// naming why: inputs without labels where labels are needed, more than two
// classes where a binary task is needed (naming --positive and
// --classes), a binary model on named classes without --positive (it
// does not record which is +1); and a bad file gets the same message from
// every command.
func TestEverySource(t *testing.T) {
	dir := t.TempDir()
	mdir := fakeMNISTSized(t, 20, 10, 3, 5)
	sources := append(testSources(t, dir),
		source{"mnist01", "mnist01", true, false, "", []string{"--mnist-dir", mdir, "--allow-noncanonical"}},
		source{"mnist", "mnist", true, false, "", []string{"--mnist-dir", mdir}})
	quick := []string{"--depth", "1", "--sigma-b", "0", "--C", "1", "--folds", "2"}
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			model := filepath.Join(t.TempDir(), "m.model")
			binary, first := []string{}, []string{}
			if s.pos != "" {
				binary = []string{"--positive", s.pos}
			}
			if !s.multi {
				first = binary // the first model is binary too
			}
			type run struct {
				args []string
				code int
				want string // in stderr when code ≠ 0
			}
			trainCode, trainWant := 0, ""
			if !s.labelled {
				trainCode, trainWant = 2, "has no labels"
			}
			runs := []run{
				{[]string{"data", "info", s.spec}, 0, ""},
				{[]string{"kernel", "--data", s.spec, "--test", s.spec, "--out", out + ".npy"}, 0, ""},
				{[]string{"kernel", "--data", s.spec, "--tile", "0/1", "--out", out + "-tiles"}, 0, ""},
				{[]string{"export-libsvm", "--data", s.spec, "--out", out + ".txt"}, 0, ""},
				{append([]string{"cv", "--data", s.spec, "--test", s.spec}, quick...), trainCode, trainWant},
				{append([]string{"bench", "datasets", "--data", s.spec, "--test", s.spec}, quick...), trainCode, trainWant},
				{[]string{"train", "--data", s.spec, "--test", s.spec, "--lambda", "0.1", "--out", model}, trainCode, trainWant},
			}
			if s.labelled {
				runs = append(runs,
					run{append([]string{"predict", "--model", model, "--data", s.spec}, first...), 0, ""},
					run{append([]string{"certify", "--model", model, "--data", s.spec, "--points", "2"}, first...), 0, ""},
					run{append([]string{"train", "--data", s.spec, "--lambda", "0.1", "--out", model}, binary...), 0, ""},
					run{append([]string{"certify", "--model", model, "--data", s.spec, "--points", "2"}, binary...), 0, ""},
					run{append([]string{"predict", "--model", model, "--data", s.spec}, binary...), 0, ""},
					run{append([]string{"equiv", "--data", s.spec, "--test", s.spec, "--width", "8", "--steps", "2", "--evals", "2", "--out", out + "-equiv"}, binary...), 0, ""},
					run{append([]string{"genbound", "--data", s.spec, "--test", s.spec, "--width", "8", "--steps", "2", "--out", out + "-genbound"}, binary...), 0, ""})
			}
			if s.multi {
				for _, cmd := range [][]string{
					{"equiv", "--data", s.spec, "--test", s.spec, "--out", out + "-e2"},
					{"genbound", "--data", s.spec, "--test", s.spec, "--out", out + "-g2"},
					{"certify", "--model", model, "--data", s.spec},
					{"train", "--data", s.spec, "--machine", "logistic", "--solver", "subgradient", "--out", model},
				} {
					runs = append(runs, run{cmd, 2, "give --positive CLASS"})
				}
				runs = append(runs, run{[]string{"train", "--data", s.spec, "--classes", "setosa,virginica", "--out", model}, 0, ""},
					run{[]string{"certify", "--model", model, "--data", s.spec, "--classes", "setosa,virginica", "--points", "2"}, 0, ""})
			}
			if s.pos != "" && !s.multi {
				runs = append(runs, run{[]string{"predict", "--model", model, "--data", s.spec}, 2, "does not record which one is +1"})
			}
			for _, r := range runs {
				code, _, stderr := runCLI(t, append(r.args, s.extra...)...)
				if code != r.code || (code != 0 && !strings.Contains(stderr, r.want)) {
					t.Errorf("%v: exit %d, stderr %q; want exit %d %q", r.args, code, stderr, r.code, r.want)
				}
			}
		})
	}
}

// TestBadFileSameMessage: a malformed file gets the one message of the
// data layer from every command that reads data.
func TestBadFileSameMessage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ragged.csv")
	os.WriteFile(bad, []byte("a,b,y\n1,2,x\n3,4,y\n5,z\n"), 0o644)
	const want = "ragged.csv: line 4 has 2 fields, the first line has 3"
	out := filepath.Join(dir, "out")
	model := filepath.Join(dir, "m.model")
	good := testSources(t, dir)[1].spec
	if code, _, stderr := runCLI(t, "train", "--data", good, "--out", model); code != 0 {
		t.Fatalf("train: %s", stderr)
	}
	for _, args := range [][]string{
		{"data", "info", bad},
		{"train", "--data", bad, "--out", out},
		{"predict", "--model", model, "--data", bad},
		{"certify", "--model", model, "--data", bad},
		{"kernel", "--data", bad, "--out", out + ".npy"},
		{"kernel", "--data", bad, "--tile", "0/2", "--out", out},
		{"export-libsvm", "--data", bad, "--out", out},
		{"cv", "--data", bad},
		{"bench", "datasets", "--data", bad, "--test", bad},
		{"equiv", "--data", bad, "--test", bad, "--out", out + "-e"},
		{"genbound", "--data", bad, "--test", bad, "--out", out + "-g"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", args, code, stderr, want)
		}
	}
}
