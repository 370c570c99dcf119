package extract

import (
	"github.com/ntksvm/ntksvm/svm"

	"fmt"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// netGD is a minimal full-batch (or minibatch) (sub)gradient-descent trainer
// of an ntk.Network, standing in for the network train.Stepper in these tests.
// mode "paper" penalises λ/2‖W_last/√m‖², "theory" λ/2‖W_last − W_last,0‖²,
// "none" nothing; with subtract the loss sees f − f₀.
type netGD[T linalg.Float] struct {
	net      *ntk.Network[T]
	x        linalg.Matrix[T]
	y        []float64
	loss     svm.Loss
	obj      svm.Objective
	lambda   float64
	mode     string
	subtract bool

	f0    []float64
	wlast []T // W_last at initialisation
	pass  *ntk.Pass[T]
	grads *ntk.Grads[T]
	c     []T
	t     float64
}

func newNetGD[T linalg.Float](net *ntk.Network[T], x linalg.Matrix[T], y []float64, loss svm.Loss, obj svm.Objective, lambda float64, mode string, subtract bool) (*netGD[T], error) {
	g := &netGD[T]{net: net, x: x, y: y, loss: loss, obj: obj, lambda: lambda, mode: mode, subtract: subtract}
	p, err := net.Forward(x)
	if err != nil {
		return nil, err
	}
	g.pass = p
	g.f0 = make([]float64, x.Rows)
	for i, v := range p.F {
		g.f0[i] = float64(v)
	}
	g.wlast = append([]T(nil), net.W[net.Depth].Data...)
	g.c = make([]T, x.Rows)
	return g, nil
}

// step takes one step of size eta on batch (nil: all points).
func (g *netGD[T]) step(eta float64, batch []int) error {
	if err := g.net.ForwardInto(g.pass, g.x); err != nil {
		return err
	}
	n := g.x.Rows
	s := 1.0
	for i := range g.c {
		g.c[i] = 0
	}
	idx := batch
	if idx == nil {
		idx = make([]int, n)
		for i := range idx {
			idx[i] = i
		}
	}
	if g.obj == svm.ObjectiveMean {
		s = 1 / float64(len(idx))
	} else {
		s = float64(n) / float64(len(idx)) // 1 for the full batch
	}
	for _, i := range idx {
		f := float64(g.pass.F[i])
		if g.subtract {
			f -= g.f0[i]
		}
		g.c[i] += T(s * g.loss.Deriv(f, g.y[i]))
	}
	var err error
	if g.grads == nil {
		g.grads, err = g.net.Backward(g.pass, g.c)
	} else {
		err = g.net.BackwardInto(g.grads, g.pass, g.c)
	}
	if err != nil {
		return err
	}
	for l := range g.net.W {
		w, gr := g.net.W[l].Data, g.grads.W[l].Data
		last := l == g.net.Depth
		for i := range w {
			d := float64(gr[i])
			if last {
				switch g.mode {
				case "paper":
					d += g.lambda * float64(w[i]) / float64(g.net.Width)
				case "theory":
					d += g.lambda * float64(w[i]-g.wlast[i])
				case "none":
				default:
					return fmt.Errorf("mode %q", g.mode)
				}
			}
			w[i] -= T(eta * d)
		}
	}
	for l := range g.net.B {
		b, gr := g.net.B[l], g.grads.B[l]
		for i := range b {
			b[i] -= T(eta * float64(gr[i]))
		}
	}
	g.t += eta
	return nil
}

// run observes the initial state, then takes steps of size eta, and
// observes after every step k with k % every[o] == 0 for observer o.
func (g *netGD[T]) run(eta float64, steps int, obs []observer[T], every []int) error {
	for _, o := range obs {
		if err := o.Observe(g.net, g.t, nil); err != nil {
			return err
		}
	}
	for k := 1; k <= steps; k++ {
		if err := g.step(eta, nil); err != nil {
			return err
		}
		for i, o := range obs {
			if k%every[i] == 0 {
				if err := o.Observe(g.net, float64(k)*eta, nil); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// extractMatrix builds a matrix from rows.
func extractMatrix[T linalg.Float](rows [][]float64) linalg.Matrix[T] {
	m := linalg.New[T](len(rows), len(rows[0]))
	for i, r := range rows {
		for j, v := range r {
			m.Set(i, j, T(v))
		}
	}
	return m
}

// observer is what the test trainers show the network to (an Extractor).
type observer[T linalg.Float] interface {
	Observe(net *ntk.Network[T], t float64, batch []int) error
}
