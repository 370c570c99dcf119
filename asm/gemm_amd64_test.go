//go:build gc && !purego

package asm

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGemmAsmGenerated checks that gemm_amd64.s, gemmpack_amd64.s and
// gemmrows_amd64.s are what their generator writes, so that nobody edits
// a generated file by hand.
func TestGemmAsmGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go tool")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	for _, tc := range []struct {
		args []string // generator arguments
		file string   // the committed output
	}{
		{nil, "gemm_amd64.s"},
		{[]string{"-pack"}, "gemmpack_amd64.s"},
		{[]string{"-rows"}, "gemmrows_amd64.s"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			cmd := strings.Join(append([]string{"go run gemm_gen_amd64.go"}, tc.args...), " ")
			want, err := exec.Command(goTool, append([]string{"run", "gemm_gen_amd64.go"}, tc.args...)...).Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("%s: %v\n%s", cmd, err, stderr)
			}
			got, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from the output of %s (first at line %d); run go generate",
					tc.file, cmd, firstDiffLine(got, want))
			}
		})
	}
}

// firstDiffLine returns the 1-based number of the first line at which a
// and b differ, or 0 if they are equal.
func firstDiffLine(a, b []byte) int {
	la, lb := bytes.SplitAfter(a, []byte("\n")), bytes.SplitAfter(b, []byte("\n"))
	for i := range max(len(la), len(lb)) {
		if i >= len(la) || i >= len(lb) || !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return 0
}
