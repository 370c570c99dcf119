package svm

import (
	"testing"

	"github.com/ntksvm/ntksvm/asm"
)

// TestKernelSet fails if NTKSVM_SIMD names a set this CPU cannot run (the
// tests would silently run on the default set), and makes go test's cache
// key this package's results on NTKSVM_SIMD (see asm.Check).
func TestKernelSet(t *testing.T) {
	if err := asm.Check(); err != nil {
		t.Fatal(err)
	}
	t.Logf("kernel set %s", asm.Implementation())
}
