package main

import (
	"context"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/bench"
	"github.com/ntksvm/ntksvm/cmd/internal/experiment/benchdata"
)

// runBenchDatasets runs "ntksvm bench datasets DIR [flags]".
func runBenchDatasets(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			args = args[:1]
		} else {
			return usageError("bench datasets needs the folder: ntksvm bench datasets DIR [flags]")
		}
	}
	fs := newFlagSet(e, "bench datasets", "DIR [--names a,b] [--own-folds] [--csv F] [--json F] [grid flags]")
	var gf gridFlags
	gf.add(fs)
	names := fs.String("names", "", "datasets to run, comma-separated (default: every NAME.splits.json in DIR)")
	ownFolds := fs.Bool("own-folds", false, "use the splits file's cv_fold assignment instead of our stratified folds")
	mf := addMachineFlags(fs)
	csvOut := fs.String("csv", "", "also write the table as CSV to this file")
	jsonOut := fs.String("json", "", "also write the rows as JSON to this file")
	dir, rest := args[0], args[1:]
	if dir == "-h" || dir == "--help" {
		dir, rest = "", args
	}
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	o, err := mf.options(&gf)
	if err != nil {
		return err
	}
	cfg := benchdata.Config{Dir: dir, Options: o, OwnFolds: *ownFolds, Progress: bench.DatasetProgress(e.stderr)}
	if *names != "" {
		cfg.Names = strings.Split(*names, ",")
	}
	if err := checkOutputs(append(outPath("--csv", *csvOut), outPath("--json", *jsonOut)...)); err != nil {
		return err
	}
	rows, err := benchdata.Run(ctx, cfg)
	if err != nil {
		return err
	}
	bench.PrintDatasetRows(e.stdout, rows)
	return bench.WriteDatasetFiles(ctx, rows, *csvOut, *jsonOut)
}
