package mnist_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/ntksvm/ntksvm/mnist"
)

// ExampleBinary builds a "0 against 1" task from a tiny split held in
// memory. With the real data, mnist.LoadBinary[float64](dir, 0, 1,
// mnist.Options{}) gives the paper's 12,665 train and 2,115 test examples.
func ExampleBinary() {
	// Three 1×2 images labelled 1, 7, 0, as IDX bytes.
	images, err := mnist.Read(bytes.NewReader([]byte{0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2,
		255, 0, 51, 102, 0, 255}), -1)
	if err != nil {
		log.Fatal(err)
	}
	labels, err := mnist.Read(bytes.NewReader([]byte{0, 0, 8, 1, 0, 0, 0, 3, 1, 7, 0}), -1)
	if err != nil {
		log.Fatal(err)
	}
	set := &mnist.Set{
		Split:  mnist.Train,
		Images: &mnist.Images{Count: 3, Rows: 1, Cols: 2, Pixels: images.Data},
		Labels: &mnist.Labels{Values: labels.Data},
	}
	task, err := mnist.Binary[float64](set, 0, 1, mnist.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for i := range task.X.Rows {
		fmt.Printf("example %d: x = %.1f, y = %+.0f\n", task.Index[i], task.X.Row(i), task.Y[i])
	}
	// Output:
	// example 0: x = [1.0 0.0], y = +1
	// example 2: x = [0.0 1.0], y = -1
}
