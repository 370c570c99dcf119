package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestBenchSVMStepJSON runs the step benchmark on a toy Gram and checks
// one well-formed line per dtype with positive rates and percentage.
func TestBenchSVMStepJSON(t *testing.T) {
	code, out, errOut := runCLI(t, "bench", "svm", "--n", "64", "--runs", "2", "--threads", "2", "--no-solve", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (float32, float64):\n%s", len(lines), out)
	}
	for i, dt := range []string{"float32", "float64"} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", lines[i], err)
		}
		if m["op"] != "step" || m["dtype"] != dt || m["n"] != 64.0 || m["threads"] != 2.0 {
			t.Errorf("line %d: %s, want a %s step with n = 64 on 2 threads", i, lines[i], dt)
		}
		for _, f := range []string{"seconds", "gbps", "read_gbps", "pct"} {
			if v, ok := m[f].(float64); !ok || !(v > 0) {
				t.Errorf("line %d: field %s = %v", i, f, m[f])
			}
		}
	}
}

// TestSVMReadRows checks that the bandwidth baseline reads every element
// exactly once for any thread count and row grouping (small integers sum
// exactly), never the padding.
func TestSVMReadRows(t *testing.T) {
	for _, c := range []struct{ rows, cols, stride int }{{1, 1, 1}, {7, 33, 40}, {50, 100, 100}, {9, 4099, 4104}} {
		data32 := make([]float32, (c.rows-1)*c.stride+c.cols)
		data64 := make([]float64, len(data32))
		want := 0.0
		for i := range data32 {
			v := float64(i%13 - 6)
			if i%c.stride >= c.cols {
				v = 1e9 // padding: must not be read
			} else {
				want += v
			}
			data32[i], data64[i] = float32(v), v
		}
		k32, err := linalg.FromStrided(c.rows, c.cols, c.stride, data32)
		if err != nil {
			t.Fatal(err)
		}
		k64, err := linalg.FromStrided(c.rows, c.cols, c.stride, data64)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range []int{1, 2, 3, 64} {
			if got := svmReadRows(k32, th); got != want {
				t.Errorf("%+v float32, %d threads: %v, want %v", c, th, got, want)
			}
			if got := svmReadRows(k64, th); got != want {
				t.Errorf("%+v float64, %d threads: %v, want %v", c, th, got, want)
			}
		}
	}
}
