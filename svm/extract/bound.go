package extract

import (
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/svm"
)

// This file is the generalisation bound of the paper's Appendix B for the
// kernel machine f(x) = Σᵢ aᵢ K(x, xᵢ) + b(x) of Theorem 4.1:
//
//	B = ‖f − b‖_H = √(aᵀ K a)                         (RKHS norm)
//	R̂ ≤ (B/n)·√(Σᵢ K(xᵢ, xᵢ))                        (Lemma B.1)
//	L_D(f) ≤ L̂_S(f) + 2ρ·R̂ + 3c·√(ln(2/δ)/(2n))        (Lemma B.2)
//
// with probability ≥ 1 − δ, for a loss bounded in [0, c] and ρ-Lipschitz in
// the output. b(x) = e^{−λT}f₀(x) depends on the initialisation only, not
// on the sample, and shifting a class by a fixed function leaves its
// Rademacher complexity unchanged, so the bound holds for f with its b.
//
// Caveats, stated rather than hidden: the kernel K_T itself is built from
// the training run, so it depends on the sample; Lemmas B.1 and B.2 are
// stated for a fixed kernel, and no bound here accounts for that. K_T is
// not symmetric when the weights |l'ⱼ| differ between points; aᵀKa only
// sees its symmetric part (K + Kᵀ)/2, which is what B uses.

// BoundConfig sets the constants of the bound. The zero value is the
// valid setting: δ = 0.01, the ramp loss min(1, hinge) (c = 1, ρ = 1) and
// the default B grid.
type BoundConfig struct {
	Delta float64  // δ in (0, 1); 0 means 0.01 (0.99 with AuthorsCode)
	Loss  svm.Loss // the loss of L̂_S, clipped to [0, Clip]; zero svm.Loss means svm.Hinge
	Clip  float64  // c; 0 means 1
	Rho   float64  // ρ, the Lipschitz constant of the clipped loss; 0 means 1
	// GridMin and GridLevels fix the grid of RKHS norms B_k = GridMin·2^k,
	// k = 0…GridLevels−1, of the data-dependent bound (0 means 2⁻¹⁰ and 41
	// levels, up to 2³⁰); each level gets confidence δ/GridLevels.
	GridMin    float64
	GridLevels int
	// AuthorsCode computes what generalization.py computes: δ = 0.99 by
	// default, the unclipped loss, and its R from the asymmetric kernel
	// K_auth(i, j) = g_j·K⁰(i, j) with g_j = −y_j and weights −1/n, where
	// K⁰ is the kernel without the objective scale (K = Scale·K⁰):
	// aᵀK_auth a = (1/n²)Σᵢⱼ g_j K⁰ᵢⱼ and tr K_auth = Σᵢ gᵢ K⁰ᵢᵢ, either of
	// which can be negative (R is then NaN, as in that script).
	AuthorsCode bool
	// Scale is the objective scale s inside K (1 for svm.ObjectiveSum, 1/n for svm.ObjectiveMean);
	// used only by AuthorsCode. 0 means 1/n.
	Scale float64
}

// GenBound is the bound of Lemma B.2 at one time of the run.
type GenBound struct {
	N int // training points
	// QuadForm is aᵀ((K + Kᵀ)/2)a before clamping. Rounding can make a
	// zero quadratic form slightly negative, which is clamped to 0;
	// Indefinite is set when it is negative beyond rounding (the bound is
	// then NaN).
	QuadForm   float64
	Indefinite bool
	RKHSNorm   float64 // B = √max(0, QuadForm)
	Trace      float64 // Σᵢ K(xᵢ, xᵢ)
	Rademacher float64 // R̂ = (B/n)·√Trace (Lemma B.1)
	Loss       float64 // L̂_S: mean clipped loss of the kernel machine's outputs
	Confidence float64 // 3c·√(ln(2/δ)/(2n))
	Value      float64 // svm.Loss + 2ρ·Rademacher + Confidence (Lemma B.2)

	// The data-dependent version: Lemma B.2 applied, for the smallest grid
	// value GridB ≥ B, with confidence δ/GridLevels, valid for all grid
	// levels at once by the union bound. GridValue is +Inf when B is above
	// the grid, and the four are NaN with AuthorsCode (the authors' script
	// has no such version) or an indefinite kernel.
	GridB          float64
	GridRademacher float64 // (GridB/n)·√Trace
	GridConfidence float64 // 3c·√(ln(2·GridLevels/δ)/(2n))
	GridValue      float64
}

// ConfidenceTerm returns Lemma B.2's last term 3c·√(ln(2/δ)/(2n)).
func ConfidenceTerm(c, delta float64, n int) float64 {
	return 3 * c * math.Sqrt(math.Log(2/delta)/(2*float64(n)))
}

// GeneralizationBound computes the bound for the kernel machine with the
// n×n training kernel k, weights a, outputs out = K a + b on the training
// points and targets y. It returns an error for mismatched lengths or
// constants out of range.
func GeneralizationBound(k linalg.Matrix[float64], a, out, y []float64, cfg BoundConfig) (*GenBound, error) {
	n := len(a)
	if n == 0 || k.Rows != n || k.Cols != n || len(out) != n || len(y) != n {
		return nil, fmt.Errorf("%w: kernel %d×%d, %d weights, %d outputs, %d targets", svm.ErrInput, k.Rows, k.Cols, n, len(out), len(y))
	}
	if cfg.Delta == 0 {
		cfg.Delta = 0.01
		if cfg.AuthorsCode {
			cfg.Delta = 0.99
		}
	}
	if cfg.Loss == (svm.Loss{}) {
		cfg.Loss = svm.Hinge
	}
	if cfg.Clip == 0 {
		cfg.Clip = 1
	}
	if cfg.Rho == 0 {
		cfg.Rho = 1
	}
	if cfg.GridMin == 0 {
		cfg.GridMin = 1.0 / 1024
	}
	if cfg.GridLevels == 0 {
		cfg.GridLevels = 41
	}
	if cfg.Scale == 0 {
		cfg.Scale = 1 / float64(n)
	}
	switch {
	case !(cfg.Delta > 0 && cfg.Delta < 1):
		return nil, fmt.Errorf("%w: δ = %g not in (0, 1)", svm.ErrInput, cfg.Delta)
	case !cfg.Loss.Valid():
		return nil, fmt.Errorf("%w: invalid loss", svm.ErrInput)
	case !(cfg.Clip > 0) || math.IsInf(cfg.Clip, 0) || !(cfg.Rho > 0) || math.IsInf(cfg.Rho, 0):
		return nil, fmt.Errorf("%w: c = %g and ρ = %g must be finite and > 0", svm.ErrInput, cfg.Clip, cfg.Rho)
	case !(cfg.GridMin > 0) || math.IsInf(cfg.GridMin, 0) || cfg.GridLevels < 1:
		return nil, fmt.Errorf("%w: grid from %g with %d levels", svm.ErrInput, cfg.GridMin, cfg.GridLevels)
	case !(cfg.Scale > 0) || math.IsInf(cfg.Scale, 0):
		return nil, fmt.Errorf("%w: scale %g", svm.ErrInput, cfg.Scale)
	}
	g := &GenBound{N: n}
	fn := float64(n)
	var quad, absq float64
	for i := range n {
		row := k.Row(i)
		g.Trace += row[i]
		for j, v := range row {
			// Σᵢⱼ aᵢaⱼKᵢⱼ = aᵀ((K + Kᵀ)/2)a.
			quad += a[i] * a[j] * v
			absq += math.Abs(a[i] * a[j] * v)
		}
	}
	g.QuadForm = quad
	var lsum float64
	for i := range n {
		l := cfg.Loss.Value(out[i], y[i])
		if !cfg.AuthorsCode {
			l = min(l, cfg.Clip)
		}
		lsum += l
	}
	g.Loss = lsum / fn
	g.Confidence = ConfidenceTerm(cfg.Clip, cfg.Delta, n)
	if cfg.AuthorsCode {
		// generalization.py: aᵀK_auth a·tr K_auth with K_auth = g_j·K⁰ᵢⱼ,
		// g_j = −aⱼ (its g = −y, a = y), weights −1/n.
		var q, tr float64
		for i := range n {
			row := k.Row(i)
			tr += -a[i] * row[i] / cfg.Scale
			for j, v := range row {
				q += -a[j] * v / cfg.Scale
			}
		}
		q /= fn * fn
		g.RKHSNorm = math.Sqrt(q) // NaN if negative, as in the script
		g.Rademacher = g.RKHSNorm * math.Sqrt(tr) / fn
		g.Value = g.Loss + 2*cfg.Rho*g.Rademacher + g.Confidence
		g.GridB, g.GridRademacher, g.GridConfidence, g.GridValue = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return g, nil
	}
	if quad < 0 {
		if quad < -1e-12*absq-math.SmallestNonzeroFloat64 {
			g.Indefinite = true
		}
		quad = 0
	}
	g.RKHSNorm = math.Sqrt(quad)
	if g.Indefinite || g.Trace < 0 {
		g.Indefinite = true
		g.RKHSNorm, g.Rademacher, g.Value = math.NaN(), math.NaN(), math.NaN()
		g.GridB, g.GridRademacher, g.GridConfidence, g.GridValue = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return g, nil
	}
	st := math.Sqrt(g.Trace)
	g.Rademacher = g.RKHSNorm * st / fn
	g.Value = g.Loss + 2*cfg.Rho*g.Rademacher + g.Confidence
	g.GridConfidence = ConfidenceTerm(cfg.Clip, cfg.Delta/float64(cfg.GridLevels), n)
	g.GridB = GridNorm(g.RKHSNorm, cfg.GridMin, cfg.GridLevels)
	g.GridRademacher = g.GridB * st / fn
	g.GridValue = g.Loss + 2*cfg.Rho*g.GridRademacher + g.GridConfidence
	return g, nil
}

// GridNorm returns the smallest grid value B_k = bmin·2^k, k = 0…levels−1,
// that is ≥ b, or +Inf if b is above the grid.
func GridNorm(b, bmin float64, levels int) float64 {
	v := bmin
	for range levels {
		if v >= b {
			return v
		}
		v *= 2
	}
	return math.Inf(1)
}

// Bound computes the generalisation bound of the kernel machine at the
// last observation (see GeneralizationBound): K_T, a and K_T a + b on the
// training points. cfg.Scale is set from the configuration's objective
// (for a full batch).
func (e *Extractor[T]) Bound(cfg BoundConfig) (*GenBound, error) {
	r, err := e.Report()
	if err != nil {
		return nil, err
	}
	k, _ := e.Kernel()
	if cfg.Scale == 0 {
		cfg.Scale = 1
		if e.cfg.Objective == svm.ObjectiveMean {
			cfg.Scale = 1 / float64(e.n)
		}
	}
	if cfg.AuthorsCode != e.cfg.AuthorsCode {
		return nil, fmt.Errorf("%w: the bound's AuthorsCode (%v) differs from the extraction's (%v)", svm.ErrInput, cfg.AuthorsCode, e.cfg.AuthorsCode)
	}
	return GeneralizationBound(k, e.a, r.TrainKM, e.y, cfg)
}
