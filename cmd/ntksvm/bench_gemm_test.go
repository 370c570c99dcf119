package main

import (
	"strings"
	"testing"
)

// TestBenchGemmUsage checks that bad command lines are usage errors.
func TestBenchGemmUsage(t *testing.T) {
	tests := [][]string{
		{"--shapes", "10x10"},
		{"--shapes", "gram:10x10x10"},
		{"--shapes", "syrk:10"},
		{"--shapes", "0x5x5"},
		{"--shapes", "ax5x5"},
		{"--shapes", "100000x100000x100000"},
		{"--sweep", "--shapes", "5x5x5"},
		{"--float32", "--float64"},
		{"--threads", "0"},
		{"--runs", "0"},
		{"stray"},
	}
	for _, args := range tests {
		code, _, errOut := runCLI(t, append([]string{"bench", "gemm"}, args...)...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

func TestBenchGemmTooLarge(t *testing.T) {
	defer func(f func() (uint64, bool)) { availableMemory = f }(availableMemory)
	availableMemory = func() (uint64, bool) { return 1 << 30, true }
	// 3·2048² float64 are 96 MiB: fits. 3·8192² float64 are 1.5 GiB: does not.
	if code, _, errOut := runCLI(t, "bench", "gemm", "--shapes", "8192x8192x8192", "--float64", "--runs", "1"); code != 2 ||
		!strings.Contains(errOut, "1.5 GiB") || !strings.Contains(errOut, "1.0 GiB of memory available") {
		t.Errorf("8192³ float64 with 1 GiB available: exit %d, stderr %q; want 2 and the sizes", code, errOut)
	}
	// gram:NxK needs A (N×K) and C (N×N) only: 16384² float32 is 1 GiB plus A.
	if code, _, errOut := runCLI(t, "bench", "gemm", "--shapes", "gram:16384x8", "--float32", "--runs", "1"); code != 2 {
		t.Errorf("gram:16384x8 float32 with 1 GiB available: exit %d, stderr %q; want 2", code, errOut)
	}
}
