package ibp

import (
	"errors"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/linalg"
)

// Min is the certifier of the smallest of several outputs at the same
// points: its output at point i is min_j g_j(x_i), and its interval over a
// ball is [min_j Lo_j, min_j Hi_j], which contains min_j g_j(x') wherever
// each [Lo_j, Hi_j] contains g_j(x'). A radius on which Min's positive
// output is certified is one on which every g_j stays positive: the
// margins f_c − f_j of a multi-class machine over every other class j, or
// the signed pair machines of one-vs-one voting that involve class c.
//
// Min keeps the speed-ups of its parts: Search asks it for one end of the
// interval when every part can give one alone, and infers steps from known
// margins when every part's margin provably shrinks as the ball grows (the
// minimum of such functions does too, within the largest of their rounding
// slacks).
type Min struct {
	parts []Certifier
}

// NewMin returns the Min of parts, which must have the same points (the
// same Len; Point and Eval, where they have them, are taken from the
// parts). It returns an error for no parts or different lengths.
func NewMin(parts ...Certifier) (*Min, error) {
	if len(parts) == 0 {
		return nil, errors.New("ibp: the minimum of no outputs")
	}
	for k, p := range parts {
		if p.Len() != parts[0].Len() {
			return nil, fmt.Errorf("ibp: output %d has %d points, output 0 has %d", k, p.Len(), parts[0].Len())
		}
	}
	return &Min{parts: parts}, nil
}

// Len returns the number of points.
func (m *Min) Len() int { return m.parts[0].Len() }

// Output returns the smallest output at point i.
func (m *Min) Output(i int) float64 {
	v := math.Inf(1)
	for _, p := range m.parts {
		v = min(v, p.Output(i)) // NaN stays NaN
	}
	return v
}

// Bound returns [min_j Lo_j, min_j Hi_j] over the ball b around point i.
func (m *Min) Bound(i int, b Ball) Interval {
	iv := Interval{math.Inf(1), math.Inf(1)}
	for _, p := range m.parts {
		q := p.Bound(i, b)
		iv.Lo, iv.Hi = min(iv.Lo, q.Lo), min(iv.Hi, q.Hi)
	}
	return iv
}

// BoundEnd returns one end of Bound, asking each part for that end alone
// where it can give it.
func (m *Min) BoundEnd(i int, b Ball, lower bool) float64 {
	v := math.Inf(1)
	for _, p := range m.parts {
		var e float64
		if eb, ok := p.(endBounder); ok {
			e = eb.BoundEnd(i, b, lower)
		} else if iv := p.Bound(i, b); lower {
			e = iv.Lo
		} else {
			e = iv.Hi
		}
		v = min(v, e)
	}
	return v
}

// marginSlack is the largest of the parts' slacks, known only when every
// part's is.
func (m *Min) marginSlack(i int, b Ball) (float64, bool) {
	var sigma float64
	for _, p := range m.parts {
		mc, ok := p.(monotoneCertifier)
		if !ok {
			return 0, false
		}
		s, ok := mc.marginSlack(i, b)
		if !ok {
			return 0, false
		}
		sigma = max(sigma, s)
	}
	return sigma, true
}

// Eval returns the smallest exact output on every row of x; it fails if a
// part cannot evaluate its model.
func (m *Min) Eval(x linalg.Matrix[float64]) ([]float64, error) {
	var out []float64
	for k, p := range m.parts {
		ev, ok := p.(Evaluator)
		if !ok {
			return nil, fmt.Errorf("ibp: output %d cannot be evaluated", k)
		}
		v, err := ev.Eval(x)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = v
			continue
		}
		for r := range out {
			out[r] = min(out[r], v[r])
		}
	}
	return out, nil
}
