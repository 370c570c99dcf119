package ibp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ntksvm/ntksvm/linalg"
)

// Evaluator computes a model's exact output on the rows of a matrix; Kernel
// and Network are Evaluators of the model they certify.
type Evaluator interface {
	Eval(x linalg.Matrix[float64]) ([]float64, error)
}

// Sample returns k points of the ball b around x, one per row, that a
// certificate must hold on: for ℓ∞, alternately random corners x ± δ and
// uniform points of the box; for ℓ2, alternately corner directions
// x + r·s/√d (s ∈ {±1}^d) and uniformly random directions on the sphere.
// With clip, every point is then clipped to [0, 1]^d, which keeps it in
// the ball when x is in the box.
func Sample(rng *rand.Rand, x []float64, b Ball, k int, clip bool) linalg.Matrix[float64] {
	d := len(x)
	s := linalg.New[float64](k, d)
	for t := range k {
		row := s.Row(t)
		corner := t%2 == 0
		switch {
		case b.Norm == Linf && corner:
			for j := range row {
				row[j] = b.Radius * float64(2*rng.IntN(2)-1)
			}
		case b.Norm == Linf:
			for j := range row {
				row[j] = b.Radius * (2*rng.Float64() - 1)
			}
		case corner:
			for j := range row {
				row[j] = b.Radius * float64(2*rng.IntN(2)-1) / math.Sqrt(float64(d))
			}
		default:
			for j := range row {
				row[j] = rng.NormFloat64()
			}
			if n := linalg.Nrm2(row); n > 0 {
				linalg.Scal(b.Radius/n, row)
			}
		}
		for j := range row {
			row[j] += x[j]
			if clip {
				row[j] = min(max(row[j], 0), 1)
			}
		}
	}
	return s
}

// Violation is a sampled point where a certificate fails.
type Violation struct {
	Index  int     // the point whose certificate fails
	Radius float64 // its certified radius
	Sample int     // which sample
	Output float64 // the model's output there (of the other sign)
	Bound  Interval
}

// Verify checks certificates by sampling: for every result with a positive
// radius it draws k points of the ball (Sample), evaluates the model
// exactly (many balls per Eval call), and reports every sample whose output
// is outside the certified bound or has the other sign (either is a bug).
// pt returns point i and clip says whether balls are clipped to [0, 1]^d.
func Verify(c Certifier, ev Evaluator, pt func(i int) []float64, rs []Result, norm Norm, k int, clip bool,
	seed uint64) ([]Violation, error) {
	return VerifyContext(context.Background(), c, ev, pt, rs, norm, k, clip, seed)
}

// VerifyContext is Verify that stops with ctx's error once ctx is done,
// checked before every batch of samples is evaluated.
func VerifyContext(ctx context.Context, c Certifier, ev Evaluator, pt func(i int) []float64, rs []Result, norm Norm, k int, clip bool,
	seed uint64) ([]Violation, error) {
	if k < 1 {
		return nil, fmt.Errorf("ibp: %d samples per ball: want ≥ 1", k)
	}
	rng := rand.New(rand.NewPCG(seed, 0x1b9))
	var bad []Violation
	var batch []Result
	var rows []float64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		x, err := linalg.FromSlice(len(rows)/len(pt(batch[0].Index)), len(pt(batch[0].Index)), rows)
		if err != nil {
			return err
		}
		out, err := ev.Eval(x)
		if err != nil {
			return err
		}
		for bi, r := range batch {
			iv := c.Bound(r.Index, Ball{Norm: norm, Radius: r.Radius})
			for t, v := range out[bi*k : (bi+1)*k] {
				slack := 1e-9 * (1 + math.Abs(v))
				if v*r.Output <= 0 || v < iv.Lo-slack || v > iv.Hi+slack {
					bad = append(bad, Violation{Index: r.Index, Radius: r.Radius, Sample: t, Output: v, Bound: iv})
				}
			}
		}
		batch, rows = batch[:0], rows[:0]
		return nil
	}
	for _, r := range rs {
		if r.Radius <= 0 {
			continue
		}
		s := Sample(rng, pt(r.Index), Ball{Norm: norm, Radius: r.Radius}, k, clip)
		batch, rows = append(batch, r), append(rows, s.Data...)
		if len(batch)*k >= 1024 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return bad, nil
}
