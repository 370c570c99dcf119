package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBenchGemmJSON runs small shapes and checks every JSON field.
func TestBenchGemmJSON(t *testing.T) {
	defer func(d time.Duration) { peakTime = d }(peakTime)
	peakTime = 5 * time.Millisecond
	code, out, errOut := runCLI(t, "bench", "gemm", "--shapes", "33x17x40,gram:50x9,syrk:20x7", "--float32", "--runs", "1", "--threads", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []gflopsRow{
		{Op: "gemm", Dtype: "float32", Threads: 2, M: 33, K: 17, N: 40},
		{Op: "gram", Dtype: "float32", Threads: 2, M: 50, K: 9, N: 50},
		{Op: "syrk", Dtype: "float32", Threads: 2, M: 20, K: 7, N: 20},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, l := range lines {
		var r gflopsRow
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		w := want[i]
		if r.Op != w.Op || r.Dtype != w.Dtype || r.Threads != w.Threads || r.M != w.M || r.K != w.K || r.N != w.N {
			t.Errorf("line %d: %+v, want shape %+v", i, r, w)
		}
		if r.Impl == "" || !(r.GFlops > 0) || !(r.PeakGFlops > 0) || !(r.Seconds > 0) || !(r.Pct > 0) {
			t.Errorf("line %d: missing measurement: %+v", i, r)
		}
		for _, key := range []string{`"op"`, `"dtype"`, `"impl"`, `"threads"`, `"m"`, `"k"`, `"n"`, `"gflops"`, `"peak_gflops"`, `"pct"`, `"seconds"`} {
			if !strings.Contains(l, key) {
				t.Errorf("line %d lacks %s: %s", i, key, l)
			}
		}
	}
}

// TestBenchGemmTable checks the table header and one row.
func TestBenchGemmTable(t *testing.T) {
	defer func(d time.Duration) { peakTime = d }(peakTime)
	peakTime = 5 * time.Millisecond
	code, out, errOut := runCLI(t, "bench", "gemm", "--shapes", "20x30x10", "--float64", "--runs", "1", "--threads", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "GFLOP/s") || !strings.Contains(out, "gemm  float64      20     30     10       1") {
		t.Fatalf("unexpected table:\n%s", out)
	}
}

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

func TestParseGemmShapes(t *testing.T) {
	got, err := parseGemmShapes("2x3x4, gram:5×6,syrk:7x8")
	if err != nil {
		t.Fatal(err)
	}
	want := []gemmShape{
		{"gemm", "float32", 2, 3, 4}, {"gemm", "float64", 2, 3, 4},
		{"gram", "float32", 5, 6, 5}, {"gram", "float64", 5, 6, 5},
		{"syrk", "float32", 7, 8, 7}, {"syrk", "float64", 7, 8, 7},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
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
