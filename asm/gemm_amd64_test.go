//go:build gc && !purego

package asm

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestGemmAsmGenerated checks that gemm_amd64.s is what its generator
// writes, so that nobody edits the generated file by hand.
func TestGemmAsmGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Go tool")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	want, err := exec.Command(goTool, "run", "gemm_gen_amd64.go").Output()
	if err != nil {
		t.Fatalf("go run gemm_gen_amd64.go: %v", err)
	}
	got, err := os.ReadFile("gemm_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("gemm_amd64.s differs from the output of gemm_gen_amd64.go; run go generate")
	}
}
