package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/svm/dataset"
)

// Every source opens the same way: here a CSV table with a header and
// class names, read whole, then its first four rows, then as the binary
// task "versicolor against the rest".
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "dataset")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "flowers.csv")
	os.WriteFile(path, []byte("length,width,label\n5.1,3.5,setosa\n7.0,3.2,versicolor\n6.3,3.3,virginica\n4.9,3.0,setosa\n6.4,3.2,versicolor\n"), 0o644)
	d, err := dataset.Open(path, dataset.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.N(), "examples ×", d.D(), "features; classes", d.Classes, "counts", d.Counts())
	first, _ := dataset.Open(path, dataset.Options{First: 4})
	fmt.Println("first 4:", first.Labels())
	_, err = d.PositiveClass("")
	fmt.Println(err != nil) // three classes: which is +1?
	fmt.Println(d.Binary("versicolor"))
	if _, err := dataset.Open("X.npy,", dataset.Options{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 5 examples × 2 features; classes [setosa versicolor virginica] counts [2 2 1]
	// first 4: [setosa versicolor virginica setosa]
	// true
	// [-1 1 -1 -1 1]
	// dataset: bad data: "X.npy,": the label file after the comma is missing (want X.npy,y.npy, or X.npy alone for inputs without labels)
}
