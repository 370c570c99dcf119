package npy

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestSetReadLimit: a reader refuses an array larger than the read limit
// before allocating it, and reads it once the limit is lifted.
func TestSetReadLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.npy")
	if err := Write(path, linalg.New[float32](100, 10)); err != nil {
		t.Fatal(err)
	}
	defer SetReadLimit(SetReadLimit(1000))
	for _, tc := range []struct {
		name string
		read func() error
		want string
	}{
		{"Read as float64", func() error { _, err := Read[float64](path); return err }, "needs"},
		{"Read as float32", func() error { _, err := Read[float32](path); return err }, "shape [100 10] read as 4-byte elements"},
		{"ReadVector", func() error { _, err := ReadVector[float64](path); return err }, "not a vector"},
	} {
		err := tc.read()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.want != "not a vector" && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v does not wrap ErrTooLarge", tc.name, err)
		}
	}
	SetReadLimit(0)
	if _, err := Read[float64](path); err != nil {
		t.Errorf("without a limit: %v", err)
	}
}
