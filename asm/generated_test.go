package asm

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGenerated checks that each generated assembly file is what its
// generator in _gen (a module of its own) writes, so that nobody edits a
// generated file by hand. It runs on any host with the go tool (not under
// qemu, where there is none), for both architectures' files.
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go tool")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	for _, tc := range []struct {
		args []string // go run arguments in _gen
		file string   // the committed output
	}{
		{[]string{"./avx"}, "gemm_amd64.s"},
		{[]string{"./avx", "-pack"}, "gemmpack_amd64.s"},
		{[]string{"./avx", "-rows"}, "gemmrows_amd64.s"},
		{[]string{"./avx", "-dot"}, "dot_amd64.s"},
		{[]string{"./neon"}, "gemm_arm64.s"},
		{[]string{"./neondirect"}, "gemmdirect_arm64.s"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			cmd := "go run " + strings.Join(tc.args, " ")
			run := exec.Command(goTool, append([]string{"run"}, tc.args...)...)
			run.Dir = "_gen"
			// The generators run on the host, whatever the test's target.
			run.Env = append(os.Environ(), "GOOS=", "GOARCH=", "GOFLAGS=")
			want, err := run.Output()
			if err != nil {
				var stderr []byte
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = ee.Stderr
				}
				t.Fatalf("%s in _gen: %v\n%s", cmd, err, stderr)
			}
			got, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from the output of %s in _gen (first at line %d); run go generate",
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
