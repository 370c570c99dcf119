package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// "ntksvm export-libsvm" writes a data set, or its Gram in LIBSVM's
// precomputed-kernel format, so that libsvm (svm-train -t 4) or
// scikit-learn can check our solvers.

func runExportLIBSVM(ctx context.Context, e *env, args []string) error {
	var d dataFlags
	var kf kernelFlags
	fs := newFlagSet(e, "export-libsvm", "--data D --out FILE [--sparse] [--kernel ntk --depth L --precision float64|float32]")
	d.add(fs, e, "data to export")
	kf.add(fs)
	out := fs.String("out", "", "output file (required); written atomically")
	sparse := fs.Bool("sparse", false, "write the data itself in LIBSVM's sparse format instead of its Gram")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError("--out is required")
	}
	spec, err := kf.spec()
	if err != nil {
		return err
	}
	if err := d.check("--data", d.data); err != nil {
		return err
	}
	if err := checkOutputs(outPath("--out", *out), inputs("--data", d.data)...); err != nil {
		return err
	}
	ds, err := d.open(e, "--data", d.data, 0)
	if err != nil {
		return err
	}
	y, err := exportLabels(e, ds)
	if err != nil {
		return err
	}
	t0 := time.Now()
	if *sparse {
		err = output.WriteFileContext(ctx, *out, false, func(w io.Writer) error { return svm.WriteLIBSVM(w, y, ds.X) })
	} else if spec.Float32 {
		err = exportGram[float32](ctx, e, *out, ds, y, spec)
	} else {
		err = exportGram[float64](ctx, e, *out, ds, y, spec)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s (%d points) in %.1fs\n", *out, ds.X.Rows, time.Since(t0).Seconds())
	return nil
}

func exportGram[T linalg.Float](ctx context.Context, e *env, out string, ds *dataset.Dataset, y []float64, s ntk.Spec) error {
	k, err := gram[T](ctx, e, "Gram", s, ds.X)
	if err == nil {
		err = ntk.CheckKernel(k, 0)
	}
	if err != nil {
		return err
	}
	return output.WriteFileContext(ctx, out, false, func(w io.Writer) error { return svm.WritePrecomputed(w, y, k) })
}

// exportLabels returns the LIBSVM labels of ds: its labels when they are
// numbers, else each class's index in ds.Classes (named on stderr), and 0
// ("unknown") for data without labels.
func exportLabels(e *env, ds *dataset.Dataset) ([]float64, error) {
	if !ds.Labelled() {
		return make([]float64, ds.N()), nil
	}
	if y, err := ds.Targets(); err == nil {
		return y, nil
	}
	y := make([]float64, ds.N())
	for i, c := range ds.Y {
		y[i] = float64(c)
	}
	for c, name := range ds.Classes {
		fmt.Fprintf(e.stderr, "label %d: class %q\n", c, name)
	}
	return y, nil
}
