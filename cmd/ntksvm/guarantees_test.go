package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCVProbabilityPredict: cv --probability --class-weight balanced
// writes a model whose predict --probability CSV has the header
// row,<class names…> and rows of distributions; predict without it has
// the header row,class (with --decision the machines named); --json
// prints one object with the rule it used, the classes agreeing with
// the CSV's.
func TestCVProbabilityPredict(t *testing.T) {
	dir := t.TempDir()
	data := writeTable(t, dir, "train.csv", 60, 3, 0)
	model := filepath.Join(dir, "m.model")
	code, stdout, stderr := runProcess(t, "cv", "--data", data, "--depth", "1", "--sigma-b", "0", "--C", "0.1,1",
		"--class-weight", "none,balanced", "--probability", "--out", model)
	if code != 0 {
		t.Fatalf("cv: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "class weight") || !strings.Contains(stdout, "balanced") || !strings.Contains(stdout, "probability model: Platt") {
		t.Errorf("cv output lacks the class-weight column or the probability model:\n%s", stdout)
	}
	read := func(p string) [][]string {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	probs := filepath.Join(dir, "p.csv")
	if code, o, e := runProcess(t, "predict", "--model", model, "--data", data, "--probability", "--out", probs); code != 0 {
		t.Fatalf("predict --probability: exit %d\n%s%s", code, o, e)
	} else if !strings.Contains(o, "log-loss") {
		t.Errorf("predict --probability prints no log-loss:\n%s", o)
	}
	p := read(probs)
	if got := strings.Join(p[0], ","); got != "row,setosa,versicolor,virginica" {
		t.Fatalf("header %q", got)
	}
	argmax := make([]string, 0, len(p)-1)
	for _, rec := range p[1:] {
		var sum float64
		best := 1
		for j := 1; j < len(rec); j++ {
			v, err := strconv.ParseFloat(rec[j], 64)
			if err != nil || v < 0 || v > 1 {
				t.Fatalf("row %v: %v", rec, err)
			}
			sum += v
			if bv, _ := strconv.ParseFloat(rec[best], 64); v > bv {
				best = j
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("row %v sums to %v", rec, sum)
		}
		argmax = append(argmax, p[0][best])
	}
	classes := filepath.Join(dir, "c.csv")
	if code, o, e := runProcess(t, "predict", "--model", model, "--data", data, "--decision", "--out", classes); code != 0 {
		t.Fatalf("predict: exit %d\n%s%s", code, o, e)
	}
	c := read(classes)
	if got := strings.Join(c[0], ","); got != "row,class,setosa vs versicolor,setosa vs virginica,versicolor vs virginica" {
		t.Fatalf("header %q", got)
	}
	if len(c) != 61 || len(p) != 61 {
		t.Fatalf("%d and %d lines, want a header and 60 rows", len(c), len(p))
	}
	code, o, e := runProcess(t, "predict", "--model", model, "--data", data, "--probability", "--json")
	if code != 0 {
		t.Fatalf("predict --json: exit %d\n%s", code, e)
	}
	var js struct {
		Classes     []string `json:"classes"`
		Rule        string   `json:"rule"`
		Predictions []struct {
			Row         int       `json:"row"`
			Class       string    `json:"class"`
			Probability []float64 `json:"probability"`
		} `json:"predictions"`
		Accuracy *float64 `json:"accuracy"`
		LogLoss  *float64 `json:"log_loss"`
	}
	if err := json.Unmarshal([]byte(o), &js); err != nil {
		t.Fatalf("predict --json: %v\n%s", err, o)
	}
	if js.Rule != "largest probability" || len(js.Predictions) != 60 || js.Accuracy == nil || js.LogLoss == nil || len(js.Classes) != 3 {
		t.Fatalf("predict --json: %+v", js)
	}
	for i, pr := range js.Predictions {
		if pr.Class != argmax[i] || pr.Row != i || len(pr.Probability) != 3 {
			t.Fatalf("prediction %d: %+v; the CSV's largest probability is %s", i, pr, argmax[i])
		}
	}
}

// TestGuaranteesBadInput: a class weight for a class the data do not
// have, class weights for krr and --probability on a model without a
// probability model exit 2 naming the problem and write nothing.
func TestGuaranteesBadInput(t *testing.T) {
	dir := t.TempDir()
	data := writeTable(t, dir, "train.csv", 30, 3, 0)
	plain := filepath.Join(dir, "plain.model")
	if code, o, e := runProcess(t, "cv", "--data", data, "--depth", "1", "--sigma-b", "0", "--C", "1", "--out", plain); code != 0 {
		t.Fatalf("cv: exit %d\n%s%s", code, o, e)
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown class", []string{"cv", "--data", data, "--class-weight", "setosa=2,zebra=1", "--out", out}, `no class "zebra"`},
		{"bad weight", []string{"cv", "--data", data, "--class-weight", "setosa=-1", "--out", out}, "finite weight > 0"},
		{"krr", []string{"cv", "--data", data, "--machine", "krr", "--class-weight", "balanced", "--out", out}, "not krr"},
		{"no probability model", []string{"predict", "--model", plain, "--data", data, "--probability", "--out", out}, "has no probability model"},
	} {
		code, _, stderr := runProcess(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.name, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: wrote %s", tc.name, out)
		}
	}
}

// TestTrainProbability: train --probability on data of classes writes a
// model that predict --probability reads (two classes as well as three);
// with --positive (a binary machine of the paper) it exits 2.
func TestTrainProbability(t *testing.T) {
	dir := t.TempDir()
	three := writeTable(t, dir, "three.csv", 45, 3, 0)
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%g,%g,%s\n", math.Sin(float64(i)), math.Cos(float64(3*i))+float64(i%2), []string{"no", "yes"}[i%2])
	}
	two := filepath.Join(dir, "two.csv")
	if err := os.WriteFile(two, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{three, two} {
		model := filepath.Join(dir, filepath.Base(data)+".model")
		if code, o, e := runProcess(t, "train", "--data", data, "--probability", "--lambda", "0.1", "--out", model); code != 0 {
			t.Fatalf("train %s: exit %d\n%s%s", data, code, o, e)
		}
		code, o, e := runProcess(t, "predict", "--model", model, "--data", data, "--probability", "--json")
		if code != 0 || !strings.Contains(o, `"rule": "largest probability"`) {
			t.Fatalf("predict %s: exit %d\n%s%s", data, code, o, e)
		}
	}
	code, _, stderr := runProcess(t, "train", "--data", two, "--positive", "yes", "--probability", "--out", filepath.Join(dir, "bin.model"))
	if code != 2 || !strings.Contains(stderr, "no probability model") {
		t.Errorf("train --positive --probability: exit %d, %q", code, stderr)
	}
}
