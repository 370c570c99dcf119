package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// TestMain runs the command itself when NTKSVM_TEST_ARGS is set, so that
// tests can start the test binary as "ntksvm" in a process of its own
// (signals, exit codes). The arguments are separated by newlines.
func TestMain(m *testing.M) {
	if a, ok := os.LookupEnv("NTKSVM_TEST_ARGS"); ok {
		os.Args = append([]string{"ntksvm"}, strings.Split(a, "\n")...)
		main()
		return
	}
	os.Exit(m.Run())
}

// TestSignalsStopARun starts a long subgradient run as a process, sends it
// SIGTERM (then, in a second run, SIGINT) once training has started, and
// checks that it stops within two seconds with status 143 (130), says
// "interrupted" and not "context canceled", and leaves no file behind.
func TestSignalsStopARun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		dir := t.TempDir()
		_, _, data := svmTestData(t, dir, 200, 3, 9)
		before, _ := os.ReadDir(dir)
		args := []string{"train", "--data", data, "--out", filepath.Join(dir, "m"), "--solver", "subgradient",
			"--steps", "1000000000", "--log-count", "0", "--log", filepath.Join(dir, "log.csv")}
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "NTKSVM_TEST_ARGS="+strings.Join(args, "\n"))
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.HasPrefix(sc.Text(), "Gram:") {
				break
			}
		}
		time.Sleep(200 * time.Millisecond) // well into the training loop
		t0 := time.Now()
		cmd.Process.Signal(tc.sig)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		cmd.Wait()
		el := time.Since(t0)
		out := strings.Join(lines, "\n")
		if code := cmd.ProcessState.ExitCode(); code != tc.code || el > 2*time.Second {
			t.Errorf("%v: exit %d after %v, want %d within 2s; stderr:\n%s", tc.sig, code, el, tc.code, out)
		}
		if !strings.Contains(out, "interrupted") || strings.Contains(out, "context canceled") {
			t.Errorf("%v: stderr:\n%s", tc.sig, out)
		}
		if after, _ := os.ReadDir(dir); len(after) != len(before) {
			t.Errorf("%v: %d files before, %d after", tc.sig, len(before), len(after))
		}
	}
}

// TestInterruptedExact: a cancelled run (the exact KRR solve included)
// exits 130 with "interrupted".
func TestInterruptedExact(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 30, 3, 2)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(interrupted{os.Interrupt})
	var o, e strings.Builder
	code := runMain(ctx, &env{stdout: &o, stderr: &e}, []string{"train", "--machine", "krr", "--data", data, "--out", filepath.Join(dir, "m")})
	if code != 130 || !strings.Contains(e.String(), "ntksvm train: interrupted") || strings.Contains(e.String(), "canceled") {
		t.Errorf("exit %d, stderr %q", code, e.String())
	}
	ctx, c2 := context.WithCancelCause(context.Background())
	c2(interrupted{syscall.SIGTERM})
	if code := runMain(ctx, &env{stdout: &o, stderr: &e}, []string{"train", "--machine", "krr", "--data", data, "--out", filepath.Join(dir, "m")}); code != 143 {
		t.Errorf("SIGTERM: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "m")); !os.IsNotExist(err) {
		t.Error("an interrupted run wrote the model")
	}
}

// TestValidateBeforeLoading: every flag, output path and combination is
// checked before any data is read: the data file here does not exist, so
// an error about anything else proves the order.
func TestValidateBeforeLoading(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.npy") + "," + filepath.Join(dir, "none-y.npy")
	out := filepath.Join(dir, "m")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--solver", "subgradient", "--epochs", "-1"}, "--epochs -1"},
		{[]string{"--solver", "subgradient", "--steps", "-5"}, "--steps -5"},
		{[]string{"--out", filepath.Join(dir, "no", "m")}, "directory " + filepath.Join(dir, "no") + " does not exist"},
		{[]string{"--out", dir}, "is a directory"},
		{[]string{"--solver", "subgradient", "--log", filepath.Join(dir, "no", "l.csv")}, "--log"},
		{[]string{"--export-libsvm", dir}, "--export-libsvm"},
		{[]string{"--log", filepath.Join(dir, "l.csv")}, "--log applies to --solver subgradient only"},
		{[]string{"--epochs", "3"}, "--epochs applies to --solver subgradient only"},
		{[]string{"--solver", "subgradient", "--gap", "0.01"}, "--gap applies to --solver exact only"},
		{[]string{"--machine", "krr", "--epsilon", "0.2"}, "--epsilon applies to --machine svr only"},
		{[]string{"--solver", "subgradient", "--track-test", "1"}, "--track-test needs --test"},
		{[]string{"--test", "X.npy,"}, "label file after the comma is missing"},
	} {
		args := append([]string{"train", "--data", missing, "--out", out}, tc.args...)
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "none.npy") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if code, _, stderr := runCLI(t, "train", "--data", "X.npy,", "--out", out); code != 2 || !strings.Contains(stderr, "--data \"X.npy,\": the label file after the comma is missing") {
		t.Errorf("--data X.npy,: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "predict", "--model", "m", "--data", missing, "--out", dir); code != 2 || !strings.Contains(stderr, "is a directory") {
		t.Errorf("predict --out DIR: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "kernel", "--data", missing, "--out", filepath.Join(dir, "no", "K.npy")); code != 2 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("kernel --out in a missing directory: exit %d, %q", code, stderr)
	}
}

// TestEvaluationLabels: labels are a two-class task whatever their
// spelling: 0/1 labels fit and score as the same ±1 task; --test with a
// class the training data lacks, and predict on data of three classes,
// are refused naming --positive.
func TestEvaluationLabels(t *testing.T) {
	dir := t.TempDir()
	_, y, data := svmTestData(t, dir, 20, 3, 3)
	y01, y3 := make([]float64, len(y)), make([]float64, len(y))
	for i, v := range y {
		y01[i] = (v + 1) / 2 // 0/1 labels
		y3[i] = float64(i % 3)
	}
	yp, yp3 := filepath.Join(dir, "y01.npy"), filepath.Join(dir, "y3.npy")
	npy.WriteVector(yp, y01)
	npy.WriteVector(yp3, y3)
	xp := strings.Split(data, ",")[0]
	bad := xp + "," + yp
	model := filepath.Join(dir, "m")
	code, _, stderr := runCLI(t, "train", "--data", data, "--test", bad, "--out", model, "--lambda", "0.1")
	if code != 2 || !strings.Contains(stderr, `has class "0"`) || !strings.Contains(stderr, "--positive") {
		t.Errorf("--test with 0/1 labels: exit %d, %q", code, stderr)
	}
	code, out01, stderr := runCLI(t, "train", "--data", bad, "--out", model, "--lambda", "0.1")
	if code != 0 {
		t.Fatalf("--data with 0/1 labels: exit %d, %q", code, stderr)
	}
	code, outPM, stderr := runCLI(t, "train", "--data", data, "--out", model, "--lambda", "0.1")
	if code != 0 || out01 != outPM {
		t.Fatalf("train: exit %d, %s; 0/1 labels gave %q, ±1 %q", code, stderr, out01, outPM)
	}
	code, p01, _ := runCLI(t, "predict", "--model", model, "--data", bad)
	code2, pPM, _ := runCLI(t, "predict", "--model", model, "--data", data)
	if code != 0 || code2 != 0 || strings.TrimPrefix(p01, bad) != strings.TrimPrefix(pPM, data) {
		t.Errorf("predict with 0/1 labels: exit %d, %q; with ±1 %q", code, p01, pPM)
	}
	code, _, stderr = runCLI(t, "predict", "--model", model, "--data", xp+","+yp3)
	if code != 2 || !strings.Contains(stderr, "3 classes") || !strings.Contains(stderr, "--positive CLASS") {
		t.Errorf("predict on three classes: exit %d, %q", code, stderr)
	}
}

// TestDegenerateInput: no training rows, a kernel that overflows, one
// that underflows at large depth, a 1-D X, a LIBSVM file implying more
// memory than there is: errors (or a warning), never a silent 0 %.
func TestDegenerateInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m")
	x, y, data := svmTestData(t, dir, 20, 3, 4)
	empty := filepath.Join(dir, "e.npy")
	npy.Write(empty, linalg.New[float64](0, 3))
	ey := filepath.Join(dir, "ey.npy")
	npy.WriteVector(ey, []float64{})
	big := x.Clone()
	for i := range big.Data {
		big.Data[i] *= 1e200
	}
	bp := filepath.Join(dir, "big.npy")
	npy.Write(bp, big)
	vec := filepath.Join(dir, "v.npy")
	npy.WriteVector(vec, y)
	yp := strings.Split(data, ",")[1]
	huge := filepath.Join(dir, "huge.libsvm")
	os.WriteFile(huge, []byte("1 1073741824:1\n-1 1:1\n"), 0o644)
	defer func(f func() (uint64, bool)) { availableMemory = f }(availableMemory)
	availableMemory = func() (uint64, bool) { return 1 << 30, true }
	checkRefusals(t, []string{"train", "--out", out, "--lambda", "0.1"}, []cliRefusal{
		{[]string{"--data", empty + "," + ey}, 1, "0 points × 3 features: no data"},
		{[]string{"--data", bp + "," + yp}, 1, "the kernel overflows"},
		{[]string{"--data", data, "--depth", "200", "--precision", "float32"}, 1, "the kernel is 0 on every training point"},
		{[]string{"--data", vec + "," + yp}, 1, "shape [20] is not a matrix of inputs"},
		{[]string{"--data", huge}, 1, "1073741824 features need 16384 MiB, more than the 512 MiB allowed"},
	})
	code, _, stderr := runCLI(t, "train", "--out", out, "--lambda", "0.1", "--data", data, "--depth", "90", "--machine", "krr")
	if code != 0 || !strings.Contains(stderr, "warning: the kernel is at most") {
		t.Errorf("depth 90: exit %d, stderr %q; want a warning", code, stderr)
	}
}

// TestHelp: "ntksvm help CMD" and "ntksvm CMD help" show the command's
// flags; an invalid NTKSVM_SIMD does not break help.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "train"}, {"train", "help"}, {"train", "-h"}} {
		code, _, stderr := runCLI(t, args...)
		if code != 0 || !strings.Contains(stderr, "Usage: ntksvm train") || !strings.Contains(stderr, "-machine") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "help", "nosuch"); code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Errorf("help nosuch: exit %d, %q", code, stderr)
	}
	if testing.Short() {
		return
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "NTKSVM_TEST_ARGS=help", "NTKSVM_SIMD=nosuch")
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "Commands:") || !strings.Contains(string(b), "nosuch") {
		t.Errorf("help with NTKSVM_SIMD=nosuch: %v\n%s", err, b)
	}
}

// TestDeprecatedAliases: the old flag spellings of "ntksvm kernel" still
// work, with a warning, and give the same kernel as the new ones.
func TestDeprecatedAliases(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 10, 3, 5)
	xp := strings.Split(data, ",")[0]
	k1, k2 := filepath.Join(dir, "k1.npy"), filepath.Join(dir, "k2.npy")
	code, _, stderr := runCLI(t, "kernel", "--train", xp, "--weight-std", "1.5", "--bias-std", "0.1", "--kind", "nngp", "--float32", "--out", k1)
	if code != 0 || strings.Count(stderr, "is deprecated") != 5 || !strings.Contains(stderr, "use --sigma-w") {
		t.Fatalf("old spellings: exit %d, %q", code, stderr)
	}
	code, _, stderr = runCLI(t, "kernel", "--data", xp, "--sigma-w", "1.5", "--sigma-b", "0.1", "--kernel", "nngp", "--precision", "float32", "--out", k2)
	if code != 0 || strings.Contains(stderr, "deprecated") {
		t.Fatalf("new spellings: exit %d, %q", code, stderr)
	}
	a, _ := os.ReadFile(k1)
	b, _ := os.ReadFile(k2)
	if string(a) != string(b) {
		t.Error("old and new spellings give different kernels")
	}
}
