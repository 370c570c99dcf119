package main

import (
	"encoding/json"
	"math"
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

// TestKernelCommand: the file written by "ntksvm kernel" equals the ntk
// package's kernel, for the Gram and the cross kernel, both kinds and both
// precisions, with and without a memory cap that forces row blocks.
func TestKernelCommand(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	x, z := linalg.New[float64](23, 6), linalg.New[float32](5, 6)
	for i := range x.Data {
		x.Data[i] = rng.Float64()
	}
	for i := range z.Data {
		z.Data[i] = float32(rng.Float64())
	}
	xp, zp := filepath.Join(dir, "X.npy"), filepath.Join(dir, "Z.npy")
	if err := npy.Write(xp, x); err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(zp, z); err != nil {
		t.Fatal(err)
	}
	z64 := linalg.New[float64](5, 6)
	for i, v := range z.Data {
		z64.Data[i] = float64(v)
	}
	ctx := t.Context()
	p := ntk.Spec{Depth: 2, WeightStd: 1.5, BiasStd: 0.1}
	pf := p
	pf.Fixed = 1
	g := p
	g.Kind = ntk.KindNNGP
	for _, tc := range []struct {
		args []string
		want func() (linalg.Matrix[float64], error)
		tol  float64
	}{
		{nil, func() (linalg.Matrix[float64], error) { return ntk.Gram(ctx, p, x, ntk.Options{}) }, 1e-12},
		{[]string{"--mem-cap", "400B"}, func() (linalg.Matrix[float64], error) { return ntk.Gram(ctx, p, x, ntk.Options{}) }, 1e-12},
		{[]string{"--kind", "nngp"}, func() (linalg.Matrix[float64], error) { return ntk.Gram(ctx, g, x, ntk.Options{}) }, 1e-12},
		{[]string{"--test", zp}, func() (linalg.Matrix[float64], error) { return ntk.Cross(ctx, p, z64, x, ntk.Options{}) }, 1e-12},
		{[]string{"--test", zp, "--float32", "--kind", "nngp"}, func() (linalg.Matrix[float64], error) { return ntk.Cross(ctx, g, z64, x, ntk.Options{}) }, 1e-5},
		{[]string{"--fixed", "1"}, func() (linalg.Matrix[float64], error) { return ntk.Gram(ctx, pf, x, ntk.Options{}) }, 0},
		{[]string{"--fixed", "1", "--mem-cap", "400B", "--test", zp}, func() (linalg.Matrix[float64], error) { return ntk.Cross(ctx, pf, z64, x, ntk.Options{}) }, 1e-12},
		{[]string{"--fixed", "2"}, func() (linalg.Matrix[float64], error) { return ntk.Gram(ctx, g, x, ntk.Options{}) }, 0},
	} {
		out := filepath.Join(dir, "K.npy")
		args := append([]string{"kernel", "--train", xp, "--depth", "2", "--weight-std", "1.5", "--bias-std", "0.1", "--out", out}, tc.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		if !strings.Contains(stdout, "wrote "+out) {
			t.Errorf("%v: stdout %q", tc.args, stdout)
		}
		got, err := npy.Read[float64](out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tc.want()
		if err != nil {
			t.Fatal(err)
		}
		if got.Rows != want.Rows || got.Cols != want.Cols {
			t.Fatalf("%v: %d×%d, want %d×%d", tc.args, got.Rows, got.Cols, want.Rows, want.Cols)
		}
		for i, v := range want.Data {
			if math.Abs(got.Data[i]-v) > tc.tol*math.Max(1, math.Abs(v)) {
				t.Fatalf("%v: element %d = %v, want %v", tc.args, i, got.Data[i], v)
			}
		}
	}
}

func TestKernelCommandErrors(t *testing.T) {
	dir := t.TempDir()
	x := linalg.New[float64](4, 3)
	x.Set(2, 1, math.Inf(1))
	bad := filepath.Join(dir, "bad.npy")
	if err := npy.Write(bad, x); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.npy")
	if err := npy.Write(good, linalg.New[float64](4, 3)); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.npy")
	if err := npy.Write(other, linalg.New[float64](2, 5)); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(dir, "garbage.npy")
	os.WriteFile(garbage, []byte("not a numpy file"), 0o644)
	out := filepath.Join(dir, "K.npy")
	checkRefusals(t, []string{"kernel"}, []cliRefusal{
		{[]string{"--out", out}, 2, "--data is required"},
		{[]string{"--train", good}, 2, "--out is required"},
		{[]string{"--train", good, "--out", filepath.Join(dir, "K.txt")}, 2, ".npy"},
		{[]string{"--train", good, "--out", out, "--depth", "0"}, 2, "depth"},
		{[]string{"--train", good, "--out", out, "--weight-std", "-1"}, 2, "weight std"},
		{[]string{"--train", good, "--out", out, "--kind", "rbf"}, 2, "--kind"},
		{[]string{"--train", good, "--out", out, "--mem-cap", "lots"}, 2, "--mem-cap"},
		{[]string{"--train", good, "--out", out, "--depth", "2", "--fixed", "3"}, 2, "fixed layers 3: want 0…2"},
		{[]string{"--train", good, "--out", out, "--fixed", "-1"}, 2, "fixed layers -1"},
		{[]string{"--train", good, "--out", out, "--kind", "nngp", "--fixed", "1"}, 2, "--fixed: fixed layers 1 with the nngp"},
		{[]string{"--train", bad, "--out", out}, 1, "row 2, column 1"},
		{[]string{"--train", garbage, "--out", out}, 1, "garbage.npy"},
		{[]string{"--train", filepath.Join(dir, "missing.npy"), "--out", out}, 1, "missing.npy"},
		{[]string{"--train", good, "--test", other, "--out", out}, 1, "features"},
		{[]string{"--train", good, "--out", out, "--mem-cap", "8"}, 1, "memory cap"},
	})
	checkNoOutput(t, out)
}

func TestBenchNTKAndTrain(t *testing.T) {
	code, out, stderr := runCLI(t, "bench", "ntk", "--n", "70", "--d", "9", "--depth", "2", "--runs", "1", "--json", "--float32")
	if code != 0 {
		t.Fatalf("bench ntk: exit %d: %s", code, stderr)
	}
	var row map[string]any
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		t.Fatalf("bench ntk: %v in %q", err, out)
	}
	for _, k := range []string{"op", "n", "d", "depth", "dtype", "threads", "seconds", "gemm_seconds", "ratio"} {
		if _, ok := row[k]; !ok {
			t.Errorf("bench ntk: no %q in %s", k, out)
		}
	}
	if row["n"] != 70.0 || row["dtype"] != "float32" || row["depth"] != 2.0 {
		t.Errorf("bench ntk: %s", out)
	}
	code, out, stderr = runCLI(t, "bench", "train", "--n", "8", "--d", "5", "--width", "16", "--runs", "1", "--json")
	if code != 0 {
		t.Fatalf("bench train: exit %d: %s", code, stderr)
	}
	row = nil
	if err := json.Unmarshal([]byte(out), &row); err != nil {
		t.Fatalf("bench train: %v in %q", err, out)
	}
	for _, k := range []string{"gflops", "sgemm_gflops", "pct", "seconds"} {
		if v, ok := row[k].(float64); !ok || !(v > 0) {
			t.Errorf("bench train: %q = %v in %s", k, row[k], out)
		}
	}
	if code, _, _ := runCLI(t, "bench", "ntk", "--float32", "--float64"); code != 2 {
		t.Errorf("bench ntk --float32 --float64: exit %d, want 2", code)
	}
}

// TestKernelMNIST writes the 2-layer NTK of the MNIST 0/1 test set against
// itself through the CLI and checks rows against the paper's closed form
// (eq. 63). It needs $NTKSVM_MNIST_DIR; it fails without it when $CI is set.
func TestKernelMNIST(t *testing.T) {
	dir := mnist.RealDataDirForTest(t)
	if testing.Short() {
		t.Skip("2115×2115 kernel: not with -short")
	}
	out := filepath.Join(t.TempDir(), "K.npy")
	code, _, stderr := runCLI(t, "kernel", "--train", "mnist01", "--test", "mnist01-test", "--out", out, "--float32")
	if code != 0 {
		t.Fatalf("kernel: exit %d: %s", code, stderr)
	}
	k, err := npy.Read[float64](out)
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := mnist.LoadBinary[float64](dir, 0, 1, mnist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k.Rows != 2115 || k.Cols != 12665 {
		t.Fatalf("K(Z, X) is %d×%d, want 2115×12665", k.Rows, k.Cols)
	}
	for _, i := range []int{0, 1, 777, 2114} {
		for _, j := range []int{0, 5, 6000, 12664} {
			a, b := test.X.Row(i), train.X.Row(j)
			var dot, na, nb float64
			for q := range a {
				dot += a[q] * b[q]
				na += a[q] * a[q]
				nb += b[q] * b[q]
			}
			na, nb = math.Sqrt(na), math.Sqrt(nb)
			u := min(max(dot/(na*nb), -1), 1)
			want := na * nb * (2*u*(math.Pi-math.Acos(u)) + math.Sqrt(1-u*u)) / (2 * math.Pi * 784)
			if math.Abs(k.At(i, j)-want) > 1e-5*want {
				t.Errorf("K(test %d, train %d) = %v, eq. (63) gives %v", i, j, k.At(i, j), want)
			}
		}
	}
}
