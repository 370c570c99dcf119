// Package output writes what the ntksvm commands produce for people and
// programs: JSON lines, CSV tables, and files written atomically (a
// reader, or a later run after an interrupt, sees the old content or the
// whole new one, never a part and never a stray temporary file).
package output

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// WriteJSONLine prints v as one line of JSON.
func WriteJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteJSON writes v as JSON indented by two spaces, ending in a newline:
// the form of the summaries and configurations the experiments save.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// PrepareRun readies an experiment's outputs before its work starts: it
// creates the output directory out (and its parents), and fills in the
// defaults of the options that may be left nil: io.Discard for the log
// and the progress writers, time.Now for the clock.
func PrepareRun(out string, log, progress *io.Writer, now *func() time.Time) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if *log == nil {
		*log = io.Discard
	}
	if *progress == nil {
		*progress = io.Discard
	}
	if *now == nil {
		*now = time.Now
	}
	return nil
}

// RemoveMatching deletes the files in dir whose names match any of the
// patterns (filepath.Match syntax): the state an earlier run left, which a
// fresh run must not continue from. A file already gone is no error.
func RemoveMatching(dir string, patterns ...string) error {
	for _, pat := range patterns {
		files, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// CheckPath reports, before any work is done, why path cannot be written
// as an output file (atomicfile.Check): an empty name, a directory, a
// device, pipe or socket, a missing or unwritable directory, a name too
// long.
func CheckPath(path string) error { return atomicfile.Check(path) }

// WriteFile writes path atomically (internal/atomicfile) through a
// buffered writer with the content write produces; if write fails, path
// is left as it was and no temporary file remains.
func WriteFile(path string, write func(w io.Writer) error) error {
	return WriteFileContext(context.Background(), path, false, write)
}

// WriteFileContext is WriteFile that stops writing once ctx is done (a
// signal) and then commits nothing; private makes the file readable by its
// owner only (mode 0600), for files that hold a user's data.
func WriteFileContext(ctx context.Context, path string, private bool, write func(w io.Writer) error) error {
	return atomicfile.WriteFileContext(ctx, path, private, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 4<<20)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// Table is a CSV table built row by row: a header, then rows of numbers,
// integers in decimal and floats in the shortest form that reads back
// exactly (%g).
type Table struct {
	b    strings.Builder
	cols int
}

// NewTable starts a table with the column names.
func NewTable(columns ...string) *Table {
	t := &Table{cols: len(columns)}
	t.b.WriteString(strings.Join(columns, ","))
	t.b.WriteByte('\n')
	return t
}

// Row appends a row of ints and float64s; it panics if the number of
// values differs from the number of columns or a value is of another type
// (programmer errors).
func (t *Table) Row(values ...any) {
	if len(values) != t.cols {
		panic(fmt.Sprintf("output: row of %d values in a table of %d columns", len(values), t.cols))
	}
	for i, v := range values {
		if i > 0 {
			t.b.WriteByte(',')
		}
		switch v := v.(type) {
		case int:
			t.b.WriteString(strconv.Itoa(v))
		case float64:
			t.b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			panic(fmt.Sprintf("output: table value %v of type %T", v, v))
		}
	}
	t.b.WriteByte('\n')
}

// WriteTo writes the table as CSV.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	n, err := io.WriteString(w, t.b.String())
	return int64(n), err
}
