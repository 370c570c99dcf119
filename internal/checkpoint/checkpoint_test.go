package checkpoint

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileAndLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.ckpt")
	sink := File(path)
	writeString := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	readAll := func(got *string) func(io.Reader) error {
		return func(r io.Reader) error {
			b, err := io.ReadAll(r)
			*got = string(b)
			return err
		}
	}
	if err := sink(10, writeString("first")); err != nil {
		t.Fatal(err)
	}
	if err := sink(20, writeString("second")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := sink(30, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	// The driver names the step; the sink names the file, once.
	if !errors.Is(err, boom) || strings.Contains(err.Error(), "step 30") || strings.Count(err.Error(), path) != 1 {
		t.Errorf("failed write: %v", err)
	}
	var got string
	if err := Load(path, readAll(&got)); err != nil || got != "second" {
		t.Errorf("Load: %q, %v; want the last whole checkpoint", got, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want the checkpoint only", len(entries))
	}

	// A loader that stops early leaves trailing bytes.
	err = Load(path, func(r io.Reader) error { _, err := r.Read(make([]byte, 3)); return err })
	if err == nil || !strings.Contains(err.Error(), "trailing bytes") {
		t.Errorf("trailing bytes: %v", err)
	}
	if err := Load(path, func(io.Reader) error { return boom }); !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("loader error: %v", err)
	}
	if err := Load(filepath.Join(filepath.Dir(path), "missing"), readAll(&got)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if err := File(filepath.Join(path, "sub", "x"))(1, writeString("x")); err == nil {
		t.Error("a checkpoint in a missing directory was accepted")
	}
}
