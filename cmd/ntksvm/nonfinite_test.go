package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg/npy"
)

// TestNonFiniteKernelRefused (issue defect 5): kernel and export-libsvm
// refuse to write a kernel that overflows (σ_w or σ_b of 1e200, inputs
// near 1e300), in the in-memory and the streamed (--mem-cap) paths, exit
// 1 naming the entry, and leave no file.
func TestNonFiniteKernelRefused(t *testing.T) {
	dir := t.TempDir()
	x, _, data := svmTestData(t, dir, 20, 3, 21)
	xp := strings.Split(data, ",")[0]
	big := x.Clone()
	for i := range big.Data {
		big.Data[i] = 1e300
	}
	bp := filepath.Join(dir, "big.npy")
	if err := npy.Write(bp, big); err != nil {
		t.Fatal(err)
	}
	k, g := filepath.Join(dir, "K.npy"), filepath.Join(dir, "g.txt")
	const want = "the kernel overflows: K[0, 0] is +Inf"
	checkBinaryRefusals(t, []binaryRefusal{
		{"kernel σ_w", []string{"kernel", "--data", xp, "--out", k, "--sigma-w", "1e200"}, 1, want},
		{"kernel σ_b", []string{"kernel", "--data", xp, "--out", k, "--sigma-b", "1e200"}, 1, want},
		{"kernel σ_w streamed", []string{"kernel", "--data", xp, "--out", k, "--sigma-w", "1e200", "--mem-cap", "1000"}, 1, want},
		{"kernel float32", []string{"kernel", "--data", xp, "--out", k, "--sigma-w", "1e30", "--precision", "float32"}, 1, "the kernel overflows"},
		{"kernel large inputs", []string{"kernel", "--data", bp, "--out", k}, 1, want},
		{"kernel --test", []string{"kernel", "--data", xp, "--test", bp, "--out", k}, 1, "the kernel overflows"},
		{"export-libsvm σ_w", []string{"export-libsvm", "--data", data, "--out", g, "--sigma-w", "1e200"}, 1, want},
		{"export-libsvm σ_b", []string{"export-libsvm", "--data", data, "--out", g, "--sigma-b", "1e200"}, 1, want},
		{"export-libsvm large inputs", []string{"export-libsvm", "--data", bp, "--out", g}, 1, want},
	})
	checkNoOutput(t, k)
	checkNoOutput(t, g)
}

// TestDivergenceNamesTheStep (issue defect 5): a subgradient run whose
// step size makes it diverge stops at the step where the iterate or the
// objective became non-finite, says so and which flag to change, does not
// blame the data, and writes neither the model nor the log.
func TestDivergenceNamesTheStep(t *testing.T) {
	dir := t.TempDir()
	_, _, data := svmTestData(t, dir, 30, 3, 5)
	m, log := filepath.Join(dir, "m"), filepath.Join(dir, "log.csv")
	for _, tc := range []struct {
		name  string
		extra []string
		step  string
	}{
		{"svm --lr 1e308", []string{"--lr", "1e308"}, "step 1:"},
		{"krr --lr 1000", []string{"--machine", "krr", "--lr", "1000"}, "step 36:"},
	} {
		args := append([]string{"train", "--data", data, "--out", m, "--log", log, "--solver", "subgradient", "--steps", "1000"}, tc.extra...)
		code, _, stderr := runBinary(t, args)
		if code != 1 || !strings.Contains(stderr, tc.step) || !strings.Contains(stderr, "the training diverged") ||
			!strings.Contains(stderr, "lower --lr") || strings.Contains(stderr, "kernel overflows") || strings.Contains(stderr, "LoadState") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 naming %q", tc.name, code, stderr, tc.step)
		}
		if strings.Contains(stderr, "step 1000/1000") {
			t.Errorf("%s: ran every step after the divergence", tc.name)
		}
		checkNoOutput(t, m)
		checkNoOutput(t, log)
	}
}
