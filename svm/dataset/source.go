package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/mnist"
)

// The data specifications Open accepts, the one vocabulary of every
// command that reads data:
//
//	FILE.csv, FILE.tsv (or any other name)  a CSV table (ReadCSV)
//	FILE.arff                               an ARFF table (ReadARFF)
//	FILE.libsvm, FILE.svm, FILE.svmlight, libsvm:FILE
//	                                        a LIBSVM file, labels of any spelling (ReadLIBSVM)
//	X.npy,LABELS                            .npy inputs with labels (ReadNpyPair)
//	X.npy                                   .npy inputs without labels
//	mnist, mnist-test                       MNIST's ten digits, training or test split (classes "0"…"9")
//	mnist01, mnist01-test                   MNIST's digits 0 and 1 (classes "-1" for 0, "1" for 1);
//	                                        mnist01-train is mnist01
const (
	MNIST01     = "mnist01"
	MNIST01Test = "mnist01-test"
	MNIST       = "mnist"
	MNISTTest   = "mnist-test"
)

// Kind is the form of a data specification.
type Kind uint8

const (
	KindCSV      Kind = iota // a CSV table
	KindARFF                 // an ARFF table
	KindLIBSVM               // a LIBSVM file
	KindNpy                  // X.npy or X.npy,LABELS
	KindMNIST01              // mnist01, mnist01-train, mnist01-test
	KindMNISTTen             // mnist, mnist-test
)

// KindOf returns the form of spec, by its name alone.
func KindOf(spec string) Kind {
	switch spec {
	case MNIST01, MNIST01 + "-train", MNIST01Test:
		return KindMNIST01
	case MNIST, MNISTTest:
		return KindMNISTTen
	}
	if strings.HasPrefix(spec, "libsvm:") {
		return KindLIBSVM
	}
	if strings.Contains(spec, ",") {
		return KindNpy
	}
	switch strings.ToLower(filepath.Ext(spec)) {
	case ".npy":
		return KindNpy
	case ".arff":
		return KindARFF
	case ".libsvm", ".svm", ".svmlight":
		return KindLIBSVM
	}
	return KindCSV
}

// IsMNIST reports whether spec names MNIST (either task, either split).
func IsMNIST(spec string) bool {
	k := KindOf(spec)
	return k == KindMNIST01 || k == KindMNISTTen
}

// Check validates the form of spec without reading anything: an empty
// spec, "X.npy," with the label file missing, ",y.npy", three files.
func Check(spec string) error {
	if spec == "" {
		return fmt.Errorf("%w: no data given", ErrData)
	}
	if KindOf(spec) != KindNpy || !strings.Contains(spec, ",") {
		return nil
	}
	xp, yp, _ := strings.Cut(spec, ",")
	switch {
	case xp == "":
		return fmt.Errorf("%w: %q: the input file before the comma is missing (want X.npy,y.npy)", ErrData, spec)
	case yp == "":
		return fmt.Errorf("%w: %q: the label file after the comma is missing (want X.npy,y.npy, or X.npy alone for inputs without labels)", ErrData, spec)
	case strings.Contains(yp, ","):
		return fmt.Errorf("%w: %q: more than two files (want X.npy,y.npy)", ErrData, spec)
	}
	return nil
}

// Files returns the files spec names (none for MNIST, whose files the
// MNIST directory holds).
func Files(spec string) []string {
	switch KindOf(spec) {
	case KindMNIST01, KindMNISTTen:
		return nil
	case KindLIBSVM:
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

// Open reads the data set spec names (see the constants above) with the
// options o: the table options, the MNIST location and pixel scaling, the
// first o.First examples only, LIBSVM inputs widened to o.Dim features,
// and o.MaxBytes as the memory any size the file implies is checked
// against before it is allocated. Every source gives a Dataset whose
// inputs are finite and whose labels, when the source has them, are class
// names (Targets reads them as numbers). With o.Context, Open returns as
// soon as the context is done.
func Open(spec string, o Options) (*Dataset, error) {
	if o.Context == nil || o.Context.Done() == nil {
		return open(spec, o)
	}
	// The readers take no context: reading runs beside a wait for the
	// context, and an interrupted command returns (and exits) at once.
	type result struct {
		d   *Dataset
		err error
	}
	ch := make(chan result, 1)
	go func() {
		d, err := open(spec, o)
		ch <- result{d, err}
	}()
	select {
	case r := <-ch:
		return r.d, r.err
	case <-o.Context.Done():
		return nil, fmt.Errorf("reading %s: %w", spec, o.Context.Err())
	}
}

func open(spec string, o Options) (*Dataset, error) {
	if err := Check(spec); err != nil {
		return nil, err
	}
	if o.First < 0 {
		return nil, fmt.Errorf("%w: first %d: want ≥ 0", ErrData, o.First)
	}
	d, err := read(spec, o)
	if err != nil {
		return nil, err
	}
	if d.Name == "" {
		d.Name = d.Source
	}
	if o.Dim > 0 && d.D() != o.Dim && KindOf(spec) == KindLIBSVM {
		if err := d.widen(o); err != nil {
			return nil, err
		}
	}
	if o.First > 0 {
		if o.First > d.N() {
			return nil, fmt.Errorf("%w: first %d: %s has only %d examples", ErrData, o.First, d.Name, d.N())
		}
		idx := make([]int, o.First)
		for i := range idx {
			idx[i] = i
		}
		ref := d.Ref
		d = d.Subset(idx)
		d.Ref = ref // Open(ref) with the same First gives these rows again
	}
	return d, nil
}

// read reads spec without First and Dim.
func read(spec string, o Options) (*Dataset, error) {
	switch KindOf(spec) {
	case KindMNIST01:
		return openMNIST01(spec, o)
	case KindMNISTTen:
		return openMNISTTen(spec, o)
	case KindNpy:
		xp, yp, ok := strings.Cut(spec, ",")
		if !ok {
			return ReadNpyInputs(xp, o)
		}
		d, err := ReadNpyPair(xp, yp, o)
		if err == nil && d.Dropped == 0 {
			d.Ref = abs(xp)
		}
		return d, err
	}
	path := strings.TrimPrefix(spec, "libsvm:")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrData, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrData, path)
	}
	switch KindOf(spec) {
	case KindARFF:
		return ReadARFF(f, path, o)
	case KindLIBSVM:
		d, err := ReadLIBSVM(f, path, o)
		if err == nil {
			d.Ref = abs(path)
			if KindOf(d.Ref) != KindLIBSVM {
				d.Ref = "libsvm:" + d.Ref
			}
		}
		return d, err
	}
	return ReadCSV(f, path, o)
}

// widen gives a LIBSVM set o.Dim features: the format's feature count is
// the largest index present, and the features past it are 0 by its
// definition. More features than o.Dim is an error.
func (d *Dataset) widen(o Options) error {
	if d.D() > o.Dim {
		return fmt.Errorf("%w: %s: feature index %d exceeds the dimension %d", ErrData, d.Name, d.D(), o.Dim)
	}
	if err := checkMemory(d.Name, o, d.N(), o.Dim); err != nil {
		return err
	}
	x := linalg.New[float64](d.N(), o.Dim)
	for i := range d.N() {
		copy(x.Row(i), d.X.Row(i))
	}
	d.X = x
	if d.Features != nil {
		for j := len(d.Features); j < o.Dim; j++ {
			d.Features = append(d.Features, fmt.Sprintf("#%d", j+1))
		}
	}
	return nil
}

// ReadNpyInputs reads the .npy file xp (n×d, float32 or float64) as
// inputs without labels.
func ReadNpyInputs(xp string, o Options) (*Dataset, error) {
	h, err := npy.ReadHeader(xp)
	if err != nil {
		return nil, err
	}
	if len(h.Shape) != 2 {
		return nil, fmt.Errorf("%w: %s: shape %v is not a matrix of inputs (want n×d, one point per row)", ErrData, xp, h.Shape)
	}
	if h.Rows() == 0 || h.Cols() == 0 {
		return nil, fmt.Errorf("%w: %s: %d points × %d features: no data", ErrData, xp, h.Rows(), h.Cols())
	}
	if err := checkMemory(xp, o, h.Rows(), h.Cols()); err != nil {
		return nil, err
	}
	x, err := npy.Read[float64](xp)
	if err != nil {
		return nil, err
	}
	d := &Dataset{X: x, Source: xp, Name: xp, Ref: abs(xp)}
	return d, d.Validate()
}

// openMNIST01 reads MNIST's digits 0 (class "-1") and 1 (class "1").
func openMNIST01(spec string, o Options) (*Dataset, error) {
	train, test, err := LoadMNISTBinary[float64](0, 1, o)
	if err != nil {
		return nil, err
	}
	t := train
	if spec == MNIST01Test {
		t = test
	}
	labels := make([]string, len(t.Y))
	for i, v := range t.Y {
		labels[i] = "-1"
		if v > 0 {
			labels[i] = "1"
		}
	}
	d := FromLabels(t.X, labels)
	d.Source, d.Name = spec, spec
	d.Ref = strings.TrimSuffix(spec, "-train")
	return d, nil
}

// openMNISTTen reads MNIST's training ("mnist") or test split as ten
// classes.
func openMNISTTen(spec string, o Options) (*Dataset, error) {
	dir, _, err := mnist.Locate(o.MNISTDir)
	if err != nil {
		return nil, err
	}
	split := mnist.Train
	if spec == MNISTTest {
		split = mnist.Test
	}
	s, err := mnist.LoadSplit(dir, split)
	if err != nil {
		return nil, err
	}
	d, err := FromMNIST(s, o.First)
	if err != nil {
		return nil, err
	}
	if o.Standardize {
		for i, v := range d.X.Data {
			d.X.Data[i] = (v - mnist.Mean) / mnist.Std
		}
	}
	d.Name, d.Ref = spec, spec
	return d, nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// LoadMNISTBinary loads the task "digit a against digit b" for both
// splits, as mnist.Binary does (labels +1 for b, −1 for a): files that are
// not the canonical MNIST are refused, or with o.AllowNonCanonical used
// after a warning on o.Warn naming each. o.Standardize selects the pixel
// scaling; the other options are ignored.
func LoadMNISTBinary[T linalg.Float](a, b int, o Options) (train, test *mnist.Task[T], err error) {
	dir, src, err := mnist.Locate(o.MNISTDir)
	if err != nil {
		return nil, nil, err
	}
	from := string(src)
	if src == mnist.SourceFlag && o.MNISTDirFlag != "" {
		from = o.MNISTDirFlag
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
			if !o.AllowNonCanonical {
				return nil, nil, fmt.Errorf("%w (pass --allow-noncanonical to use these files anyway)", err)
			}
			for _, info := range []*mnist.FileInfo{&s.Images.Info, &s.Labels.Info} {
				if p := info.Problem(); p != "" && o.Warn != nil {
					fmt.Fprintf(o.Warn, "WARNING: %s; results will not reproduce the paper\n", p)
				}
			}
		}
	}
	mo := mnist.Options{Standardize: o.Standardize}
	if train, err = mnist.Binary[T](tr, a, b, mo); err != nil {
		return nil, nil, err
	}
	if test, err = mnist.Binary[T](te, a, b, mo); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}
