package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
	"github.com/ntksvm/ntksvm/ntk"
)

// "ntksvm kernel": the infinite-width NTK or NNGP Gram matrix K(X, X), or
// the cross kernel K(Z, X), written to a .npy file.

func init() {
	register(&command{
		name:    "kernel",
		summary: "write the infinite-width NTK/NNGP Gram K(X,X) or cross kernel K(Z,X) to a .npy file",
		run:     runKernel,
	})
}

const kernelUsage = "--train X.npy|mnist01 [--test Z.npy|mnist01-test] [--depth L] [--weight-std σ_w] " +
	"[--bias-std σ_b] [--kind ntk|nngp] [--float32] --out K.npy [--mem-cap 4GiB] [--mnist DIR]"

func runKernel(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "kernel", kernelUsage)
	train := fs.String("train", "", "training inputs: an n×d float32/float64 `X.npy`, or mnist01 (the MNIST 0/1 train set, pixels /255)")
	test := fs.String("test", "", "optional test inputs `Z.npy` or mnist01-test: write K(Z, X) instead of K(X, X)")
	depth := fs.Int("depth", 1, "number of hidden ReLU layers L (the paper's 2-layer network is L = 1)")
	sw := fs.Float64("weight-std", 1, "weight standard deviation σ_w")
	sb := fs.Float64("bias-std", 0, "bias standard deviation σ_b (0: no bias)")
	kind := fs.String("kind", "ntk", "kernel: ntk or nngp")
	f32 := fs.Bool("float32", false, "compute and write float32 (default float64)")
	out := fs.String("out", "", "output `K.npy` (written atomically)")
	memCap := fs.String("mem-cap", "4GiB", "most kernel memory to hold at once; larger kernels are computed and written in row blocks")
	mf := addMNISTFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *train == "" {
		return usageError("--train is required")
	}
	if *out == "" {
		return usageError("--out is required")
	}
	if !strings.HasSuffix(*out, ".npy") {
		return usageError("--out %q: want a .npy file name", *out)
	}
	k, err := ntk.ParseKind(*kind)
	if err != nil {
		return usageError("--kind %q: want ntk or nngp", *kind)
	}
	p := ntk.Params{Depth: *depth, WeightStd: *sw, BiasStd: *sb}
	if err := p.Validate(); err != nil {
		return usageError("%v", strings.TrimPrefix(err.Error(), "ntk: "))
	}
	capBytes, err := parseBytes(*memCap)
	if err != nil {
		return usageError("--mem-cap: %v", err)
	}
	if *f32 {
		return kernelRun[float32](ctx, e, *train, *test, p, k, *out, capBytes, mf)
	}
	return kernelRun[float64](ctx, e, *train, *test, p, k, *out, capBytes, mf)
}

func kernelRun[T linalg.Float](ctx context.Context, e *env, train, test string, p ntk.Params, k ntk.Kind,
	out string, capBytes int64, mf *mnistFlags) error {
	x, err := kernelInputs[T](e, train, "mnist01", mf, false)
	if err != nil {
		return err
	}
	var z *linalg.Matrix[T]
	if test != "" {
		zm, err := kernelInputs[T](e, test, "mnist01-test", mf, true)
		if err != nil {
			return err
		}
		if zm.Cols != x.Cols {
			return fmt.Errorf("--test has %d features per row, --train %d", zm.Cols, x.Cols)
		}
		z = &zm
	}
	rows := x.Rows
	if z != nil {
		rows = z.Rows
	}
	pr := newProgress(e, "kernel rows", int64(rows))
	t0 := time.Now()
	err = ntk.WriteNpy(ctx, out, z, x, p, k, ntk.Options{Progress: func(d, _ int) { pr.Set(int64(d)) }}, capBytes)
	pr.Done()
	if err != nil {
		return err
	}
	var zero T
	dtype := "float64"
	if any(zero) == any(float32(0)) {
		dtype = "float32"
	}
	what := "K(X, X)"
	if z != nil {
		what = "K(Z, X)"
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d×%d %s %s %s (L=%d, σ_w=%g, σ_b=%g) in %.2f s\n",
		out, rows, x.Rows, dtype, strings.ToUpper(k.String()), what, p.Depth, p.WeightStd, p.BiasStd, time.Since(t0).Seconds())
	return nil
}

// kernelInputs reads the rows of a kernel's inputs: the MNIST 0/1 split
// named by mnistName, or a .npy file of any float dtype, checked finite.
func kernelInputs[T linalg.Float](e *env, arg, mnistName string, mf *mnistFlags, testSplit bool) (linalg.Matrix[T], error) {
	switch arg {
	case "mnist01", "mnist01-test":
		if arg != mnistName {
			flagName := "--train"
			if testSplit {
				flagName = "--test"
			}
			return linalg.Matrix[T]{}, usageError("%s %s: want %s or a .npy file", flagName, arg, mnistName)
		}
		train, test, err := loadBinary[T](e, mf, 0, 1, mnist.Options{})
		if err != nil {
			return linalg.Matrix[T]{}, err
		}
		if testSplit {
			return test.X, nil
		}
		return train.X, nil
	}
	x, err := linalg.ReadNpy[T](arg)
	if err != nil {
		return linalg.Matrix[T]{}, err
	}
	if x.Rows == 0 || x.Cols == 0 {
		return linalg.Matrix[T]{}, fmt.Errorf("%s: %d×%d: no data", arg, x.Rows, x.Cols)
	}
	for i := range x.Rows {
		for j, v := range x.Row(i) {
			if v != v || v-v != 0 {
				return linalg.Matrix[T]{}, fmt.Errorf("%s: row %d, column %d is %v; inputs must be finite", arg, i, j, v)
			}
		}
	}
	return x, nil
}

// parseBytes parses a size such as 4GiB, 512MiB, 2G, 100k or 1000000 (bytes).
// SI suffixes (k, M, G, T) are powers of 1000, binary ones (KiB, MiB, GiB,
// TiB) powers of 1024; a trailing B is optional.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 4GiB, 512MiB, 1000000)", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
		"ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30, "ti": 1 << 40,
	}[strings.ToLower(unit)]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q (use B, k, M, G, T, KiB, MiB, GiB, TiB)", s, unit)
	}
	if v*mult > 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v * mult), nil
}
