package classify

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/calibrate"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// TestProbabilities: for every machine and scheme, the probabilities are
// distributions, their argmax agrees with the votes on nearly every
// point, they are better calibrated than chance (log-loss below that of
// the class frequencies on held-out data), and a saved and loaded model
// gives the same numbers.
func TestProbabilities(t *testing.T) {
	ctx := context.Background()
	train, test := overlapping(3, 40, 3, 11), overlapping(3, 40, 3, 12)
	one := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}}
	for _, tc := range []struct {
		name     string
		o        Options
		coupling string
	}{
		{"svm ovo", Options{Grid: one, Probability: true}, "pairwise"},
		{"svm ovr", Options{Grid: one, Probability: true, Scheme: OneVsRest}, "normalize"},
		{"svm2 ovo balanced", Options{Grid: withWeights(one, Balanced), Probability: true, Machine: SVM2}, "pairwise"},
		{"krr", Options{Grid: one, Probability: true, Machine: KRR}, "normalize"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.o)
			if err := c.FitDataset(ctx, train); err != nil {
				t.Fatal(err)
			}
			m, _ := c.Model()
			if m.Probability == nil || m.Probability.Coupling != tc.coupling || m.Probability.Folds != 5 {
				t.Fatalf("probability model %+v, want coupling %s over 5 folds", m.Probability, tc.coupling)
			}
			idx, p, err := c.PredictProbable(ctx, test.X)
			if err != nil {
				t.Fatal(err)
			}
			votes, _ := c.PredictIndex(ctx, test.X)
			agree := 0
			var logLoss, prior float64
			for i := range p.Rows {
				var sum float64
				for _, v := range p.Row(i) {
					if !(v >= 0 && v <= 1) {
						t.Fatalf("row %d: probabilities %v", i, p.Row(i))
					}
					sum += v
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Fatalf("row %d: probabilities sum to %v", i, sum)
				}
				if idx[i] == votes[i] {
					agree++
				}
				logLoss -= math.Log(max(p.At(i, test.Y[i]), 1e-15))
				prior -= math.Log(1.0 / 3)
			}
			if agree < p.Rows*9/10 {
				t.Errorf("argmax of the probabilities agrees with the votes on %d of %d points", agree, p.Rows)
			}
			if logLoss > 0.8*prior {
				t.Errorf("log-loss %.3f, the class frequencies' %.3f", logLoss/float64(p.Rows), prior/float64(p.Rows))
			}
			var buf bytes.Buffer
			if err := c.Save(&buf); err != nil {
				t.Fatal(err)
			}
			l, err := Load(&buf)
			if err != nil {
				t.Fatal(err)
			}
			lp, err := l.Probabilities(ctx, test.X)
			if err != nil {
				t.Fatal(err)
			}
			for i := range lp.Data {
				if lp.Data[i] != p.Data[i] {
					t.Fatalf("loaded model: probability %d is %v, was %v", i, lp.Data[i], p.Data[i])
				}
			}
		})
	}
}

// TestProbabilitiesByHand: a pairwise model's probabilities are the
// sigmoids of the decision values coupled, as written out here.
func TestProbabilitiesByHand(t *testing.T) {
	ctx := context.Background()
	d := overlapping(3, 20, 3, 13)
	c := New(Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{2}, BiasStds: []float64{0.5}, Cs: []float64{3}}, Probability: true})
	if err := c.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	dec, _ := c.Decision(ctx, d.X)
	p, _ := c.Probabilities(ctx, d.X)
	pairs := [][2]int{{0, 1}, {0, 2}, {1, 2}}
	for i := range dec.Rows {
		r := make([]float64, 9)
		for u, pr := range pairs {
			v := calibrate.Sigmoid{A: c.prob.A[u], B: c.prob.B[u]}.Prob(dec.At(i, u))
			v = min(max(v, 1e-7), 1-1e-7)
			r[pr[0]*3+pr[1]], r[pr[1]*3+pr[0]] = v, 1-v
		}
		want := make([]float64, 3)
		calibrate.Couple(want, r)
		for j := range want {
			if p.At(i, j) != want[j] {
				t.Fatalf("row %d: %v, want %v", i, p.Row(i), want)
			}
		}
	}
}

// TestProbabilitiesTwoClasses: with two classes the probability of the
// first is its pair's sigmoid, and a larger decision value gives it a
// larger probability.
func TestProbabilitiesTwoClasses(t *testing.T) {
	ctx := context.Background()
	d := overlapping(2, 30, 3, 14)
	c := New(Options{Grid: Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}}, Probability: true})
	if err := c.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	dec, _ := c.Decision(ctx, d.X)
	p, _ := c.Probabilities(ctx, d.X)
	if !(c.prob.A[0] < 0) {
		t.Errorf("A = %v, want < 0", c.prob.A[0])
	}
	for i := range dec.Rows {
		s := calibrate.Sigmoid{A: c.prob.A[0], B: c.prob.B[0]}.Prob(dec.At(i, 0))
		if math.Abs(p.At(i, 0)-s) > 1e-7 || p.At(i, 0)+p.At(i, 1) != 1 {
			t.Fatalf("row %d: p = %v, sigmoid %v", i, p.Row(i), s)
		}
	}
}

func TestProbabilitiesRefused(t *testing.T) {
	ctx := context.Background()
	d := overlapping(3, 10, 3, 15)
	one := Grid{Kinds: []ntk.Kind{ntk.KindNTK}, Depths: []int{1}, BiasStds: []float64{0}, Cs: []float64{1}}
	c := New(Options{Grid: one})
	if err := c.FitDataset(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Probabilities(ctx, d.X); !errors.Is(err, ErrNoProbability) {
		t.Errorf("a model without probabilities: error %v, want ErrNoProbability", err)
	}
	// A class of one example cannot be cross-validated.
	labels := d.Labels()
	labels[0] = "lonely"
	d1 := dataset.FromLabels(d.X, labels)
	err := New(Options{Grid: one, Probability: true}).FitDataset(ctx, d1)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`"lonely" has 1`)) {
		t.Errorf("a class of one example: error %v", err)
	}
}
