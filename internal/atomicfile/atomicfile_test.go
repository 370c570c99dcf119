package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		write   func(io.Writer) error
		wantErr error
		want    string
	}{
		{"failed write keeps the old content", func(w io.Writer) error {
			io.WriteString(w, "partial")
			return boom
		}, boom, "old"},
		{"successful write replaces it", func(w io.Writer) error {
			_, err := io.WriteString(w, "new")
			return err
		}, nil, "new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteFile(path, tc.write)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Fatalf("content %q, want %q", got, tc.want)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("%d entries in the directory, want 1 (a temporary file survived)", len(ents))
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		path, want string
	}{
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "x"), "does not exist"},
		{"", "empty file name"},
		{"-", "standard output"},
		{filepath.Join(dir, strings.Repeat("n", NameMax+1)), "the limit is 255"},
	}
	for _, tc := range tests {
		_, err := Create(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Create(%q) = %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
}

func TestAbortAfterCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	if b, err := os.ReadFile(path); err != nil || string(b) != "x" {
		t.Fatalf("after Commit and Abort: %q, %v", b, err)
	}
	if err := f.Commit(); err == nil {
		t.Error("second Commit: no error")
	}
}

// TestAbortLeavesNothing: Abort removes the temporary file.
func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "y"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Path() != filepath.Join(dir, "y") {
		t.Errorf("Path() = %q", f.Path())
	}
	f.WriteString("partial")
	f.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries after Abort, want 0", len(ents))
	}
}
