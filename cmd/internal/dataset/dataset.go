// Package dataset resolves the data specifications the ntksvm commands
// accept into inputs and labels, in one place:
//
//	mnist01        the MNIST digits 0 and 1 of the training split (12,665 points)
//	mnist01-test   the same of the test split (2,115 points); mnist01-train = mnist01
//	X.npy,y.npy    an n×d float array of inputs and a vector of n labels
//	X.npy          inputs without labels
//	F.libsvm, F.svm, libsvm:F
//	               a LIBSVM sparse file (labels, then index:value pairs)
//
// MNIST pixels are p/255, or (p/255 − 0.1307)/0.3081 with Standardize
// (the normalisation of the authors' data loaders); labels are +1 for the
// digit 1 and −1 for the digit 0, as package mnist returns them. Options
// keep only the first n points. Every size a file implies (a LIBSVM feature
// index, an .npy shape) is checked against the memory available before
// anything is allocated.
package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/svm"
	labelled "github.com/ntksvm/ntksvm/svm/dataset"
)

// Options say where MNIST is and how to derive a set from its source.
type Options struct {
	// MNISTDir is the MNIST directory; "" means $NTKSVM_MNIST_DIR, else
	// the user cache directory (mnist.Locate).
	MNISTDir string
	// MNISTDirFlag names the option that set MNISTDir in messages
	// (e.g. "--mnist-dir"); "" uses mnist.Locate's name.
	MNISTDirFlag string
	// AllowNonCanonical uses MNIST files whose content is not the
	// canonical MNIST, after a warning on Warn naming each.
	AllowNonCanonical bool
	First             int  // keep the first First points (0: all)
	Standardize       bool // MNIST pixels (p/255 − 0.1307)/0.3081
	// Dim is the number of features a LIBSVM file is read with (the
	// training set's); 0 takes the largest index in the file.
	Dim int
	// Available reports the bytes of memory a new allocation can get
	// (false: unknown, no check); nil does no check.
	Available func() (uint64, bool)
	Warn      io.Writer // warnings; nil discards them
	// Context, if not nil, ends a Load early: Load returns an error
	// wrapping its error as soon as it is done.
	Context context.Context
}

// Set is a loaded data set: inputs one per row and, when the source has
// them, one label per row.
type Set struct {
	Name   string                 // the spec's file or MNIST name, for messages
	Source string                 // what a model records to reload it: an MNIST name or an absolute path
	X      linalg.Matrix[float64] // n×d inputs
	Y      []float64              // n labels; nil without labels
}

// SpecError is a data specification that names no usable data; its
// message is in the user's terms (which file, which row, which value).
type SpecError struct {
	Spec string
	Err  error
}

// Error returns the message of the underlying error.
func (e *SpecError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *SpecError) Unwrap() error { return e.Err }

// IsMNIST reports whether spec names an MNIST split.
func IsMNIST(spec string) bool {
	return spec == "mnist01" || spec == "mnist01-train" || spec == "mnist01-test"
}

// IsLIBSVM reports whether spec names a LIBSVM file.
func IsLIBSVM(spec string) bool {
	return strings.HasPrefix(spec, "libsvm:") || strings.HasSuffix(spec, ".libsvm") || strings.HasSuffix(spec, ".svm")
}

// isTable reports whether spec names a CSV or ARFF file, which the
// multi-class command reads.
func isTable(spec string) bool {
	ext := strings.ToLower(filepath.Ext(spec))
	return ext == ".csv" || ext == ".tsv" || ext == ".arff"
}

// Check validates the form of spec without reading anything: empty
// specs, "X.npy," with the label file missing, ",y.npy".
func Check(spec string) error {
	switch {
	case spec == "":
		return &SpecError{spec, errors.New("no data given")}
	case IsMNIST(spec) || IsLIBSVM(spec):
		return nil
	case isTable(spec):
		return &SpecError{spec, fmt.Errorf("%q is a table of labelled examples: \"ntksvm cv --data %s\" fits a multi-class NTK machine to it (this command takes mnist01, .npy and LIBSVM files)", spec, spec)}
	}
	xp, yp, hasY := strings.Cut(spec, ",")
	switch {
	case xp == "":
		return &SpecError{spec, fmt.Errorf("%q: the input file before the comma is missing (want X.npy,y.npy)", spec)}
	case hasY && yp == "":
		return &SpecError{spec, fmt.Errorf("%q: the label file after the comma is missing (want X.npy,y.npy, or X.npy alone for inputs without labels)", spec)}
	case strings.Contains(yp, ","):
		return &SpecError{spec, fmt.Errorf("%q: more than two files (want X.npy,y.npy)", spec)}
	}
	return nil
}

// Files returns the files spec names: X and y of "X.npy,y.npy", the
// LIBSVM file, none for an MNIST split (whose files the MNIST directory
// holds) or an empty spec.
func Files(spec string) []string {
	switch {
	case spec == "" || IsMNIST(spec):
		return nil
	case IsLIBSVM(spec):
		return []string{strings.TrimPrefix(spec, "libsvm:")}
	}
	var fs []string
	for _, f := range strings.Split(spec, ",") {
		if f != "" {
			fs = append(fs, f)
		}
	}
	return fs
}

// Load reads the data set spec names (see the package documentation).
// It refuses an empty set, non-finite inputs or labels (naming the row), a
// first-n larger than the set, and sizes that exceed the available memory.
func Load(spec string, opt Options) (*Set, error) {
	if opt.Context == nil || opt.Context.Done() == nil {
		return load(spec, opt)
	}
	// The readers take no context: loading runs beside a wait for the
	// context, and an interrupted command returns (and exits) at once.
	type result struct {
		s   *Set
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := load(spec, opt)
		ch <- result{s, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-opt.Context.Done():
		return nil, fmt.Errorf("loading %s: %w", spec, opt.Context.Err())
	}
}

func load(spec string, opt Options) (*Set, error) {
	if err := Check(spec); err != nil {
		return nil, err
	}
	if opt.First < 0 {
		return nil, &SpecError{spec, fmt.Errorf("first %d: want ≥ 0", opt.First)}
	}
	var s *Set
	var err error
	switch {
	case IsMNIST(spec):
		s, err = loadMNIST(spec, opt)
	case IsLIBSVM(spec):
		s, err = loadLIBSVM(strings.TrimPrefix(spec, "libsvm:"), opt)
	default:
		s, err = loadNpy(spec, opt)
	}
	if err != nil {
		return nil, err
	}
	if s.X.Rows == 0 || s.X.Cols == 0 {
		return nil, &SpecError{spec, fmt.Errorf("%s: %d points × %d features: no data", s.Name, s.X.Rows, s.X.Cols)}
	}
	if opt.First > 0 {
		if opt.First > s.X.Rows {
			return nil, &SpecError{spec, fmt.Errorf("first %d: %s has only %d points", opt.First, s.Name, s.X.Rows)}
		}
		s.X = s.X.Slice(0, opt.First, 0, s.X.Cols)
		if s.Y != nil {
			s.Y = s.Y[:opt.First]
		}
	}
	for i, v := range s.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &SpecError{spec, fmt.Errorf("%s: label %d is %v", s.Name, i, v)}
		}
	}
	for i := range s.X.Rows {
		for j, v := range s.X.Row(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, &SpecError{spec, fmt.Errorf("%s: row %d, column %d is %v; inputs must be finite", s.Name, i, j, v)}
			}
		}
	}
	return s, nil
}

// CheckLabels checks s's labels for machine m (finite; −1 or +1 for the
// classifiers), naming the file, the row and the value.
func (s *Set) CheckLabels(m svm.Machine) error {
	if err := svm.CheckLabels(m, s.Y); err != nil {
		msg := strings.TrimPrefix(err.Error(), svm.ErrInput.Error()+": ")
		return &SpecError{s.Name, fmt.Errorf("%s: %s (machine %s)", s.Name, msg, m)}
	}
	return nil
}

// checkMemory refuses n·d float64 values (plus extra bytes) that exceed the
// available memory.
func checkMemory(name string, n, d int, extra uint64, opt Options) error {
	need := uint64(n)*uint64(d)*8 + extra
	if d > 0 && uint64(n) > math.MaxUint64/8/uint64(d) {
		need = math.MaxUint64
	}
	if opt.Available == nil {
		return nil
	}
	if avail, ok := opt.Available(); ok && need > avail {
		return fmt.Errorf("%s: %d points × %d features need %.1f GiB as float64, only %.1f GiB of memory is available",
			name, n, d, float64(need)/(1<<30), float64(avail)/(1<<30))
	}
	return nil
}

func loadMNIST(spec string, opt Options) (*Set, error) {
	train, test, err := LoadMNISTBinary[float64](0, 1, opt)
	if err != nil {
		return nil, err
	}
	t := train
	if spec == "mnist01-test" {
		t = test
	}
	return &Set{Name: spec, Source: strings.TrimSuffix(spec, "-train"), X: t.X, Y: t.Y}, nil
}

func loadLIBSVM(path string, opt Options) (*Set, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var ro labelled.Options
	if opt.Available != nil {
		if avail, ok := opt.Available(); ok {
			ro.MaxBytes = int64(min(avail, math.MaxInt64))
		}
	}
	d, err := labelled.ReadLIBSVM(fh, path, ro)
	if se := (*labelled.SizeError)(nil); errors.As(err, &se) {
		if merr := checkMemory(path, se.Rows, max(se.Cols, opt.Dim), 0, opt); merr != nil {
			return nil, merr
		}
	}
	if err != nil {
		return nil, err
	}
	y := make([]float64, d.N())
	for i, c := range d.Y {
		v, err := strconv.ParseFloat(d.Classes[c], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: label %q of point %d is not a finite number", path, d.Classes[c], i+1)
		}
		y[i] = v
	}
	x, dim := d.X, opt.Dim
	switch {
	case dim == 0 || dim == x.Cols:
	case dim < x.Cols:
		return nil, fmt.Errorf("%s: feature index %d exceeds the dimension %d", path, x.Cols, dim)
	default:
		if err := checkMemory(path, x.Rows, dim, uint64(x.Rows)*uint64(x.Cols)*8, opt); err != nil {
			return nil, err
		}
		wide := linalg.New[float64](x.Rows, dim)
		for i := range x.Rows {
			copy(wide.Row(i), x.Row(i))
		}
		x = wide
	}
	return &Set{Name: path, Source: abs(path), X: x, Y: y}, nil
}

func loadNpy(spec string, opt Options) (*Set, error) {
	xp, yp, hasY := strings.Cut(spec, ",")
	h, err := npy.ReadHeader(xp)
	if err != nil {
		return nil, err
	}
	if len(h.Shape) != 2 {
		return nil, &SpecError{spec, fmt.Errorf("%s: shape %v is not a matrix of inputs (want n×d, one point per row)", xp, h.Shape)}
	}
	var labels uint64
	if hasY {
		// The labels' length is checked against X before either is read.
		ny, err := npy.LabelsHeader(yp)
		if err != nil {
			return nil, &SpecError{spec, err}
		}
		if ny != h.Shape[0] {
			return nil, &SpecError{spec, fmt.Errorf("%s has %d labels for the %d rows of %s", yp, ny, h.Shape[0], xp)}
		}
		labels = uint64(ny) * 8
	}
	if err := checkMemory(xp, h.Shape[0], h.Shape[1], labels, opt); err != nil {
		return nil, err
	}
	x, err := npy.Read[float64](xp)
	if err != nil {
		return nil, err
	}
	s := &Set{Name: xp, Source: abs(xp), X: x}
	if !hasY {
		return s, nil
	}
	text, err := npy.ReadLabels(yp, x.Rows)
	if err != nil {
		return nil, &SpecError{spec, err}
	}
	s.Y = make([]float64, len(text))
	for i, t := range text {
		if s.Y[i], err = strconv.ParseFloat(t, 64); err != nil {
			return nil, &SpecError{spec, fmt.Errorf("%s: label %d is %q, not a number (this command takes ±1 or 0/1 labels)", yp, i, t)}
		}
	}
	return s, nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// LoadMNISTBinary loads the task "digit a against digit b" for both
// splits, as mnist.Binary does: files that are not the canonical MNIST are
// refused, or with opt.AllowNonCanonical used after a warning naming each.
// opt.Standardize selects the pixel scaling; First and Dim are ignored.
func LoadMNISTBinary[T linalg.Float](a, b int, opt Options) (train, test *mnist.Task[T], err error) {
	dir, src, err := mnist.Locate(opt.MNISTDir)
	if err != nil {
		return nil, nil, err
	}
	from := string(src)
	if src == mnist.SourceFlag && opt.MNISTDirFlag != "" {
		from = opt.MNISTDirFlag
	}
	tr, te, err := mnist.Load(dir)
	if errors.Is(err, mnist.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w (directory from %s)", err, from)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, s := range []*mnist.Set{tr, te} {
		if err := s.Verify(); err != nil {
			if !opt.AllowNonCanonical {
				return nil, nil, fmt.Errorf("%w (pass --allow-noncanonical to use these files anyway)", err)
			}
			for _, info := range []*mnist.FileInfo{&s.Images.Info, &s.Labels.Info} {
				if p := info.Problem(); p != "" && opt.Warn != nil {
					fmt.Fprintf(opt.Warn, "WARNING: %s; results will not reproduce the paper\n", p)
				}
			}
		}
	}
	mo := mnist.Options{Standardize: opt.Standardize}
	if train, err = mnist.Binary[T](tr, a, b, mo); err != nil {
		return nil, nil, err
	}
	if test, err = mnist.Binary[T](te, a, b, mo); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}
