package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCSV reads arbitrary bytes as a CSV data file: it must never panic,
// and a data set it accepts has one label per row.
func FuzzCSV(f *testing.F) {
	f.Add([]byte("a,b,label\n1,2,x\n3,4,y\n5,6,x\n"))
	f.Add([]byte("\ufeffa;b;c\r\n1;2;b\r\n3;4;a\r\n"))
	f.Add([]byte("\"x 1\"\t\"y\"\tlab\n1.5\t-2e3\t\"class one\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadCSV(bytes.NewReader(b), "f.csv", Options{})
		if err == nil && len(d.Y) != d.X.Rows {
			t.Fatalf("%d labels for %d rows", len(d.Y), d.X.Rows)
		}
	})
}

// FuzzARFF reads arbitrary bytes as an ARFF data file: it must never
// panic, and a data set it accepts has one label per row.
func FuzzARFF(f *testing.F) {
	f.Add([]byte("@relation r\n@attribute a numeric\n@attribute b real\n@attribute class {x,y}\n@data\n1,2,x\n3,4,y\n"))
	f.Add([]byte("% comment\n@RELATION r\n@ATTRIBUTE a NUMERIC\n@ATTRIBUTE c {p,q}\n@DATA\n{0 1, 1 q}\n?,p\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadARFF(bytes.NewReader(b), "f.arff", Options{})
		if err == nil && len(d.Y) != d.X.Rows {
			t.Fatalf("%d labels for %d rows", len(d.Y), d.X.Rows)
		}
	})
}

// FuzzDatasetLIBSVM reads arbitrary bytes as a LIBSVM data file under a
// 1 MiB budget: it must never panic, a data set it accepts has one label
// per row and fits the budget, and a refusal is ErrData or a read error.
func FuzzDatasetLIBSVM(f *testing.F) {
	f.Add([]byte("1 1:0.5 3:-2\n-1 2:1e3 # comment\n+1\n"))
	f.Add([]byte("a 1:1\nb 1000000:1\n"))
	f.Add([]byte("1 2:1 1:3\n"))
	f.Add([]byte("1 1:nan\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		const budget = 1 << 20
		d, err := ReadLIBSVM(bytes.NewReader(b), "f.libsvm", Options{MaxBytes: budget})
		if err != nil {
			if !errors.Is(err, ErrData) && !strings.HasPrefix(err.Error(), "dataset: f.libsvm: line ") {
				t.Fatalf("error not ErrData: %v", err)
			}
			return
		}
		if len(d.Y) != d.X.Rows || len(d.X.Data) != d.X.Rows*d.X.Cols || 8*len(d.X.Data) > budget {
			t.Fatalf("%d labels, %d×%d matrix of %d values", len(d.Y), d.X.Rows, d.X.Cols, len(d.X.Data))
		}
	})
}

// FuzzSplits reads arbitrary bytes as a benchmark's splits.json: it must
// never panic, and splits it accepts name rows in [0, n_rows) only.
func FuzzSplits(f *testing.F) {
	f.Add([]byte(`{"dataset":"d","files":["a.csv"],"n_rows":4,"splits":[{"train":[0,1,2],"test":[3],"cv_fold":[0,1,0]}]}`))
	f.Add([]byte(`{"dataset":"d","files":["a.csv"],"n_rows":2,"dropped_rows":[5],"splits":[{"train":[0],"test":[1]}]}`))
	f.Add([]byte(`{"files":[],"n_rows":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ReadSplits(bytes.NewReader(b), "d.splits.json")
		if err != nil {
			if !errors.Is(err, ErrData) {
				t.Fatalf("error not ErrData: %v", err)
			}
			return
		}
		for k, sp := range s.Splits {
			for _, r := range append(append([]int(nil), sp.Train...), sp.Test...) {
				if r < 0 || r >= s.NRows {
					t.Fatalf("split %d names row %d of %d", k, r, s.NRows)
				}
			}
		}
	})
}

// FuzzLabelLines reads arbitrary bytes as the labels text file of
// "X.npy,labels.txt" (one label per line) for a 3-row X: it must never
// panic, and labels it accepts are 3 non-empty ones.
func FuzzLabelLines(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n c \n"))
	f.Add([]byte("\ufeff1\n2\n3\n4\n"))
	f.Add([]byte(strings.Repeat("x", 70000) + "\n"))
	path := filepath.Join(f.TempDir(), "labels.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		labels, err := readLabelLines(path, 3, Options{})
		if err != nil {
			return
		}
		if len(labels) != 3 {
			t.Fatalf("%d labels for 3 rows", len(labels))
		}
		for i, l := range labels {
			if l == "" {
				t.Fatalf("label %d is empty", i)
			}
		}
	})
}
