package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ntksvm/ntksvm/internal/dirlock"
	"github.com/ntksvm/ntksvm/internal/outpath"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// The kernel flags of the commands that compute kernels (train, predict,
// kernel, export-libsvm); the data flags are dataFlags':
//
//	--kernel ntk|nngp  --depth L  --fixed F  --sigma-w σ_w  --sigma-b σ_b  --precision float64|float32
//
// Old spellings (kernel's --train, --weight-std, --bias-std, --kind,
// --float32; --mnist) are deprecated aliases: they work and print a
// warning until the first tagged release, v0.1.0, which removes them
// (docs/commands.md states this decision; "ntksvm version" names the
// release).

// kernelFlags select the kernel.
type kernelFlags struct {
	kernel    string
	depth     int
	fixed     int
	sigmaW    float64
	sigmaB    float64
	precision string
}

func (k *kernelFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&k.kernel, "kernel", "ntk", "kernel: ntk or nngp (infinite-width, of an L-hidden-layer ReLU net)")
	fs.IntVar(&k.depth, "depth", 1, "hidden layers L (the paper's 2-layer net is L = 1)")
	fs.IntVar(&k.fixed, "fixed", 0, "ntk only: the first F of the L+1 weight layers are not trained, F = 0…L (0: the NTK; L: the NNGP)")
	fs.Float64Var(&k.sigmaW, "sigma-w", 1, "weight standard deviation σ_w")
	fs.Float64Var(&k.sigmaB, "sigma-b", 0, "bias standard deviation σ_b (0: no bias)")
	fs.StringVar(&k.precision, "precision", "float64", "element type of the kernel: float64 or float32")
}

// spec checks the kernel flags and returns the kernel they name.
func (k *kernelFlags) spec() (ntk.Spec, error) {
	kind, err := ntk.ParseKind(k.kernel)
	if err != nil {
		return ntk.Spec{}, usageError("--kernel %q: want ntk or nngp", k.kernel)
	}
	s := ntk.Spec{Kind: kind, Depth: k.depth, Fixed: k.fixed, WeightStd: k.sigmaW, BiasStd: k.sigmaB, Float32: k.precision == "float32"}
	// The commands compute kernels of networks with at least one hidden
	// layer (depth 0, the input kernel, is a choice of "ntksvm cv" only).
	if s.Depth < 1 {
		return ntk.Spec{}, usageError("--depth %d: want 1 or more hidden layers (the input kernel, depth 0, is a choice of \"ntksvm cv\")", s.Depth)
	}
	if err := s.Validate(); err != nil {
		if s.Fixed != 0 && strings.Contains(err.Error(), "fixed layers") {
			return ntk.Spec{}, usageError("--fixed: %v", strings.TrimPrefix(err.Error(), "ntk: "))
		}
		return ntk.Spec{}, usageError("%v", strings.TrimPrefix(err.Error(), "ntk: "))
	}
	if k.precision != "float64" && k.precision != "float32" {
		return ntk.Spec{}, usageError("--precision %q: want float64 or float32", k.precision)
	}
	return s, nil
}

// aliasValue is a deprecated flag spelling that sets another flag.
type aliasValue struct {
	target   flag.Value
	old, new string
	w        io.Writer
}

func (a *aliasValue) String() string {
	if a.target == nil {
		return ""
	}
	return a.target.String()
}

func (a *aliasValue) Set(s string) error {
	fmt.Fprintf(a.w, "warning: --%s is deprecated and will be removed in v0.1.0, the first tagged release; use --%s\n", a.old, a.new)
	return a.target.Set(s)
}

func (a *aliasValue) IsBoolFlag() bool {
	b, ok := a.target.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// alias registers --old as a deprecated spelling of the flag --new.
func alias(fs *flag.FlagSet, e *env, old, new string) {
	fs.Var(&aliasValue{target: fs.Lookup(new).Value, old: old, new: new, w: e.stderr}, old, "deprecated: use --"+new)
}

// setFlags returns the names of the flags set on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// checkOutputs validates the output files of a run before any work
// (outpath.Check): each writable, a regular file or a new name, none an
// input and no two the same file. Outputs with an empty path are skipped.
func checkOutputs(outs []outpath.Path, inputs ...outpath.Path) error {
	if err := outpath.Check(outs, inputs); err != nil {
		return usageError("%v", err)
	}
	return nil
}

// outPath is the output path of flag for checkOutputs.
func outPath(flag, path string) []outpath.Path { return []outpath.Path{{Flag: flag, Path: path}} }

// inputs returns the files of a data specification given by flag.
func inputs(flag, spec string) []outpath.Path {
	var ps []outpath.Path
	for _, f := range dataset.Files(spec) {
		ps = append(ps, outpath.Path{Flag: flag, Path: f})
	}
	return ps
}

// makeOutDir creates the output directory of an experiment command
// (--out) before any data is read or downloaded, so that an unusable one
// fails at once.
func makeOutDir(dir string) error {
	if dir == "" {
		return usageError("--out: empty directory name")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usageError("--out %q: want a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError("--out %q: %v", dir, err)
	}
	return nil
}

// lockOutDir creates the output directory of an experiment command, as
// makeOutDir, and takes its lock for this run: a second run into the same
// directory is refused while the first runs. The caller defers the
// release.
func lockOutDir(dir string) (func(), error) {
	if err := makeOutDir(dir); err != nil {
		return nil, err
	}
	release, err := dirlock.Lock(dir)
	if err != nil {
		return nil, usageError("--out %s: %v", dir, strings.TrimPrefix(err.Error(), "dirlock: "))
	}
	return release, nil
}

// fieldFlags maps svm.FitConfig fields to the flags that set them.
var fieldFlags = map[string]string{
	"Machine": "--machine", "Solver": "--solver", "Objective": "--objective", "Lambda": "--lambda",
	"Epsilon": "--epsilon", "Bias": "--bias", "Gap": "--gap", "Batch": "--batch", "LR": "--lr",
	"Pegasos": "--pegasos", "Steps": "--steps", "Epochs": "--epochs", "Decay": "--decay", "Seed": "--seed",
	"Tol": "--tol", "LogCount": "--log-count",
}

// fitError turns an svm.FieldError into a usage error naming the flag.
func fitError(err error) error {
	var fe *svm.FieldError
	if errors.As(err, &fe) {
		name := fieldFlags[fe.Field]
		if name == "" {
			name = fe.Field
		}
		return usageError("%s %v: %s", name, fe.Value, fe.Reason)
	}
	return err
}
