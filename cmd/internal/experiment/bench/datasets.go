package bench

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/benchdata"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// The tables of "ntksvm bench datasets", whose runs benchdata.Run makes.

// DatasetProgress returns the benchdata.Config.Progress that prints one
// line per dataset and split to w.
func DatasetProgress(w io.Writer) func(name string, k int, acc float64, took time.Duration) {
	return func(name string, k int, acc float64, took time.Duration) {
		fmt.Fprintf(w, "%s split %d: test %.2f%% in %v\n", name, k, 100*acc, took.Round(time.Millisecond))
	}
}

// WriteDatasetFiles writes the rows as CSV (one line per dataset and
// split) to csvOut and as indented JSON to jsonOut, each atomically;
// an empty path skips that file.
func WriteDatasetFiles(ctx context.Context, rows []benchdata.Row, csvOut, jsonOut string) error {
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

// PrintDatasetRows prints one line per dataset and the mean accuracy.
func PrintDatasetRows(w io.Writer, rows []benchdata.Row) {
	width := 22 // the chosen column, in runes (fmt pads by runes)
	for _, r := range rows {
		if len(r.Chosen) > 0 {
			width = max(width, utf8.RuneCountInString(r.Chosen[0]))
		}
	}
	fmt.Fprintf(w, "%-14s %5s %4s %3s  %-*s %8s  %-15s %8s\n", "dataset", "n", "d", "k", width, "chosen (split 0)", "CV acc", "test acc", "s/split")
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
		fmt.Fprintf(w, "%-14s %5d %4d %3d  %-*s %7.2f%%  %6.2f ± %5.2f%% %8.3f\n", r.Name, r.N, r.D, r.Classes, width, chosen, 100*cv, 100*r.Mean, 100*r.Std, secs)
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
