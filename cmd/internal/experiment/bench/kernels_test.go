package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/asm"
)

// TestKernelsJSON runs both kernel benchmarks at toy sizes and checks that
// every kernel set, dtype and thread count gives one well-formed line.
func TestKernelsJSON(t *testing.T) {
	defer func(d time.Duration) { microRunTime = d }(microRunTime)
	microRunTime = time.Millisecond
	for _, tc := range []struct {
		b      Benchmark
		args   []string
		op     string
		result string
		base   string
		size   []string
	}{
		{new(Relu), []string{"--n", "1000", "--runs", "1", "--threads", "2", "--json"}, "relu", "gbps", "copy_gbps", []string{"n"}},
		{new(Micro), []string{"--k", "16", "--runs", "1", "--threads", "2", "--json"}, "micro", "gflops", "peak_gflops", []string{"m", "k", "n"}},
	} {
		out, err := run(t, tc.b, Env{}, tc.args...)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.op, tc.args, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if want := 2 * 2 * len(asm.Available()); len(lines) != want {
			t.Fatalf("%s %v: %d lines, want %d:\n%s", tc.op, tc.args, len(lines), want, out)
		}
		seen := map[string]bool{}
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: bad JSON line %q: %v", tc.op, l, err)
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

func TestReluTable(t *testing.T) {
	out, err := run(t, new(Relu), Env{}, "--n", "100", "--runs", "1", "--threads", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"cpu: ", "GB/s", "% of copy", "float32", "float64", asm.Available()[0].Name()} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}
