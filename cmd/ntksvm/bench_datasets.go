package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/bench"
	"github.com/ntksvm/ntksvm/cmd/internal/experiment/benchdata"
	"github.com/ntksvm/ntksvm/internal/testhold"
)

const benchDatasetsUsage = "DIR [--names a,b] [--own-folds] [--csv F] [--json F] [grid flags]\n" +
	"       ntksvm bench datasets --data FILE --test FILE [--csv F] [--json F] [grid flags]   (one dataset as two files)"

// runBenchDatasets runs "ntksvm bench datasets DIR [flags]", or the same
// protocol on one --data/--test pair.
func runBenchDatasets(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "bench datasets", benchDatasetsUsage)
	var gf gridFlags
	gf.add(fs)
	var df dataFlags
	df.add(fs, e, "one dataset instead of a folder: its training data")
	df.addTest(fs, "its test data (required with --data)")
	names := fs.String("names", "", "datasets to run, comma-separated (default: every NAME.splits.json in DIR)")
	ownFolds := fs.Bool("own-folds", false, "use the splits file's cv_fold assignment instead of our stratified folds")
	mf := addMachineFlags(fs)
	csvOut := fs.String("csv", "", "also write the table as CSV to this file")
	jsonOut := fs.String("json", "", "also write the rows as JSON to this file")
	dir, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, rest = args[0], args[1:]
	}
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	switch {
	case dir == "" && df.data == "":
		return usageError("bench datasets needs the folder or one dataset: ntksvm bench datasets DIR [flags], or --data FILE --test FILE")
	case dir != "" && df.data != "":
		return usageError("bench datasets %s and --data: give the folder or one dataset", dir)
	case df.data != "" && df.test == "":
		return usageError("--data %s needs --test: the protocol scores held-out data", df.data)
	}
	o, err := mf.options(&gf)
	if err != nil {
		return err
	}
	o.Warn = func(w string) { fmt.Fprintln(e.stderr, "warning:", w) }
	cfg := benchdata.Config{Dir: dir, Options: o, OwnFolds: *ownFolds, Progress: bench.DatasetProgress(e.stderr)}
	if *names != "" {
		cfg.Names = strings.Split(*names, ",")
	}
	if err := checkOutputs(append(outPath("--csv", *csvOut), outPath("--json", *jsonOut)...), df.inputs()...); err != nil {
		return err
	}
	rows, err := benchRows(testhold.Context(ctx, "bench"), e, cfg, &df)
	if err != nil {
		return err
	}
	bench.PrintDatasetRows(e.stdout, rows)
	return bench.WriteDatasetFiles(ctx, rows, *csvOut, *jsonOut)
}

// benchRows runs the protocol on the folder of cfg, or on --data/--test.
func benchRows(ctx context.Context, e *env, cfg benchdata.Config, df *dataFlags) ([]benchdata.Row, error) {
	if df.data == "" {
		return benchdata.Run(ctx, cfg)
	}
	train, test, err := df.openClasses(e)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(df.data), filepath.Ext(df.data))
	row, err := benchdata.RunPair(ctx, cfg, name, train, test)
	if err != nil {
		return nil, err
	}
	return []benchdata.Row{row}, nil
}
