package regress

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// TestVersion4Model loads the version-4 model file of ../testdata (an
// ε-SVR on the NTK of depth 2, σ_w = 1.5, σ_b = 0.2, unit-norm inputs,
// written by the version-4 writer) and predicts three points: the values
// that writer's program printed for them (to 1e-12: the platforms' GEMMs
// sum in their own orders).
func TestVersion4Model(t *testing.T) {
	f, err := os.Open("../testdata/v4-svr-regression.model")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.SupportVectors() != 17 {
		t.Errorf("%d support vectors, want 17", r.SupportVectors())
	}
	z := linalg.New[float64](3, 4)
	for i := range 3 {
		for j := range 4 {
			z.Set(i, j, math.Cos(float64(5*i+j)))
		}
	}
	got, err := r.Predict(context.Background(), z)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{10.653091199412849, 10.150908056907989, 9.790741802179651} {
		if math.Abs(got[i]-want) > 1e-12*math.Abs(want) {
			t.Errorf("point %d: %v, the version-4 program predicted %v", i, got[i], want)
		}
	}
}
