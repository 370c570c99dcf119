package calibrate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitSigmoidRecovers draws labels from a known sigmoid and checks that
// the fit finds it (Platt's targets differ from 0 and 1 by about 1/n, so
// with many points the fit is the maximum-likelihood one).
func TestFitSigmoidRecovers(t *testing.T) {
	for _, want := range []Sigmoid{{-2, 0.5}, {-0.7, -1}, {-5, 0}} {
		rng := rand.New(rand.NewPCG(1, 2))
		n := 20000
		dec, pos := make([]float64, n), make([]bool, n)
		for i := range n {
			dec[i] = rng.NormFloat64() * 1.5
			pos[i] = rng.Float64() < want.Prob(dec[i])
		}
		// Over 20000 points the line search may stop at rounding before the
		// gradient is below 1e-5 (libsvm's "line search fails"): the
		// iterate is kept either way.
		got, _, err := FitSigmoid(dec, pos)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.A-want.A) > 0.1*math.Abs(want.A) || math.Abs(got.B-want.B) > 0.1 {
			t.Errorf("fitted %+v, drawn from %+v", got, want)
		}
	}
}

// TestFitSigmoidIsMinimum: the fit is a minimum of the cross-entropy
// against Platt's targets (no nearby point is lower), also on separable
// data, where the unregularised likelihood has none.
func TestFitSigmoidIsMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		n := 5 + rng.IntN(200)
		dec, pos := make([]float64, n), make([]bool, n)
		sep := round%2 == 0
		for i := range n {
			pos[i] = rng.IntN(3) == 0
			dec[i] = rng.NormFloat64()
			if sep {
				dec[i] = math.Abs(dec[i]) + 0.1
				if !pos[i] {
					dec[i] = -dec[i]
				}
			} else if pos[i] {
				dec[i] += 1
			}
		}
		s, _, err := FitSigmoid(dec, pos)
		if err != nil {
			t.Fatal(err)
		}
		var n1, n0 float64
		for _, p := range pos {
			if p {
				n1++
			} else {
				n0++
			}
		}
		f := func(a, b float64) float64 {
			var v float64
			for i, d := range dec {
				tg := 1 / (n0 + 2)
				if pos[i] {
					tg = (n1 + 1) / (n1 + 2)
				}
				p := Sigmoid{a, b}.Prob(d)
				v -= tg*math.Log(p) + (1-tg)*math.Log(1-p)
			}
			return v
		}
		f0 := f(s.A, s.B)
		for _, h := range [][2]float64{{1e-3, 0}, {-1e-3, 0}, {0, 1e-3}, {0, -1e-3}, {1e-3, 1e-3}, {-1e-3, 1e-3}} {
			if v := f(s.A+h[0], s.B+h[1]); v < f0-1e-9*math.Abs(f0) {
				t.Fatalf("round %d: f(%v + %v) = %.12g < f(fit) = %.12g", round, s, h, v, f0)
			}
		}
		if !(s.A < 0) {
			t.Errorf("round %d: A = %g; larger decision values are the positive class, want A < 0", round, s.A)
		}
	}
}

func TestFitSigmoidRefuses(t *testing.T) {
	for _, tc := range []struct {
		dec []float64
		pos []bool
	}{
		{nil, nil},
		{[]float64{1, 2}, []bool{true}},
		{[]float64{1, math.NaN()}, []bool{true, false}},
		{[]float64{math.Inf(1), 0}, []bool{true, false}},
	} {
		if _, _, err := FitSigmoid(tc.dec, tc.pos); !errors.Is(err, ErrInput) {
			t.Errorf("%v %v: error %v, want ErrInput", tc.dec, tc.pos, err)
		}
	}
}

func TestSigmoidProbExtremes(t *testing.T) {
	s := Sigmoid{A: -3, B: 0.2}
	for _, f := range []float64{-1e300, -800, -1, 0, 1, 800, 1e300} {
		p := s.Prob(f)
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Errorf("Prob(%g) = %v", f, p)
		}
	}
	if p := s.Prob(0); math.Abs(p-1/(1+math.Exp(0.2))) > 1e-15 {
		t.Errorf("Prob(0) = %v", p)
	}
}

// pairwise returns r[i*k+j] = pᵢ/(pᵢ + pⱼ), the pairwise probabilities of
// a distribution p, which coupling must give back.
func pairwise(p []float64) []float64 {
	k := len(p)
	r := make([]float64, k*k)
	for i := range k {
		for j := range k {
			if i != j {
				r[i*k+j] = p[i] / (p[i] + p[j])
			}
		}
	}
	return r
}

func TestCoupleConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{2, 3, 5, 10} {
		for range 10 {
			want := make([]float64, k)
			var s float64
			for i := range want {
				want[i] = rng.Float64() + 0.05
				s += want[i]
			}
			for i := range want {
				want[i] /= s
			}
			got := make([]float64, k)
			if !Couple(got, pairwise(want)) {
				t.Fatalf("k=%d: did not converge", k)
			}
			// The stopping rule, |(Qp)ₜ − pᵀQp| < 0.005/k, leaves errors of
			// a few thousandths.
			var sum float64
			for i := range got {
				sum += got[i]
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-2 {
					t.Errorf("k=%d: p = %v, want %v", k, got, want)
					break
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("k=%d: Σp = %v", k, sum)
			}
		}
	}
}

// TestCoupleInconsistent: pairwise probabilities that no distribution
// gives (a cycle) still come back as a distribution, symmetric when the
// cycle is.
func TestCoupleInconsistent(t *testing.T) {
	k := 3
	r := make([]float64, 9)
	set := func(i, j int, v float64) { r[i*k+j], r[j*k+i] = v, 1-v }
	set(0, 1, 0.8)
	set(1, 2, 0.8)
	set(2, 0, 0.8)
	p := make([]float64, 3)
	Couple(p, r)
	for i := range p {
		if math.Abs(p[i]-1.0/3) > 1e-9 {
			t.Errorf("p = %v, want uniform for a symmetric cycle", p)
		}
	}
}
