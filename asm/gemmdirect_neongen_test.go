package asm

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestGemmDirectNEONGenerated checks that gemmdirect_arm64.s is what its
// generator writes, so that nobody edits the generated file by hand. It
// runs on any host with the go tool (not under qemu, where there is none).
func TestGemmDirectNEONGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go tool")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	want, err := exec.Command(goTool, "run", "gemmdirect_gen_arm64.go").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go run gemmdirect_gen_arm64.go: %v\n%s", err, stderr)
	}
	got, err := os.ReadFile("gemmdirect_arm64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.SplitAfter(got, []byte("\n")), bytes.SplitAfter(want, []byte("\n"))
		line := 1
		for line <= min(len(gl), len(wl)) && bytes.Equal(gl[line-1], wl[line-1]) {
			line++
		}
		t.Fatalf("gemmdirect_arm64.s differs from the output of go run gemmdirect_gen_arm64.go (first at line %d); run go generate", line)
	}
}
