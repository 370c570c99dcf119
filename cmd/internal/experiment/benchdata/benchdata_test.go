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
	// scikit-learn's NTK-SVM (NumPy kernel, SVC(kernel='precomputed'),
	// depths 1…5 × C 10⁻²…10⁴, first best of 4-fold CV) on the same
	// splits, in %: a regression check, not a target.
	reference := map[string]float64{"iris": 95.00, "wine": 98.03, "breast_cancer": 96.14, "digits": 98.78,
		"diabetes": 76.17, "glass": 66.36, "ionosphere": 93.89, "vote": 95.47, "credit-g": 75.50, "segment": 96.97}
	var sum float64
	for _, r := range rows {
		sum += r.Mean
		t.Logf("%-14s n=%4d d=%3d k=%2d test %.2f ± %.2f  chosen %v", r.Name, r.N, r.D, r.Classes, 100*r.Mean, 100*r.Std, r.Chosen)
		if ref, ok := reference[r.Name]; ok && 100*r.Mean < ref-3 {
			t.Errorf("%s: test accuracy %.2f%%, more than 3 points below scikit-learn's NTK-SVM (%.2f%%)", r.Name, 100*r.Mean, ref)
		}
	}
	t.Logf("mean of %d: %.2f", len(rows), 100*sum/float64(len(rows)))
}
