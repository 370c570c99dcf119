package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/bench"
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

// TestBenchSVM runs the steps and both exact solves on a toy Gram and
// checks every line decodes into the row type, and that a bad --data is a
// usage error.
func TestBenchSVM(t *testing.T) {
	code, out, errOut := runCLI(t, "bench", "svm", "--n", "64", "--runs", "1", "--threads", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 { // float32 and float64 steps, two solves
		t.Fatalf("%d lines, want 4:\n%s", len(lines), out)
	}
	for i, l := range lines {
		var r bench.SvmRow
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		if r.N != 64 || r.Threads != 2 || !(r.Seconds > 0) {
			t.Errorf("line %d: %+v", i, r)
		}
		if r.Op == "step" && !(r.GBps > 0 && r.BaseGBps > 0 && r.Pct > 0) {
			t.Errorf("line %d: no bandwidth: %+v", i, r)
		}
		if r.Op == "solve" && !(r.RelGap <= 1e-3) {
			t.Errorf("line %d: gap %g", i, r.RelGap)
		}
	}
	if code, _, _ := runCLI(t, "bench", "svm", "--data", "cifar"); code != 2 {
		t.Errorf("bad --data: exit %d", code)
	}
}
