package benchdata

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/svm/classify"
)

// TestDatasets runs the protocol on the folder named by
// NTKSVM_DATASETS_DIR (BENCH_NAMES, comma-separated, restricts it) and
// logs the table.
func TestDatasets(t *testing.T) {
	dir := os.Getenv("NTKSVM_DATASETS_DIR")
	if dir == "" {
		t.Skip("NTKSVM_DATASETS_DIR is not set")
	}
	cfg := Config{Dir: dir, OwnFolds: os.Getenv("BENCH_OWNFOLDS") != ""}
	if s := os.Getenv("BENCH_NAMES"); s != "" {
		cfg.Names = strings.Split(s, ",")
	} else if testing.Short() {
		cfg.Names = []string{"iris", "wine"}
	}
	if s := os.Getenv("BENCH_SELECT"); s != "" {
		sel, err := classify.ParseSelection(s)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Options.Select = sel
	}
	cfg.Progress = func(name string, k int, acc float64, took time.Duration) {
		t.Logf("%s split %d: %.2f%% in %v", name, k, 100*acc, took.Round(time.Millisecond))
	}
	rows, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, r := range rows {
		sum += r.Mean
		t.Logf("%-14s n=%4d d=%3d k=%2d test %.2f ± %.2f  chosen %v", r.Name, r.N, r.D, r.Classes, 100*r.Mean, 100*r.Std, r.Chosen)
	}
	t.Logf("mean of %d: %.2f", len(rows), 100*sum/float64(len(rows)))
}
