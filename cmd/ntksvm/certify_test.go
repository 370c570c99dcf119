package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
)

// certifyWriteData writes n pixel-like points in [0, 1]^d with ±1 labels (the
// first pixel carries the label) and returns the --data spec.
func certifyWriteData(t *testing.T, dir, name string, n, d int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	x := linalg.New[float64](n, d)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(1 - 2*(i%2))
		for j := range d {
			x.Set(i, j, 0.5*rng.Float64())
		}
		x.Set(i, 0, 0.5+0.4*y[i])
	}
	xp, yp := filepath.Join(dir, name+"X.npy"), filepath.Join(dir, name+"y.npy")
	if err := npy.Write(xp, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteVector(yp, y); err != nil {
		t.Fatal(err)
	}
	return xp + "," + yp
}

func certifyTrain(t *testing.T, data, out string, extra ...string) {
	t.Helper()
	args := append([]string{"train", "--machine", "krr", "--lambda", "1", "--data", data, "--out", out}, extra...)
	if code, _, e := runCLI(t, args...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, e)
	}
}

// certifyJSON parses the --json line.
func certifyJSON(t *testing.T, out string) certifySummary {
	t.Helper()
	var s certifySummary
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &s); err != nil {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	return s
}

func TestCertifyKernelCLI(t *testing.T) {
	dir := t.TempDir()
	train := certifyWriteData(t, dir, "tr", 60, 8, 1)
	test := certifyWriteData(t, dir, "te", 30, 8, 2)
	for _, depth := range []string{"1", "2", "3"} {
		model := filepath.Join(dir, "m"+depth)
		certifyTrain(t, train, model, "--depth", depth)
		for _, tc := range [][]string{
			{},
			{"--norm", "l2", "--tight", "--clip"},
			{"--points", "10", "--seed", "4", "--correct-only"},
		} {
			csv := filepath.Join(dir, "c.csv")
			args := append([]string{"certify", "--model", model, "--data", test, "--json", "--verify", "6", "--out", csv}, tc...)
			code, out, e := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("L=%s %v: exit %d: %s", depth, tc, code, e)
			}
			s := certifyJSON(t, out)
			want := 30
			if len(tc) > 0 && tc[0] == "--points" {
				want = 10 // all correct on this separable set
			}
			if s.NPoints != want || s.Accuracy == nil || *s.Accuracy < 0.9 || !(s.MeanDelta > 0) || s.Violations != 0 ||
				s.MinDelta > s.MeanDelta || s.MaxDelta < s.MeanDelta {
				t.Errorf("L=%s %v: %+v", depth, tc, s)
			}
			b, err := os.ReadFile(csv)
			if err != nil {
				t.Fatal(err)
			}
			if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != want+1 || lines[0] != "index,label,prediction,delta" {
				t.Errorf("CSV has %d lines, header %q", len(lines), lines[0])
			}
		}
	}
}

func TestCertifyNetworkCLI(t *testing.T) {
	dir := t.TempDir()
	test := certifyWriteData(t, dir, "te", 20, 8, 2)
	net, err := ntk.NewNetwork[float64](8, 200, 2, 1, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	np, np0 := filepath.Join(dir, "net.npz"), filepath.Join(dir, "net0")
	if err := net.Save(np); err != nil {
		t.Fatal(err)
	}
	net0, _ := ntk.NewNetwork[float64](8, 200, 2, 1, 0, 9)
	if err := net0.Save(np0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range [][]string{
		{"--init-seed", "9"},
		{"--net0", np0, "--norm", "l2"},
		{"--f0", "none", "--clip"},
		{"--net0", np0, "--f0", "clean"},
	} {
		args := append([]string{"certify", "--net", np, "--data", test, "--json", "--verify", "5"}, tc...)
		code, out, e := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc, code, e)
		}
		s := certifyJSON(t, out)
		if s.NPoints != 20 || !(s.MeanDelta > 0) || (tc[len(tc)-1] != "clean" && s.Violations != 0) {
			t.Errorf("%v: %+v", tc, s)
		}
	}
	// --init-seed 9 regenerates exactly net0.
	_, a, _ := runCLI(t, "certify", "--net", np, "--data", test, "--json", "--init-seed", "9")
	_, b, _ := runCLI(t, "certify", "--net", np, "--data", test, "--json", "--net0", np0)
	if sa, sb := certifyJSON(t, a), certifyJSON(t, b); sa.MeanDelta != sb.MeanDelta {
		t.Errorf("--init-seed 9 gives mean δ %v, --net0 %v", sa.MeanDelta, sb.MeanDelta)
	}
}

func TestCertifyErrors(t *testing.T) {
	dir := t.TempDir()
	train := certifyWriteData(t, dir, "tr", 30, 8, 1)
	other := certifyWriteData(t, dir, "o", 10, 9, 2)
	model, nngp := filepath.Join(dir, "m"), filepath.Join(dir, "nngp")
	certifyTrain(t, train, model)
	certifyTrain(t, train, nngp, "--kernel", "nngp")
	xOnly := strings.Split(train, ",")[0]
	// Every label flipped: --correct-only leaves no point.
	y, err := npy.ReadVector[float64](strings.Split(train, ",")[1])
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = -y[i]
	}
	flipped := filepath.Join(dir, "flipped.npy")
	if err := npy.WriteVector(flipped, y); err != nil {
		t.Fatal(err)
	}
	checkRefusals(t, []string{"certify"}, []cliRefusal{
		{[]string{"--model", model, "--data", other}, 1, "trained on 8"},
		{[]string{"--model", nngp, "--data", train}, 1, "NTK machines only"},
		{[]string{"--model", model, "--data", train, "--init", "-0.5"}, 2, "initial radius"},
		{[]string{"--model", model, "--data", train, "--hi", "NaN"}, 2, "bracket"},
		{[]string{"--model", model, "--data", train, "--lo", "-1"}, 2, "bracket"},
		{[]string{"--model", model, "--data", train, "--points", "0"}, 2, "--points"},
		{[]string{"--model", model, "--data", train, "--norm", "l3"}, 2, "--norm"},
		{[]string{"--model", model, "--net", "x", "--data", train}, 2, "exactly one"},
		{[]string{"--data", train}, 2, "exactly one"},
		{[]string{"--net", "x.npz", "--data", train}, 2, "initial network"},
		{[]string{"--model", model, "--data", xOnly, "--correct-only"}, 2, "needs labels"},
		{[]string{"--model", model, "--data", xOnly + "," + flipped, "--correct-only"}, 1, "no points"},
		{[]string{"--model", filepath.Join(dir, "missing"), "--data", train}, 1, "missing"},
	})
}

// TestCertifyMNIST certifies a KRR machine trained on the first 1,000
// points of MNIST 0/1 at 100 test points with --verify. It needs MNIST in
// $NTKSVM_MNIST_DIR: skipped without it, failed when $CI is set.
func TestCertifyMNIST(t *testing.T) {
	mnist.RealDataDirForTest(t)
	if testing.Short() {
		t.Skip("short")
	}
	model := filepath.Join(t.TempDir(), "krr")
	args := []string{"train", "--machine", "krr", "--lambda", "1000", "--data", "mnist01", "--first", "1000", "--out", model}
	if code, _, e := runCLI(t, args...); code != 0 {
		t.Fatalf("train: %s", e)
	}
	code, out, e := runCLI(t, "certify", "--model", model, "--data", "mnist01-test", "--points", "100", "--json", "--verify", "4")
	if code != 0 {
		t.Fatalf("certify: exit %d: %s", code, e)
	}
	s := certifyJSON(t, out)
	if s.NPoints != 100 || *s.Accuracy < 0.95 || s.MeanDelta < 1e-3 || s.MeanDelta > 0.1 || s.Violations != 0 {
		t.Errorf("%+v", s)
	}
}
