package output

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "m.model"), ""},
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "m.model"), "does not exist"},
		{"", "empty"},
	} {
		err := CheckPath(tc.path)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckPath(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
}

func TestWriteFileAndTable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log.csv")
	tb := NewTable("step", "loss")
	tb.Row(1000000, 0.25)
	tb.Row(2, 1e-300)
	if err := WriteFile(p, func(w io.Writer) error { _, err := tb.WriteTo(w); return err }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "step,loss\n1000000,0.25\n2,1e-300\n" {
		t.Errorf("table: %q", b)
	}
	// A failed write leaves the old file and no temporary file.
	if err := WriteFile(p, func(w io.Writer) error { return errors.New("stop") }); err == nil {
		t.Fatal("failed write reported success")
	}
	es, _ := os.ReadDir(dir)
	if b2, _ := os.ReadFile(p); len(es) != 1 || string(b2) != string(b) {
		t.Errorf("after a failed write: %d files, content %q", len(es), b2)
	}
	var sb strings.Builder
	WriteJSONLine(&sb, map[string]int{"n": 3})
	if sb.String() != "{\"n\":3}\n" {
		t.Errorf("JSON line %q", sb.String())
	}
}

func TestWriteJSON(t *testing.T) {
	var b strings.Builder
	if err := WriteJSON(&b, map[string]any{"a": 1, "b": "<x>"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": 1,\n  \"b\": \"\\u003cx\\u003e\"\n}\n"; b.String() != want {
		t.Errorf("WriteJSON wrote %q, want %q", b.String(), want)
	}
}

func TestPrepareRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a", "b")
	var log, progress io.Writer
	var now func() time.Time
	if err := PrepareRun(out, &log, &progress, &now); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
		t.Errorf("output directory: %v", err)
	}
	if log != io.Discard || progress != io.Discard || now == nil {
		t.Errorf("defaults not filled in: %v %v %v", log, progress, now == nil)
	}
	var kept strings.Builder
	log = &kept
	if err := PrepareRun(out, &log, &progress, &now); err != nil || log != &kept {
		t.Errorf("a given log was replaced: %v", err)
	}
}

func TestRemoveMatching(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"run1.ckpt", "run2.done", "summary.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveMatching(dir, "run*.ckpt", "run*.done", "none*"); err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 1 || es[0].Name() != "summary.json" {
		t.Errorf("left %v, want only summary.json", es)
	}
	if err := RemoveMatching(dir, "[bad"); err == nil {
		t.Error("a malformed pattern gave no error")
	}
}

func TestClassReport(t *testing.T) {
	var b strings.Builder
	ClassReport(&b, "test.csv", []string{"a", "b"}, []string{"a", "b", "b", "c"}, []string{"a", "b", "a", "a"})
	want := "test.csv: accuracy 50.00% (2 of 4)\n" +
		"true\\pred      a      b      c   recall\n" +
		"       a      1      0      0  100.00%\n" +
		"       b      1      1      0   50.00%\n" +
		"       c      1      0      0    0.00%\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	for in, want := range map[string]string{"x": "x", "a,b": `"a,b"`, `say "hi"`: `"say ""hi"""`} {
		if got := CSVField(in); got != want {
			t.Errorf("CSVField(%q) = %s, want %s", in, got, want)
		}
	}
}
