package certify_test

import (
	"context"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/classify"
	"github.com/ntksvm/ntksvm/svm/classify/certify"
)

// Three classes on three rays, one-vs-rest SVMs on the 2-layer NTK, and
// the radius around two points within which each keeps its class, in the
// units of the data (the model standardises its features inside).
func Example() {
	x, labels := linalg.New[float64](90, 2), make([]string, 90)
	for i := range 90 {
		a := float64(i%3)*2*math.Pi/3 + 0.3*math.Sin(float64(i))
		r := 1 + float64(i%7)/7
		x.Set(i, 0, r*math.Cos(a))
		x.Set(i, 1, r*math.Sin(a))
		labels[i] = []string{"red", "green", "blue"}[i%3]
	}
	c := classify.New(classify.Options{Scheme: classify.OneVsRest,
		Grid: classify.Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}}})
	if err := c.Fit(context.Background(), x, labels); err != nil {
		fmt.Println(err)
		return
	}
	z, _ := linalg.FromSlice(2, 2, []float64{1.2, 0.1, -0.6, 1})
	rs, _, err := certify.Certify(context.Background(), c, z, nil, certify.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rs {
		fmt.Printf("%s: ℓ∞ %.2f, ℓ2 %.2f\n", c.Classes[r.Class], r.Radius[0], r.Radius[1])
	}
	// Output:
	// red: ℓ∞ 0.25, ℓ2 0.35
	// green: ℓ∞ 0.28, ℓ2 0.39
}
