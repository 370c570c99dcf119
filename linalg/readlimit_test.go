package linalg

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetReadLimit: a reader refuses an array larger than the read limit
// before allocating it, and reads it once the limit is lifted.
func TestSetReadLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.npy")
	if err := WriteNpy(path, New[float32](100, 10)); err != nil {
		t.Fatal(err)
	}
	defer SetReadLimit(SetReadLimit(1000))
	for _, tc := range []struct {
		name string
		read func() error
		want string
	}{
		{"ReadNpy as float64", func() error { _, err := ReadNpy[float64](path); return err }, "needs"},
		{"ReadNpy as float32", func() error { _, err := ReadNpy[float32](path); return err }, "shape [100 10] read as 4-byte elements"},
		{"ReadNpyVector", func() error { _, err := ReadNpyVector[float64](path); return err }, "not a vector"},
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
	if _, err := ReadNpy[float64](path); err != nil {
		t.Errorf("without a limit: %v", err)
	}
}
