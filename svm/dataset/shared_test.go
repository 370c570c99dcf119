package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBenchmarkFolder reads every dataset of the folder named by
// NTKSVM_DATASETS_DIR (CSV files with NAME.splits.json beside them) and
// checks the counts of its documentation: rows, features, classes, rows
// with missing values, and that every split names rows that were kept.
func TestBenchmarkFolder(t *testing.T) {
	dir := os.Getenv("NTKSVM_DATASETS_DIR")
	if dir == "" {
		t.Skip("NTKSVM_DATASETS_DIR is not set: the benchmark datasets are not tested")
	}
	want := map[string]struct{ n, d, classes, dropped int }{
		"iris": {150, 4, 3, 0}, "wine": {178, 13, 3, 0}, "breast_cancer": {569, 30, 2, 0},
		"digits": {1797, 64, 10, 0}, "diabetes": {768, 8, 2, 0}, "glass": {214, 9, 6, 0},
		"ionosphere": {351, 34, 2, 0}, "vote": {435, 16, 2, 203}, "credit-g": {1000, 59, 2, 0},
		"segment": {2310, 19, 7, 0},
	}
	for name, w := range want {
		d, sp, err := LoadBenchmark(dir, name, Options{Missing: DropMissing})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d.N()+d.Dropped != w.n || d.D() != w.d || len(d.Classes) != w.classes || d.Dropped != w.dropped || sp.NRows != w.n {
			t.Errorf("%s: n=%d+%d dropped, d=%d, %d classes, splits over %d rows; want %+v", name, d.N(), d.Dropped, d.D(), len(d.Classes), sp.NRows, w)
		}
		for k, s := range sp.Splits {
			if _, err := d.Indices(s.Train); err != nil {
				t.Errorf("%s split %d: %v", name, k, err)
			}
			if _, err := d.Indices(s.Test); err != nil {
				t.Errorf("%s split %d: %v", name, k, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "iris.csv")); err != nil {
		t.Errorf("NTKSVM_DATASETS_DIR=%s: %v", dir, err)
	}
}
