package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// Load reads a data file by its name, as Open does with zero First and
// Dim.
func Load(path string, o Options) (*Dataset, error) {
	o.First, o.Dim = 0, 0
	return Open(path, o)
}

// ReadNpyPair reads features from the .npy file xp (n×d, float32 or
// float64) and labels from yp: a .npy vector of n integers, booleans,
// whole-number floats or strings (npy.ReadLabels), or a text file of n
// lines, one label each. The label count is checked against the
// header of xp before either array is read.
func ReadNpyPair(xp, yp string, o Options) (*Dataset, error) {
	h, err := npy.ReadHeader(xp)
	if err != nil {
		return nil, err
	}
	if len(h.Shape) != 2 {
		return nil, fmt.Errorf("%w: %s: shape %v is not a matrix of inputs (want n×d, one point per row)", ErrData, xp, h.Shape)
	}
	n, d := h.Rows(), h.Cols()
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("%w: %s: %d points × %d features: no data", ErrData, xp, n, d)
	}
	var labels []string
	if strings.EqualFold(filepath.Ext(yp), ".npy") {
		// The labels' length is checked against X before either is read.
		ny, err := npy.LabelsHeader(yp)
		if err != nil {
			return nil, err
		}
		if ny != n {
			return nil, fmt.Errorf("%w: %s has %d labels for the %d rows of %s", ErrData, yp, ny, n, xp)
		}
	}
	if err := checkMemory(xp, o, n, d); err != nil {
		return nil, err
	}
	if strings.EqualFold(filepath.Ext(yp), ".npy") {
		if labels, err = npy.ReadLabels(yp, n); err != nil {
			return nil, err
		}
	} else if labels, err = readLabelLines(yp, n, o); err != nil {
		return nil, err
	}
	x, err := npy.Read[float64](xp)
	if err != nil {
		return nil, err
	}
	t := &table{source: xp + "," + yp, name: xp, cols: d}
	for i := range n {
		row := x.Row(i)
		bad := -1
		for j, v := range row {
			if math.IsNaN(v) {
				bad = j
				break
			} else if math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: %s: row %d, column %d is %v", ErrData, xp, i, j+1, v)
			}
		}
		if bad >= 0 || isMissing(labels[i]) {
			if o.Missing != DropMissing {
				if bad < 0 {
					return nil, fmt.Errorf("%w: %s: label %d is missing (use --missing drop to drop such rows)", ErrData, yp, i)
				}
				return nil, fmt.Errorf("%w: %s: row %d, column %d is NaN, a missing value (use --missing drop to drop such rows)", ErrData, xp, i, bad+1)
			}
			t.dropped++
			continue
		}
		t.data = append(t.data, row...)
		t.labels = append(t.labels, labels[i])
		t.rows = append(t.rows, i)
	}
	return t.dataset()
}

// readLabelLines reads want labels, one per line, from a text file,
// refusing more or fewer.
func readLabelLines(path string, want int, o Options) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	limit := maxLineBytes(o)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, min(1<<16, limit)), limit)
	var labels []string
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if s == "" {
			continue
		}
		if len(labels) == want {
			return nil, fmt.Errorf("%w: %s has more than the %d labels the features have rows", ErrData, path, want)
		}
		labels = append(labels, s)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, lineTooLong(path, line+1, limit)
		}
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	if len(labels) != want {
		return nil, fmt.Errorf("%w: %s has %d labels, the features have %d rows", ErrData, path, len(labels), want)
	}
	return labels, nil
}

// maxFeatureIndex bounds the feature indices accepted from a LIBSVM file.
const maxFeatureIndex = 1 << 30

// maxLineBytes bounds a line of a text file: a fifth of o.MaxBytes (a
// line, its fields and its parsed values take about five times its
// bytes), or 64 MiB without a budget.
func maxLineBytes(o Options) int {
	if o.MaxBytes <= 0 {
		return 1 << 26
	}
	return int(min(max(o.MaxBytes/5, 1<<16), math.MaxInt32))
}

// lineTooLong is the error of a line over maxLineBytes, in every reader.
func lineTooLong(name string, line, limit int) error {
	return fmt.Errorf("%w: %s: line %d is longer than %s, the most the memory budget allows for one line (a fifth of it)", ErrData, name, line, membudget.Format(int64(limit)))
}

// checkEntries refuses LIBSVM entries (index and value, 16 bytes each)
// over o.MaxBytes, read up to line.
func checkEntries(name string, o Options, line, entries int) error {
	if need := int64(entries) * 16; o.MaxBytes > 0 && need > o.MaxBytes {
		return fmt.Errorf("%w: %s: the %d features given up to line %d need %d MiB, more than the %d MiB allowed", ErrData, name, entries, line, need>>20, o.MaxBytes>>20)
	}
	return nil
}

// ReadLIBSVM reads the LIBSVM/svmlight text format "label idx:value …"
// (1-based strictly increasing indices up to 2³⁰, absent features 0,
// fields separated by spaces or tabs, "#" starting a comment, blank lines
// skipped) with labels of any spelling; a regression target is the label
// read as a number (strconv.ParseFloat of Classes[Y[i]]). The feature
// count is the largest index seen.
func ReadLIBSVM(r io.Reader, name string, o Options) (*Dataset, error) {
	type entry struct {
		j int
		v float64
	}
	limit := maxLineBytes(o)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(1<<16, limit)), limit)
	var rows [][]entry
	var labels []string
	dim, line, entries := 0, 0, 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			continue
		}
		var row []entry
		prev := 0
		for _, tok := range f[1:] {
			is, vs, ok := strings.Cut(tok, ":")
			j, err := strconv.Atoi(is)
			if !ok || err != nil || j < 1 || j > maxFeatureIndex {
				return nil, fmt.Errorf("%w: %s: line %d: %q is not index:value with a 1-based index up to %d", ErrData, name, line, tok, maxFeatureIndex)
			}
			if j <= prev {
				return nil, fmt.Errorf("%w: %s: line %d: index %d after %d: indices must increase", ErrData, name, line, j, prev)
			}
			v, err := strconv.ParseFloat(vs, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: %s: line %d: feature %d: %q is not a finite number", ErrData, name, line, j, vs)
			}
			prev, dim = j, max(dim, j)
			row = append(row, entry{j - 1, v})
		}
		rows, labels = append(rows, row), append(labels, f[0])
		entries += len(row)
		if len(rows)%4096 == 0 || len(row) > 1<<16 {
			if err := checkMemory(name, o, len(rows), dim); err != nil {
				return nil, err
			}
			if err := checkEntries(name, o, line, entries); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, lineTooLong(name, line+1, limit)
		}
		return nil, fmt.Errorf("dataset: %s: line %d: %w", name, line+1, err)
	}
	if err := checkEntries(name, o, line, entries); err != nil {
		return nil, err
	}
	if err := checkMemory(name, o, len(rows), dim); err != nil {
		return nil, err
	}
	t := &table{source: name, cols: dim, labels: labels, data: make([]float64, len(rows)*dim), rows: make([]int, len(rows))}
	for i, row := range rows {
		t.rows[i] = i
		for _, e := range row {
			t.data[i*dim+e.j] = e.v
		}
	}
	return t.dataset()
}
