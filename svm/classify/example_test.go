package classify_test

import (
	"context"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm/classify"
)

// Three classes of points on three rays, with one chosen by CV and scored.
func Example() {
	x, labels := linalg.New[float64](90, 2), make([]string, 90)
	for i := range 90 {
		a := float64(i%3)*2*math.Pi/3 + 0.3*math.Sin(float64(i))
		r := 1 + float64(i%7)/7
		x.Set(i, 0, r*math.Cos(a))
		x.Set(i, 1, r*math.Sin(a))
		labels[i] = []string{"red", "green", "blue"}[i%3]
	}
	c := classify.New(classify.Options{})
	if err := c.Fit(context.Background(), x, labels); err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := c.Predict(context.Background(), x.Slice(0, 6, 0, 2))
	fmt.Println(pred, c.Kernel.Kind, "depth", c.Kernel.Depth)
	// Output: [red green blue red green blue] ntk depth 1
}
