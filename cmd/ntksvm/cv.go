package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/svm/classify"
	data "github.com/ntksvm/ntksvm/svm/dataset"
)

func init() {
	register(&command{
		name:    "cv",
		summary: "fit a multi-class NTK machine to your own data (CSV, ARFF, LIBSVM, .npy), choosing depth and C by cross-validation",
		run:     runCV,
	})
}

// tableFlags are the flags that say how to read a user's data file.
type tableFlags struct {
	label, comma, header, missing string
}

func (t *tableFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&t.label, "label", "", "class column: a header name or a 0-based index, negative from the end (default: the last column; ARFF: \"class\" or the last)")
	fs.StringVar(&t.comma, "delimiter", "", "CSV delimiter (default: detected among , ; tab |)")
	fs.StringVar(&t.header, "header", "auto", "CSV header: auto, yes or no")
	fs.StringVar(&t.missing, "missing", "error", "rows with missing values: error (name the first) or drop (say how many)")
}

func (t *tableFlags) options() (data.Options, error) {
	var o data.Options
	var err error
	if o.Missing, err = data.ParseMissing(t.missing); err != nil {
		return o, usageError("--missing: %v", err)
	}
	switch t.header {
	case "auto":
	case "yes":
		o.Header = data.HeaderYes
	case "no":
		o.Header = data.HeaderNo
	default:
		return o, usageError("--header %q: want auto, yes or no", t.header)
	}
	switch r := []rune(t.comma); {
	case len(r) == 0:
	case t.comma == "tab" || t.comma == `\t`:
		o.Comma = '\t'
	case len(r) == 1 && r[0] != '"' && r[0] != '\n' && r[0] != '\r':
		o.Comma = r[0]
	default:
		return o, usageError("--delimiter %q: want one character (or tab)", t.comma)
	}
	o.Label = t.label
	o.MaxBytes = memoryBudget()
	return o, nil
}

// load reads a data file and says how many rows it dropped.
func (t *tableFlags) load(e *env, path string) (*data.Dataset, error) {
	o, err := t.options()
	if err != nil {
		return nil, err
	}
	d, err := data.Load(path, o)
	if err != nil {
		return nil, err
	}
	if d.Dropped > 0 {
		fmt.Fprintf(e.stderr, "%s: dropped %d rows with missing values, kept %d\n", path, d.Dropped, d.N())
	}
	return d, nil
}

// gridFlags are the hyper-parameters cross-validation chooses from.
type gridFlags struct {
	kinds, depths, sigmaB, cs string
}

func (g *gridFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&g.kinds, "kernel", "ntk", "kernels to try: ntk, nngp or ntk,nngp")
	fs.StringVar(&g.depths, "depth", "1-5", "hidden layers to try: 3, 1-5 or 0,2,4 (0 is the input kernel)")
	fs.StringVar(&g.sigmaB, "sigma-b", "0", "bias standard deviations σ_b to try, e.g. 0,0.5")
	fs.StringVar(&g.cs, "C", "1e-2:1e4:7", "C values to try: a list (0.1,1,10) or LO:HI:N in log scale")
}

func (g *gridFlags) grid() (classify.Grid, error) {
	var gr classify.Grid
	var err error
	if gr.Kinds, err = classify.ParseKinds(g.kinds); err != nil {
		return gr, usageError("--kernel: %v", err)
	}
	if gr.Depths, err = classify.ParseDepths(g.depths); err != nil {
		return gr, usageError("--depth: %v", err)
	}
	if gr.BiasStds, err = classify.ParseValues(g.sigmaB, true); err != nil {
		return gr, usageError("--sigma-b: %v", err)
	}
	if gr.Cs, err = classify.ParseValues(g.cs, false); err != nil {
		return gr, usageError("--C: %v", err)
	}
	return gr, nil
}

const cvUsage = "--data FILE [--test FILE] [--out model] [grid and data flags]"

func runCV(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "cv", cvUsage)
	var tf tableFlags
	var gf gridFlags
	tf.add(fs)
	gf.add(fs)
	dataPath := fs.String("data", "", "training data: FILE.csv, FILE.arff, FILE.libsvm or X.npy,labels (.npy integers or a text file)")
	testPath := fs.String("test", "", "test data in the same layout: report its accuracy after the refit")
	out := fs.String("out", "", "write the refitted model here")
	machine := fs.String("machine", "svm", "binary machine: svm (C-SVC), svm2 (squared hinge) or krr (multi-output ridge)")
	scheme := fs.String("multiclass", "ovo", "multi-class scheme for svm and svm2: ovo (one-vs-one voting) or ovr (one-vs-rest)")
	folds := fs.Int("folds", 4, "folds of stratified cross-validation (≥ 2)")
	sel := fs.String("select", "1se", "rule: 1se (simplest within one standard error of the best) or best")
	seed := fs.Uint64("seed", 0, "seed of the fold assignment")
	threads := fs.Int("threads", 0, "goroutines (0: all cores); results do not depend on it")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o, err := cvOptions(&gf, *machine, *scheme, *sel, *folds, *threads)
	if err != nil {
		return err
	}
	o.Seed = *seed
	if *dataPath == "" {
		return usageError("--data is required")
	}
	if *out != "" {
		if err := checkOut("--out", *out); err != nil {
			return err
		}
	}
	train, err := tf.load(e, *dataPath)
	if err != nil {
		return err
	}
	var test *data.Dataset
	if *testPath != "" {
		if test, err = tf.load(e, *testPath); err != nil {
			return err
		}
	}
	c := classify.New(o)
	fmt.Fprintf(e.stderr, "cross-validating %d grid points × %d folds on %d examples, %d features, %d classes\n",
		o.Grid.Size(), *folds, train.N(), train.D(), len(train.Classes))
	if err := c.FitDataset(ctx, train); err != nil {
		return err
	}
	printCV(e.stdout, c)
	if test != nil {
		if err := reportClasses(ctx, e.stdout, c, test, *testPath); err != nil {
			return err
		}
	}
	if *out != "" {
		return saveClassifier(e, c, *out)
	}
	return nil
}

// cvOptions turns the flags into classify.Options.
func cvOptions(gf *gridFlags, machine, scheme, sel string, folds, threads int) (classify.Options, error) {
	var o classify.Options
	var err error
	if o.Grid, err = gf.grid(); err != nil {
		return o, err
	}
	if o.Machine, err = classify.ParseMachine(machine); err != nil {
		return o, usageError("--machine: %v", err)
	}
	if o.Scheme, err = classify.ParseScheme(scheme); err != nil {
		return o, usageError("--multiclass: %v", err)
	}
	if o.Select, err = classify.ParseSelection(sel); err != nil {
		return o, usageError("--select: %v", err)
	}
	if folds < 2 || folds > 1000 {
		return o, usageError("--folds %d: want 2…1000", folds)
	}
	if threads < 0 || threads > 4096 {
		return o, usageError("--threads %d: want 0 (all cores) … 4096", threads)
	}
	o.Folds, o.Threads = folds, threads
	return o, nil
}

// printCV prints the grid table and the chosen point.
func printCV(w io.Writer, c *classify.Classifier) {
	if c.CV != nil {
		fmt.Fprintf(w, "%-6s %5s %7s %10s  %s\n", "kernel", "depth", "σ_b", "C", "CV accuracy (mean ± std over folds)")
		for i, s := range c.CV.Scores {
			mark := ""
			if i == c.CV.Chosen {
				mark = "  ← chosen (" + c.CV.Rule + ")"
			}
			fmt.Fprintf(w, "%-6s %5d %7g %10g  %6.2f%% ± %5.2f%s\n", s.KindName, s.Depth, s.BiasStd, s.C, 100*s.Mean, 100*s.Std, mark)
		}
	}
	fmt.Fprintf(w, "model: %s, C = %g, %d support vectors, fitted in %v\n", c.Kernel, c.C, c.SupportVectors(), c.FitTime.Round(time.Millisecond))
}

// saveClassifier writes the model atomically.
func saveClassifier(e *env, c *classify.Classifier, path string) error {
	if err := atomicfile.WriteFile(path, c.Save); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", path)
	return nil
}
