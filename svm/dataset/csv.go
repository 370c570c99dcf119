package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Header says whether the first line of a CSV file names the columns.
type Header uint8

const (
	HeaderAuto Header = iota // a header when a non-label cell of the first line is not a number
	HeaderYes                // the first line is a header
	HeaderNo                 // every line is data
)

// Options control the readers. The zero value reads a CSV file with its
// delimiter detected, a header if it has one, the label in the last column,
// and refuses missing values.
type Options struct {
	// Comma is the CSV delimiter; 0 detects it among ',', ';', '\t' and
	// '|' from the first line.
	Comma  rune
	Header Header
	// Label is the class column: a name from the header, or a 0-based
	// index; negative indices count from the end. "" means the last
	// column (ARFF: the attribute named "class", else the last).
	Label   string
	Missing MissingPolicy
	// MaxBytes, if positive, refuses a file whose features would need more
	// than that many bytes of memory, before they are read, and bounds the
	// length of a line (maxLineBytes).
	MaxBytes int64

	// The options of Open beyond the readers'.

	// First keeps the first First examples (0: all).
	First int
	// Dim is the number of features a LIBSVM file is read with (the
	// training set's, for a test set); 0 takes the largest index in the
	// file.
	Dim int
	// MNISTDir is the MNIST directory; "" means $NTKSVM_MNIST_DIR, else the
	// user cache directory (mnist.Locate). MNISTDirFlag names the option
	// that set it in messages (e.g. "--mnist-dir").
	MNISTDir, MNISTDirFlag string
	// AllowNonCanonical uses MNIST files whose content is not the
	// canonical MNIST, after a warning on Warn naming each.
	AllowNonCanonical bool
	// Standardize scales MNIST pixels as (p/255 − 0.1307)/0.3081 (the
	// normalisation of the authors' data loaders) instead of p/255.
	Standardize bool
	Warn        io.Writer // warnings; nil discards them
	// Context, if not nil, ends an Open early: Open returns an error
	// wrapping its error as soon as it is done.
	Context context.Context
}

// ReadCSV reads a CSV table whose columns are numeric features and one
// class column of names or numbers. A UTF-8 byte-order mark and CRLF line
// ends are accepted; fields may be quoted.
func ReadCSV(r io.Reader, name string, o Options) (*Dataset, error) {
	lr := &lineLimiter{r: r, limit: maxLineBytes(o), line: 1}
	br := bufio.NewReaderSize(lr, 1<<16)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	comma := o.Comma
	if comma == 0 {
		first, _ := br.Peek(br.Buffered())
		if len(first) == 0 {
			if _, err := br.Peek(1); err != nil && err != io.EOF {
				return nil, fmt.Errorf("dataset: %s: %w", name, err)
			}
			first, _ = br.Peek(br.Buffered())
		}
		comma = detectComma(first)
	}
	cr := csv.NewReader(br)
	cr.Comma = comma
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	t := &table{source: name}
	var labelCol, ncols int
	var header bool
	line := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			var le *lineError
			if errors.As(err, &le) {
				return nil, lineTooLong(name, le.line, le.limit)
			}
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%w: %s: line %d: %v", ErrData, name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("dataset: %s: %w", name, err)
		}
		line, _ = cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if ncols == 0 {
			ncols = len(rec)
			if ncols < 2 {
				return nil, fmt.Errorf("%w: %s: line %d has one column (delimiter %q): want features and a label", ErrData, name, line, comma)
			}
			if labelCol, header, err = firstLine(rec, o); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrData, name, err)
			}
			t.cols = ncols - 1
			if header {
				t.features = make([]string, 0, ncols-1)
				for j, h := range rec {
					if j != labelCol {
						t.features = append(t.features, strings.TrimSpace(h))
					}
				}
				if err := checkMemory(name, o, 0, ncols-1); err != nil {
					return nil, err
				}
				continue
			}
		}
		if len(rec) != ncols {
			return nil, fmt.Errorf("%w: %s: line %d has %d fields, the first line has %d", ErrData, name, line, len(rec), ncols)
		}
		if err := t.addRow(rec, labelCol, line, o.Missing, func(j int) string { return columnName(t.features, j, labelCol) }); err != nil {
			return nil, err
		}
		if len(t.labels)%4096 == 0 {
			if err := checkMemory(name, o, len(t.labels), t.cols); err != nil {
				return nil, err
			}
		}
	}
	if err := checkMemory(name, o, len(t.labels), t.cols); err != nil {
		return nil, err
	}
	return t.dataset()
}

// addRow parses one data row: the cells other than labelCol as numbers.
func (t *table) addRow(rec []string, labelCol, line int, missing MissingPolicy, colName func(j int) string) error {
	n := len(t.labels) + t.dropped
	start := len(t.data)
	for j, s := range rec {
		if j == labelCol {
			continue
		}
		s = strings.TrimSpace(s)
		if isMissing(s) {
			if missing == DropMissing {
				t.data = t.data[:start]
				t.dropped++
				return nil
			}
			return fmt.Errorf("%w: %s: line %d, column %s: missing value %q (use --missing drop to drop such rows)", ErrData, t.source, line, colName(j), s)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s: line %d, column %s: %q is not a finite number", ErrData, t.source, line, colName(j), s)
		}
		t.data = append(t.data, v)
	}
	lab := strings.TrimSpace(rec[labelCol])
	if isMissing(lab) {
		if missing == DropMissing {
			t.data = t.data[:start]
			t.dropped++
			return nil
		}
		return fmt.Errorf("%w: %s: line %d: the label (column %s) is missing", ErrData, t.source, line, colName(labelCol))
	}
	t.labels = append(t.labels, lab)
	t.rows = append(t.rows, n)
	return nil
}

// columnName names column j (0-based, counting the label column) for an
// error message: its 1-based number and its name if the file has one.
func columnName(features []string, j, labelCol int) string {
	s := strconv.Itoa(j + 1)
	if features == nil {
		return s
	}
	switch {
	case j == labelCol:
		return s + " (the label)"
	case j < labelCol:
		return fmt.Sprintf("%s (%q)", s, features[j])
	default:
		return fmt.Sprintf("%s (%q)", s, features[j-1])
	}
}

// firstLine decides from the first record whether it is a header and which
// column holds the label.
func firstLine(rec []string, o Options) (labelCol int, header bool, err error) {
	ncols := len(rec)
	labelCol = ncols - 1
	byIndex := true
	if o.Label != "" {
		i, err := strconv.Atoi(o.Label)
		switch {
		case err != nil:
			byIndex = false
		case i < -ncols || i >= ncols:
			return 0, false, fmt.Errorf("label column %d: the file has %d columns", i, ncols)
		case i < 0:
			labelCol = ncols + i
		default:
			labelCol = i
		}
	}
	switch o.Header {
	case HeaderYes:
		header = true
	case HeaderAuto:
		for j, s := range rec {
			s = strings.TrimSpace(s)
			if j == labelCol || isMissing(s) {
				continue
			}
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				header = true
				break
			}
		}
		if !byIndex {
			header = true
		}
	}
	if header {
		seen := map[string]int{}
		for j, h := range rec {
			h = strings.TrimSpace(h)
			if k, ok := seen[h]; ok {
				return 0, false, fmt.Errorf("columns %d and %d have the same name %q", k+1, j+1, h)
			}
			seen[h] = j
		}
		if !byIndex {
			j, ok := seen[o.Label]
			if !ok {
				return 0, false, fmt.Errorf("no column is named %q (the header has %s)", o.Label, strings.Join(rec, ", "))
			}
			labelCol = j
		}
	} else if !byIndex {
		return 0, false, fmt.Errorf("label column %q given by name, but the file has no header", o.Label)
	}
	return labelCol, header, nil
}

// detectComma picks the delimiter that splits the first line of b into the
// most fields, outside quotes.
func detectComma(b []byte) rune {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	best, bestN := ',', 0
	for _, c := range []rune{',', ';', '\t', '|'} {
		n, quoted := 0, false
		for rest := b; len(rest) > 0; {
			r, size := utf8.DecodeRune(rest)
			rest = rest[size:]
			if r == '"' {
				quoted = !quoted
			} else if r == c && !quoted {
				n++
			}
		}
		if n > bestN {
			best, bestN = c, n
		}
	}
	return best
}

// checkMemory refuses a table of rows×cols float64 over o.MaxBytes.
func checkMemory(name string, o Options, rows, cols int) error {
	if o.MaxBytes <= 0 {
		return nil
	}
	if need := int64(rows) * int64(cols) * 8; need > o.MaxBytes {
		return &SizeError{Name: name, Rows: rows, Cols: cols, Need: need, Max: o.MaxBytes}
	}
	return nil
}

// SizeError is the error of a file whose features would need more than
// Options.MaxBytes of memory; it wraps ErrData. Rows is the number of rows
// read when the check failed (the whole file's at the end of a read).
type SizeError struct {
	Name       string
	Rows, Cols int
	Need, Max  int64 // bytes
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%v: %s: %d rows × %d features need %d MiB, more than the %d MiB allowed", ErrData, e.Name, e.Rows, e.Cols, e.Need>>20, e.Max>>20)
}

// Unwrap returns ErrData.
func (e *SizeError) Unwrap() error { return ErrData }

// lineLimiter passes r through, failing with a *lineError once a line
// (counting from any '\n', quoted or not) exceeds limit bytes: the CSV
// reader would otherwise hold a line of any length whole.
type lineLimiter struct {
	r     io.Reader
	limit int
	run   int // bytes since the last '\n'
	line  int // 1-based line of the next byte
}

// lineError is a line over the limit.
type lineError struct{ line, limit int }

func (e *lineError) Error() string {
	return fmt.Sprintf("line %d is longer than %d bytes", e.line, e.limit)
}

func (l *lineLimiter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, b := range p[:n] {
		if b == '\n' {
			l.run = 0
			l.line++
			continue
		}
		if l.run++; l.run > l.limit {
			return i, &lineError{l.line, l.limit}
		}
	}
	return n, err
}
