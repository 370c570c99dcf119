package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/cmd/internal/dataset"
	"github.com/ntksvm/ntksvm/svm"
)

// A LIBSVM file with a label that a classifier cannot use: Load reads it,
// CheckLabels names the row and the value.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "dataset")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "d.libsvm")
	os.WriteFile(path, []byte("+1 1:0.5 3:2\n-1 2:1\n3 1:1\n"), 0o644)
	s, err := dataset.Load(path, dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.X.Rows, "points ×", s.X.Cols, "features; labels", s.Y)
	fmt.Println(s.CheckLabels(svm.MachineKRR) == nil)
	err = s.CheckLabels(svm.MachineSVM)
	fmt.Println(err != nil)
	if _, err := dataset.Load("X.npy,", dataset.Options{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 3 points × 3 features; labels [1 -1 3]
	// true
	// true
	// "X.npy,": the label file after the comma is missing (want X.npy,y.npy, or X.npy alone for inputs without labels)
}
