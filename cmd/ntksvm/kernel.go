package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/internal/testhold"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// "ntksvm kernel": the infinite-width NTK or NNGP Gram matrix K(X, X), or
// the cross kernel K(Z, X), written to a .npy file.

const kernelUsage = "--data X.npy|mnist01 [--test Z.npy|mnist01-test] [--kernel ntk|nngp] [--depth L] [--sigma-w σ_w] " +
	"[--sigma-b σ_b] [--precision float64|float32] --out K.npy [--mem-cap 4GiB] [--mnist-dir DIR]\n" +
	"       ntksvm kernel --data … [kernel flags] --tile i/N|auto/N --out DIR\n" +
	"       ntksvm kernel --collect DIR [--data … kernel flags] --out K.npy"

// kernelFlagSet registers the flags of "ntksvm kernel", with the old
// spellings (--train, --weight-std, --bias-std, --kind, --float32) as
// deprecated aliases.
func kernelFlagSet(e *env, d *dataFlags, k *kernelFlags, t *tileFlags) (fs *flag.FlagSet, test, out, memCap *string) {
	fs = newFlagSet(e, "kernel", kernelUsage)
	d.add(fs, e, "training inputs X (labels, if given, are ignored)")
	k.add(fs)
	t.add(fs)
	fs.StringVar(&d.test, "test", "", "optional test inputs Z (same forms as --data; --first does not apply): write K(Z, X) instead of K(X, X)")
	test = &d.test
	out = fs.String("out", "", "output `K.npy` (written atomically)")
	memCap = fs.String("mem-cap", "4GiB", "most kernel memory to hold at once; larger kernels are computed and written in row blocks (0: no cap, the whole kernel in memory)")
	alias(fs, e, "train", "data")
	alias(fs, e, "weight-std", "sigma-w")
	alias(fs, e, "bias-std", "sigma-b")
	alias(fs, e, "kind", "kernel")
	fs.Var(&aliasValue{target: float32Flag{&k.precision}, old: "float32", new: "precision float32", w: e.stderr}, "float32",
		"deprecated: use --precision float32")
	return fs, test, out, memCap
}

// float32Flag is the boolean --float32, which sets --precision.
type float32Flag struct{ precision *string }

func (f float32Flag) String() string   { return "" }
func (f float32Flag) IsBoolFlag() bool { return true }
func (f float32Flag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err == nil && b {
		*f.precision = "float32"
	}
	return err
}

func runKernel(ctx context.Context, e *env, args []string) error {
	var d dataFlags
	var k kernelFlags
	var t tileFlags
	fs, test, out, memCap := kernelFlagSet(e, &d, &k, &t)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if t.on() {
		return runKernelTiles(ctx, e, &d, &k, &t, *test, *out, *memCap, setFlags(fs))
	}
	spec, capBytes, err := checkKernelFlags(&d, &k, *test, *out, *memCap)
	if err != nil {
		return err
	}
	x, z, err := d.openPair(e)
	if err != nil {
		return err
	}
	if spec.Float32 {
		return kernelRun[float32](ctx, e, x, z, spec, *out, capBytes)
	}
	return kernelRun[float64](ctx, e, x, z, spec, *out, capBytes)
}

// checkKernelFlags validates the flags of "ntksvm kernel" before any data
// is read.
func checkKernelFlags(d *dataFlags, k *kernelFlags, test, out, memCap string) (ntk.Spec, int64, error) {
	if err := d.check("--data", d.data); err != nil {
		return ntk.Spec{}, 0, err
	}
	if test != "" {
		if err := d.check("--test", test); err != nil {
			return ntk.Spec{}, 0, err
		}
	}
	if out == "" {
		return ntk.Spec{}, 0, usageError("--out is required")
	}
	if !strings.HasSuffix(out, ".npy") {
		return ntk.Spec{}, 0, usageError("--out %q: want a .npy file name", out)
	}
	if err := checkOutputs(outPath("--out", out), append(inputs("--data", d.data), inputs("--test", test)...)...); err != nil {
		return ntk.Spec{}, 0, err
	}
	spec, err := k.spec()
	if err != nil {
		return ntk.Spec{}, 0, err
	}
	capBytes, err := membudget.ParseSize(memCap)
	if err != nil {
		return ntk.Spec{}, 0, usageError("--mem-cap: %v", err)
	}
	return spec, capBytes, nil
}

func kernelRun[T linalg.Float](ctx context.Context, e *env, xs, zs *dataset.Dataset, s ntk.Spec, out string, capBytes int64) error {
	x := linalg.Convert[T](xs.X)
	var z *linalg.Matrix[T]
	rows := x.Rows
	if zs != nil {
		zm := linalg.Convert[T](zs.X)
		z, rows = &zm, zm.Rows
	}
	var zero T
	if err := checkKernelMemory(rows, x.Rows, int(unsafe.Sizeof(zero)), capBytes); err != nil {
		return err
	}
	pr := progress.New(e.stderr, e.isTerminal, "kernel rows", int64(rows))
	t0 := time.Now()
	err := writeKernelNpy(ctx, out, s, z, x, ntk.Options{Progress: func(d, _ int) { pr.Set(int64(d)) }}, capBytes)
	pr.Done()
	if err != nil {
		return err
	}
	dtype := "float64"
	if any(zero) == any(float32(0)) {
		dtype = "float32"
	}
	what := "K(X, X)"
	if z != nil {
		what = "K(Z, X)"
	}
	fixed := ""
	if s.Fixed != 0 {
		fixed = fmt.Sprintf(", F=%d", s.Fixed)
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d×%d %s %s %s (L=%d%s, σ_w=%g, σ_b=%g) in %.2f s\n",
		out, rows, x.Rows, dtype, strings.ToUpper(s.Kind.String()), what, s.Depth, fixed, s.WeightStd, s.BiasStd, time.Since(t0).Seconds())
	return nil
}

// writeKernelNpy writes the kernel of ntk.Blocks to path as a 2-D .npy
// file of T's dtype, atomically (the file appears complete or not at all),
// one block of rows at a time, each checked for NaN and ±Inf before it is
// written (ntk.CheckKernel). The file is created with the first block,
// after Blocks has checked its arguments; once ctx is done, writes fail
// and nothing is committed.
func writeKernelNpy[T linalg.Float](ctx context.Context, path string, s ntk.Spec, z *linalg.Matrix[T], x linalg.Matrix[T],
	o ntk.Options, capBytes int64) error {
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	var f *atomicfile.File
	var bw *bufio.Writer
	var w *npy.Writer[T]
	create := func() (err error) {
		if f, err = atomicfile.Create(path); err != nil {
			return err
		}
		bw = bufio.NewWriterSize(f.WriterContext(ctx), 1<<20)
		w, err = npy.NewWriterTo[T](bw, npy.DtypeOf[T](), rows, x.Rows)
		return err
	}
	defer func() {
		if f != nil {
			f.Abort() // after Commit, nothing to abort
		}
	}()
	err := ntk.Blocks(testhold.Context(ctx, "kernel"), s, z, x, o, capBytes, func(i0 int, k linalg.Matrix[T]) error {
		if err := ntk.CheckKernel(k, i0); err != nil {
			return err
		}
		if w == nil {
			if err := create(); err != nil {
				return err
			}
		}
		return w.WriteRows(k)
	})
	if err != nil {
		return err
	}
	if w == nil { // no rows
		if err := create(); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.CommitContext(ctx)
}
