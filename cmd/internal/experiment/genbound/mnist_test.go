package genbound

import (
	"context"
	"math"
	"testing"

	"github.com/ntksvm/ntksvm/mnist"
)

// TestRunMNISTFigB2 runs the figB2 preset on MNIST 0/1 (from
// $NTKSVM_MNIST_DIR; skipped without it, failed under CI) with 300 test
// points to stay fast, seed 1: the valid extraction's max |f_NN − f_KM| on
// the 1000 training points is at most 2e-3, and in AuthorsCode mode the
// bound at t = 10 is within 0.02 of the 0.912 of the authors' figure and
// the training hinge falls from about 0.998 to about 0.840. (Seed 0 trains
// more slowly at width 100: hinge 0.877, authors' bound 0.943.)
func TestRunMNISTFigB2(t *testing.T) {
	dir := mnist.RealDataDirForTest(t)
	if testing.Short() {
		t.Skip("the Fig. B.2 run is long (and longer under -race or purego); it runs without -short")
	}
	tr, te, err := mnist.LoadBinary[float64](dir, 0, 1, mnist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := &Data{Name: "MNIST 0/1", X: tr.X, Y: tr.Y, XTest: te.X, YTest: te.Y}
	for _, authors := range []bool{false, true} {
		cfg, _ := Preset("figB2")
		cfg.Seed, cfg.NTest, cfg.AuthorsCode = 1, 300, authors
		s, err := Run(context.Background(), cfg, data, Options{Out: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		f, l := s.First, s.Last
		t.Logf("authors %v: hinge %.4f → %.4f, max|NN − KM| %.2e, bound %.4f → %.4f, union %.4f, %.1fs",
			authors, f.NNTrain, l.NNTrain, s.MaxGapTrain, f.Bound, l.Bound, l.BoundUnion, s.Seconds)
		if !authors && !(s.MaxGapTrain <= 2e-3) {
			t.Errorf("max |NN − KM| = %.3g, want ≤ 2e-3", s.MaxGapTrain)
		}
		if authors {
			if d := math.Abs(float64(l.Bound) - 0.912); !(d <= 0.02) {
				t.Errorf("authors' bound at t = 10: %.4f, want 0.912 ± 0.02", l.Bound)
			}
			if math.Abs(float64(f.NNTrain)-0.998) > 0.01 || math.Abs(float64(l.NNTrain)-0.840) > 0.02 {
				t.Errorf("train hinge %.4f → %.4f, want ≈ 0.998 → 0.840", f.NNTrain, l.NNTrain)
			}
		}
	}
}
