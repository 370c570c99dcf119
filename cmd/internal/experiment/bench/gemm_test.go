package bench

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestGemmJSON runs small shapes and checks every JSON field.
func TestGemmJSON(t *testing.T) {
	defer func(d time.Duration) { peakTime = d }(peakTime)
	peakTime = 5 * time.Millisecond
	out, err := run(t, new(Gemm), Env{}, "--shapes", "33x17x40,gram:50x9,syrk:20x7", "--float32", "--runs", "1", "--threads", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []GflopsRow{
		{Op: "gemm", Dtype: "float32", Threads: 2, M: 33, K: 17, N: 40},
		{Op: "gram", Dtype: "float32", Threads: 2, M: 50, K: 9, N: 50},
		{Op: "syrk", Dtype: "float32", Threads: 2, M: 20, K: 7, N: 20},
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, l := range lines {
		var r GflopsRow
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

// TestGemmTable checks the table header and one row.
func TestGemmTable(t *testing.T) {
	defer func(d time.Duration) { peakTime = d }(peakTime)
	peakTime = 5 * time.Millisecond
	out, err := run(t, new(Gemm), Env{}, "--shapes", "20x30x10", "--float64", "--runs", "1", "--threads", "1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "GFLOP/s") || !strings.Contains(out, "gemm  float64      20     30     10       1") {
		t.Fatalf("unexpected table:\n%s", out)
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

// TestGemmTooLarge: shapes whose operands exceed the memory Env reports
// are refused, naming both sizes, before anything is allocated.
func TestGemmTooLarge(t *testing.T) {
	env := Env{Available: func() (uint64, bool) { return 1 << 30, true }}
	for _, tc := range []struct {
		args []string
		msg  []string
	}{
		// 3·8192² float64 are 1.5 GiB.
		{[]string{"--shapes", "8192x8192x8192", "--float64"}, []string{"1.5 GiB", "1.0 GiB of memory available"}},
		// gram:NxK needs A (N×K) and C (N×N) only: 16384² float32 is 1 GiB plus A.
		{[]string{"--shapes", "gram:16384x8", "--float32"}, nil},
	} {
		_, err := run(t, new(Gemm), env, append(tc.args, "--runs", "1")...)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%v with 1 GiB available: %v, want an ErrUsage error", tc.args, err)
			continue
		}
		for _, m := range tc.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%v: %q lacks %q", tc.args, err, m)
			}
		}
	}
}
