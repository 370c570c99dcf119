package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/benchdata"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
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
	cfg := benchdata.Config{Dir: dir, Options: o, OwnFolds: *ownFolds,
		Progress: func(name string, k int, acc float64, took time.Duration) {
			fmt.Fprintf(e.stderr, "%s split %d: test %.2f%% in %v\n", name, k, 100*acc, took.Round(time.Millisecond))
		}}
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
	printDatasetRows(e.stdout, rows)
	return writeDatasetFiles(ctx, rows, *csvOut, *jsonOut)
}

// writeDatasetFiles writes the rows as CSV and as JSON to the paths given.
func writeDatasetFiles(ctx context.Context, rows []benchdata.Row, csvOut, jsonOut string) error {
	if csvOut != "" {
		if err := atomicfile.WriteFileContext(ctx, csvOut, false, func(w io.Writer) error { return writeDatasetCSV(w, rows) }); err != nil {
			return err
		}
	}
	if jsonOut == "" {
		return nil
	}
	return atomicfile.WriteFileContext(ctx, jsonOut, false, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	})
}

// printDatasetRows prints one line per dataset and the mean accuracy.
func printDatasetRows(w io.Writer, rows []benchdata.Row) {
	fmt.Fprintf(w, "%-14s %5s %4s %3s  %-22s %8s  %-15s %8s\n", "dataset", "n", "d", "k", "chosen (split 0)", "CV acc", "test acc", "s/split")
	var sum float64
	for _, r := range rows {
		var cv, secs float64
		for i := range r.CVAcc {
			cv += r.CVAcc[i] / float64(len(r.CVAcc))
			secs += r.Seconds[i] / float64(len(r.Seconds))
		}
		chosen := ""
		if len(r.Chosen) > 0 {
			chosen = r.Chosen[0]
		}
		fmt.Fprintf(w, "%-14s %5d %4d %3d  %-22s %7.2f%%  %6.2f ± %5.2f%% %8.3f\n", r.Name, r.N, r.D, r.Classes, chosen, 100*cv, 100*r.Mean, 100*r.Std, secs)
		sum += r.Mean
	}
	if len(rows) > 0 {
		fmt.Fprintf(w, "mean test accuracy over %d datasets: %.2f%%\n", len(rows), 100*sum/float64(len(rows)))
	}
}

// writeDatasetCSV writes one line per dataset and split.
func writeDatasetCSV(w io.Writer, rows []benchdata.Row) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"dataset", "n", "d", "classes", "split", "chosen", "cv_accuracy", "test_accuracy", "seconds"})
	for _, r := range rows {
		for k := range r.TestAcc {
			cw.Write([]string{r.Name, strconv.Itoa(r.N), strconv.Itoa(r.D), strconv.Itoa(r.Classes), strconv.Itoa(k), r.Chosen[k],
				strconv.FormatFloat(r.CVAcc[k], 'f', 6, 64), strconv.FormatFloat(r.TestAcc[k], 'f', 6, 64),
				strconv.FormatFloat(r.Seconds[k], 'f', 4, 64)})
		}
	}
	cw.Flush()
	return cw.Error()
}
