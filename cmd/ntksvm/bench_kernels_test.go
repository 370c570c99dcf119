package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/asm"
)

// TestBenchKernelsJSON runs both kernel benchmarks at toy sizes and checks
// that every kernel set, dtype and thread count gives one well-formed line.
func TestBenchKernelsJSON(t *testing.T) {
	defer func(d time.Duration) { microRunTime = d }(microRunTime)
	microRunTime = time.Millisecond
	for _, tc := range []struct {
		args   []string
		op     string
		result string
		base   string
		size   []string
	}{
		{[]string{"bench", "relu", "--n", "1000", "--runs", "1", "--threads", "2", "--json"}, "relu", "gbps", "copy_gbps", []string{"n"}},
		{[]string{"bench", "micro", "--k", "16", "--runs", "1", "--threads", "2", "--json"}, "micro", "gflops", "peak_gflops", []string{"m", "k", "n"}},
	} {
		code, out, errOut := runCLI(t, tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if want := 2 * 2 * len(asm.Available()); len(lines) != want {
			t.Fatalf("%v: %d lines, want %d:\n%s", tc.args, len(lines), want, out)
		}
		seen := map[string]bool{}
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%v: bad JSON line %q: %v", tc.args, l, err)
			}
			if m["op"] != tc.op {
				t.Errorf("op = %v in %s", m["op"], l)
			}
			for _, f := range append([]string{tc.result, tc.base, "pct", "threads"}, tc.size...) {
				if v, ok := m[f].(float64); !ok || !(v > 0) {
					t.Errorf("field %s = %v in %s", f, m[f], l)
				}
			}
			key := fmt.Sprint(m["impl"], "/", m["dtype"], "/", m["threads"])
			if seen[key] {
				t.Errorf("duplicate row %s", key)
			}
			seen[key] = true
		}
	}
}

func TestBenchKernelsTable(t *testing.T) {
	code, out, errOut := runCLI(t, "bench", "relu", "--n", "100", "--runs", "1", "--threads", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []string{"cpu: ", "GB/s", "% of copy", "float32", "float64", asm.Available()[0].Name()} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}

func TestBenchKernelsUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "relu", "--n", "0"},
		{"bench", "relu", "--n", "-5"},
		{"bench", "relu", "--n", "1e12"},
		{"bench", "relu", "--n", "99999999999"},
		{"bench", "relu", "--runs", "0"},
		{"bench", "relu", "--threads", "0"},
		{"bench", "relu", "stray"},
		{"bench", "micro", "--k", "0"},
		{"bench", "micro", "--k", "100000"},
		{"bench", "micro", "--bogus"},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}
