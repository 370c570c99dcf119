package svm

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// classWeights returns one weight per point: wPos for yᵢ = +1, wNeg for −1.
func classWeights(y []float64, wPos, wNeg float64) []float64 {
	w := make([]float64, len(y))
	for i, v := range y {
		w[i] = wNeg
		if v > 0 {
			w[i] = wPos
		}
	}
	return w
}

// weightedKKT returns the largest violation of the KKT conditions of the
// weighted hinge SVM: a = 0 ⇒ y·f ≥ 1, 0 < a < C·w ⇒ y·f = 1, a = C·w ⇒
// y·f ≤ 1, a within [0, C·w], and Σ yᵢaᵢ = 0 with a bias.
func weightedKKT(r *DualResult, y, w []float64, C float64, bias bool) float64 {
	var worst, sum float64
	for i, a := range r.Dual {
		ub := C * w[i]
		m := y[i] * r.Outputs[i]
		switch {
		case a < 0 || a > ub*(1+1e-12):
			return math.Inf(1)
		case a <= 1e-12*ub:
			worst = max(worst, 1-m)
		case a >= ub*(1-1e-12):
			worst = max(worst, m-1)
		default:
			worst = max(worst, math.Abs(m-1))
		}
		sum += y[i] * a
	}
	if bias {
		worst = max(worst, math.Abs(sum)/C)
	}
	return worst
}

// TestWeightedDualKKT: per-class bounds C·w_c hold at the solution, with
// and without the bias and shrinking, and the bound of each class is
// reached (the weights bind).
func TestWeightedDualKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	x, y := blobs(rng, 90, 0.5) // overlapping: many variables at the bound
	k := NewDense(rbfGram(x, x, 0.7))
	const C = 2.0
	for _, ws := range [][2]float64{{3, 0.5}, {0.25, 1}, {1, 1}} {
		w := classWeights(y, ws[0], ws[1])
		for _, bias := range []bool{false, true} {
			for _, shrink := range []bool{false, true} {
				r, err := SolveDual(context.Background(), k, y, DualConfig{Loss: Hinge, Lambda: 1 / C, Bias: bias, Tol: 1e-10, NoShrink: !shrink, Weights: w})
				if err != nil || !r.Converged {
					t.Fatalf("w=%v bias=%v: %v %v", ws, bias, r, err)
				}
				if v := weightedKKT(r, y, w, C, bias); v > 1e-4 {
					t.Errorf("w=%v bias=%v shrink=%v: KKT violation %g", ws, bias, shrink, v)
				}
				atBound := map[float64]bool{}
				for i, a := range r.Dual {
					if a == C*w[i] {
						atBound[y[i]] = true
					}
				}
				if !atBound[1] || !atBound[-1] {
					t.Errorf("w=%v bias=%v: a class never reaches its bound C·w (at bound: %v)", ws, bias, atBound)
				}
				// The primal is ½‖β‖² + C Σ wᵢ hinge.
				var reg, loss float64
				for i, a := range r.Machine.Alpha {
					reg += a * (r.Outputs[i] - r.Machine.Bias)
					loss += w[i] * max(0, 1-y[i]*r.Outputs[i])
				}
				if relDiff(reg/2+C*loss, r.Primal) > 1e-9 {
					t.Errorf("w=%v bias=%v: primal %g, ½‖β‖² + CΣw·hinge = %g", ws, bias, r.Primal, reg/2+C*loss)
				}
			}
		}
	}
}

// TestUniformWeightIsC: the same weight w on every point is the
// unweighted machine with C·w.
func TestUniformWeightIsC(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	x, y := blobs(rng, 60, 0.6)
	k := NewDense(rbfGram(x, x, 0.7))
	for _, loss := range []Loss{Hinge, SquaredHinge} {
		w := classWeights(y, 2.5, 2.5)
		rw, err := SolveDual(context.Background(), k, y, DualConfig{Loss: loss, Lambda: 1, Bias: true, Tol: 1e-11, Weights: w})
		if err != nil {
			t.Fatal(err)
		}
		rc, err := SolveDual(context.Background(), k, y, DualConfig{Loss: loss, Lambda: 1 / 2.5, Bias: true, Tol: 1e-11})
		if err != nil {
			t.Fatal(err)
		}
		if relDiff(rw.Primal, rc.Primal) > 1e-8 || relDiff(rw.DualObj, rc.DualObj) > 1e-8 {
			t.Errorf("%s: weighted P=%g D=%g, C·w P=%g D=%g", loss.Name(), rw.Primal, rw.DualObj, rc.Primal, rc.DualObj)
		}
		for i := range y {
			if math.Abs(rw.Outputs[i]-rc.Outputs[i]) > 1e-4 {
				t.Fatalf("%s: output %d is %g weighted, %g with C·w", loss.Name(), i, rw.Outputs[i], rc.Outputs[i])
			}
		}
	}
}

// TestWeighted2Norm: with weights the 2-norm SVM has aᵢ = 2C·wᵢ·ξᵢ.
func TestWeighted2Norm(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	x, y := blobs(rng, 60, 0.6)
	k := NewDense(rbfGram(x, x, 0.7))
	const C = 2.0
	w := classWeights(y, 4, 0.5)
	for _, bias := range []bool{false, true} {
		r, err := SolveDual(context.Background(), k, y, DualConfig{Loss: SquaredHinge, Lambda: 1 / C, Bias: bias, Tol: 1e-11, Weights: w})
		if err != nil || !r.Converged {
			t.Fatalf("%v %v", r, err)
		}
		for i, a := range r.Dual {
			xi := max(0, 1-y[i]*r.Outputs[i])
			if math.Abs(a-2*C*w[i]*xi) > 1e-4 {
				t.Errorf("bias=%v: a[%d] = %g, 2C·w·ξ = %g", bias, i, a, 2*C*w[i]*xi)
			}
		}
	}
}

// TestWeightsFavourTheHeavyClass: on an imbalanced overlapping problem a
// larger weight on the minority class moves the boundary into the
// majority: more of the minority's training points on its side.
func TestWeightsFavourTheHeavyClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	x, y := blobs(rng, 200, 0.3)
	// Keep a quarter of the positives.
	var keep []int
	for i := range y {
		if y[i] < 0 || i%8 == 0 {
			keep = append(keep, i)
		}
	}
	ys := make([]float64, len(keep))
	xk := make([]float64, 0, 2*len(keep))
	for r, i := range keep {
		ys[r] = y[i]
		xk = append(xk, x.Row(i)...)
	}
	xm, _ := linalg.FromSlice(len(keep), 2, xk)
	k := NewDense(rbfGram(xm, xm, 0.5))
	recall := func(w []float64) float64 {
		r, err := SolveDual(context.Background(), k, ys, DualConfig{Loss: Hinge, Lambda: 1, Bias: true, Tol: 1e-9, Weights: w})
		if err != nil {
			t.Fatal(err)
		}
		right, pos := 0, 0
		for i, v := range ys {
			if v > 0 {
				pos++
				if r.Outputs[i] > 0 {
					right++
				}
			}
		}
		return float64(right) / float64(pos)
	}
	npos := 0
	for _, v := range ys {
		if v > 0 {
			npos++
		}
	}
	n := float64(len(ys))
	// scikit-learn's balanced weights n/(k·n_c).
	balanced := classWeights(ys, n/(2*float64(npos)), n/(2*(n-float64(npos))))
	if plain, bal := recall(nil), recall(balanced); !(bal > plain) {
		t.Errorf("minority recall %.3f with balanced weights, %.3f without: want higher", bal, plain)
	}
}

func TestWeightsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	x, y := blobs(rng, 10, 1)
	k := NewDense(rbfGram(x, x, 1))
	for _, w := range [][]float64{make([]float64, 9), classWeights(y, 0, 1), classWeights(y, math.NaN(), 1), classWeights(y, math.Inf(1), 1), classWeights(y, -1, 1)} {
		if _, err := SolveDual(context.Background(), k, y, DualConfig{Loss: Hinge, Lambda: 1, Weights: w}); !errors.Is(err, ErrInput) {
			t.Errorf("weights %v: error %v, want ErrInput", w, err)
		}
	}
}
