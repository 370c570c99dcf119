package dataset

import (
	"fmt"
	"strconv"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
)

// FromMNIST returns the first n examples of an MNIST split (all when n is
// 0) as a ten-class Dataset: pixels divided by 255, flattened row-major,
// classes "0"…"9".
func FromMNIST(s *mnist.Set, n int) (*Dataset, error) {
	if n <= 0 || n > s.Len() {
		n = s.Len()
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the MNIST %s split is empty", ErrData, s.Split)
	}
	im := s.Images
	d := im.Rows * im.Cols
	x := linalg.New[float64](n, d)
	labels := make([]string, n)
	for i := range n {
		row := x.Row(i)
		for j, p := range im.Image(i) {
			row[j] = float64(p) / 255
		}
		labels[i] = strconv.Itoa(int(s.Labels.Values[i]))
	}
	ds := FromLabels(x, labels)
	ds.Source = "mnist-" + s.Split.String()
	return ds, nil
}
