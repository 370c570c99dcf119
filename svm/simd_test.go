package svm

import (
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestKernelSet fails if NTKSVM_SIMD names a set this CPU cannot run (the
// tests would silently run on the default set), and makes go test's cache
// key this package's results on NTKSVM_SIMD (see linalg.KernelSet).
func TestKernelSet(t *testing.T) {
	name, err := linalg.KernelSet()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kernel set %s", name)
}
