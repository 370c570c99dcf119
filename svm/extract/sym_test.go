package extract

import (
	"github.com/ntksvm/ntksvm/svm"

	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// extractRef observes a run through an Extractor and alongside it
// accumulates the kernel the way the Extractor did before it used the
// symmetry of training×training: full Gram products (linalg.Gram, mirrored
// by linalg), Θ̂ assembled over all n² elements, every row of the running
// kernel updated from a full row of Θ̂. It takes the column weights from
// the Extractor, whose outputs and weights the symmetry does not touch.
type extractRef[T linalg.Float] struct {
	e                     *Extractor[T]
	xx, xtx               linalg.Matrix[T]
	acc, prev, accT, prvT []float64
	buf                   [2][]linalg.Matrix[T]
	t                     float64
	started               bool
}

func newExtractRef[T linalg.Float](e *Extractor[T]) (*extractRef[T], error) {
	r := &extractRef[T]{e: e, xx: linalg.New[T](e.n, e.n)}
	if err := linalg.Gram(e.x, r.xx); err != nil {
		return nil, err
	}
	r.acc, r.prev = make([]float64, e.n*e.n), make([]float64, e.n*e.n)
	if e.nt > 0 {
		r.xtx = linalg.New[T](e.nt, e.n)
		if err := linalg.CrossGram(e.xt, e.x, r.xtx); err != nil {
			return nil, err
		}
		r.accT, r.prvT = make([]float64, e.nt*e.n), make([]float64, e.nt*e.n)
	}
	return r, nil
}

// Observe implements observer.
func (r *extractRef[T]) Observe(net *ntk.Network[T], t float64, batch []int) error {
	if err := r.e.Observe(net, t, batch); err != nil {
		return err
	}
	p, err := net.Forward(r.e.x)
	if err != nil {
		return err
	}
	th, err := r.theta(net, p, p, r.xx)
	if err != nil {
		return err
	}
	h := t - r.t
	r.advance(r.acc, r.prev, th, h)
	if r.e.nt > 0 {
		pt, err := net.Forward(r.e.xt)
		if err != nil {
			return err
		}
		if th, err = r.theta(net, pt, p, r.xtx); err != nil {
			return err
		}
		r.advance(r.accT, r.prvT, th, h)
	}
	r.t, r.started = t, true
	return nil
}

// theta returns Θ̂(X1, X2) computed over every element, in the order of
// operations of Extractor.grams and thetaParts.row.
func (r *extractRef[T]) theta(net *ntk.Network[T], p1, p2 *ntk.Pass[T], x12 linalg.Matrix[T]) (linalg.Matrix[T], error) {
	same := p1 == p2
	d1, err := extractDeltas(net, p1, &r.buf[0])
	if err != nil {
		return linalg.Matrix[T]{}, err
	}
	d2 := d1
	if !same {
		if d2, err = extractDeltas(net, p2, &r.buf[1]); err != nil {
			return linalg.Matrix[T]{}, err
		}
	}
	gram := func(a, b, c linalg.Matrix[T]) error {
		if same {
			return linalg.Gram(a, c)
		}
		return linalg.CrossGram(a, b, c)
	}
	scale := func(l int) T {
		fan := net.Width
		if l == 0 {
			fan = net.D
		}
		return T(net.WeightStd * net.WeightStd / float64(fan))
	}
	rows, cols := x12.Rows, x12.Cols
	dd, aa, th := linalg.New[T](rows, cols), linalg.New[T](rows, cols), linalg.New[T](rows, cols)
	s0, sL, sb2 := scale(0), scale(net.Depth), T(net.BiasStd*net.BiasStd)
	if err := gram(p1.A[net.Depth], p2.A[net.Depth], aa); err != nil {
		return th, err
	}
	if net.Depth == 1 {
		if err := gram(d1[0], d2[0], dd); err != nil {
			return th, err
		}
		for i, d := range dd.Data {
			th.Data[i] = s0*d*x12.Data[i] + sb2*d + sL*aa.Data[i] + sb2
		}
		return th, nil
	}
	ah := linalg.New[T](rows, cols)
	for l := range net.Depth {
		if err := gram(d1[l], d2[l], dd); err != nil {
			return th, err
		}
		prod := x12
		if l > 0 {
			if err := gram(p1.A[l], p2.A[l], ah); err != nil {
				return th, err
			}
			prod = ah
		}
		s2 := scale(l)
		for i, d := range dd.Data {
			if l == 0 {
				th.Data[i] = s2*d*prod.Data[i] + sb2*d
			} else {
				th.Data[i] += s2*d*prod.Data[i] + sb2*d
			}
		}
	}
	for i, v := range th.Data {
		th.Data[i] = v + sL*aa.Data[i] + sb2
	}
	return th, nil
}

// advance is Extractor.advance on a full Θ̂.
func (r *extractRef[T]) advance(acc, prev []float64, th linalg.Matrix[T], h float64) {
	decay, wp, wc := r.e.rule(h)
	for i, v := range th.Data {
		c := float64(v) * r.e.w[i%th.Cols]
		if r.started {
			acc[i] = decay*(acc[i]+wp*prev[i]) + wc*c
		}
		prev[i] = c
	}
}

// extractAs converts a float64 matrix to T.
func extractAs[T linalg.Float](m linalg.Matrix[float64]) linalg.Matrix[T] {
	out := linalg.New[T](m.Rows, m.Cols)
	for i := range m.Rows {
		for j := range m.Cols {
			out.Set(i, j, T(m.At(i, j)))
		}
	}
	return out
}

// extractSame reports whether got equals want: bitwise on amd64, where
// Go does not fuse x*y+z, and elsewhere (arm64 fuses it into one FMA
// where it chooses) within 64 rounding errors of T of the largest |want|.
func extractSame[T linalg.Float](got, want []float64) (int, bool) {
	if len(got) != len(want) {
		return -1, false
	}
	tol := 0.0
	if runtime.GOARCH != "amd64" {
		var scale float64
		for _, v := range want {
			scale = max(scale, math.Abs(v))
		}
		var z T
		eps := 0x1p-52
		if _, ok := any(z).(float32); ok {
			eps = 0x1p-23
		}
		tol = 64 * eps * scale
	}
	for i := range got {
		if tol == 0 && math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Abs(got[i]-want[i]) > tol {
			return i, false
		}
	}
	return 0, true
}

// TestExtractSymmetricMatchesFull checks the training×training kernel,
// accumulated from the lower triangles of the symmetric Gram products,
// against the full products of extractRef, and the test×training kernel
// beside it: equal bitwise on amd64, for one and two hidden layers, float32
// and float64, every decay target, both rules and a minibatch, with n
// below and across the row blocks of thetaParts.symmetric.
func TestExtractSymmetricMatchesFull(t *testing.T) {
	t.Run("float64", extractSymmetricMatchesFull[float64])
	t.Run("float32", extractSymmetricMatchesFull[float32])
}

func extractSymmetricMatchesFull[T linalg.Float](t *testing.T) {
	for _, n := range []int{7, 150, symRows + 44} {
		for _, depth := range []int{1, 2} {
			for _, nt := range []int{0, 5} {
				for _, c := range []struct {
					name   string
					target DecayTarget
					decay  float64
					bias   float64
					loss   svm.Loss
					obj    svm.Objective
					rule   Quadrature
					batch  bool
				}{
					{"zero", DecayToZero, 0.3, 0, svm.Squared, svm.ObjectiveSum, Trapezoid, false},
					{"zero/nodecay/bias", DecayToZero, 0, 0.5, svm.Squared, svm.ObjectiveMean, Trapezoid, false},
					{"init", DecayToInit, 0.2, 0, svm.Hinge, svm.ObjectiveMean, Left, false},
					{"initall/bias", DecayToInitAll, 0.5, 0.4, svm.Squared, svm.ObjectiveSum, Trapezoid, false},
					{"initall/minibatch", DecayToInitAll, 0.1, 0.4, svm.Logistic, svm.ObjectiveMean, Left, true},
				} {
					name := fmt.Sprintf("n=%d/depth=%d/nt=%d/%s", n, depth, nt, c.name)
					t.Run(name, func(t *testing.T) {
						x64, y, xt64 := extractData(uint64(n+depth), n, nt, 5)
						x, xt := extractAs[T](x64), extractAs[T](xt64)
						net, err := ntk.NewNetwork[T](5, 24, depth, 1.2, c.bias, uint64(3+depth))
						if err != nil {
							t.Fatal(err)
						}
						e, err := NewExtractor(x, y, xt, Config{Loss: c.loss, Objective: c.obj, Decay: c.decay, Target: c.target, Rule: c.rule})
						if err != nil {
							t.Fatal(err)
						}
						r, err := newExtractRef(e)
						if err != nil {
							t.Fatal(err)
						}
						g, err := newNetGD(net, x, y, c.loss, c.obj, c.decay, "theory", false)
						if err != nil {
							t.Fatal(err)
						}
						var batch []int
						if c.batch {
							for j := 0; j < n; j += 3 {
								batch = append(batch, j)
							}
						}
						const eta = 0.05
						for k := range 6 {
							if k > 0 {
								if err := g.step(eta, batch); err != nil {
									t.Fatal(err)
								}
							}
							if err := r.Observe(net, eta*float64(k), batch); err != nil {
								t.Fatal(err)
							}
							if i, ok := extractSame[T](e.acc, r.acc); !ok {
								t.Fatalf("step %d: train kernel (%d, %d) = %g, full Grams %g", k, i/n, i%n, e.acc[i], r.acc[i])
							}
							prev := make([]float64, n*n) // the integrand advanceSym recomputes
							for i := range prev {
								prev[i] = float64(e.thp.Data[i]) * e.wprev[i%n]
							}
							if i, ok := extractSame[T](prev, r.prev); !ok {
								t.Fatalf("step %d: train integrand (%d, %d) = %g, full Grams %g", k, i/n, i%n, prev[i], r.prev[i])
							}
							if i, ok := extractSame[T](e.prvT, r.prvT); !ok {
								t.Fatalf("step %d: test integrand (%d, %d) = %g, full Grams %g", k, i/n, i%n, e.prvT[i], r.prvT[i])
							}
							if i, ok := extractSame[T](e.accT, r.accT); !ok {
								t.Fatalf("step %d: test kernel (%d, %d) = %g, full Grams %g", k, i/n, i%n, e.accT[i], r.accT[i])
							}
						}
						kt, _ := e.Kernel()
						if i, ok := extractSame[T](kt.Data, r.acc); !ok {
							t.Fatalf("Kernel (%d, %d) = %g, full Grams %g", i/n, i%n, kt.Data[i], r.acc[i])
						}
					})
				}
			}
		}
	}
}

// TestExtractKernelSymmetric checks that Θ̂ on training×training (theta)
// is exactly symmetric, and so is the running kernel when every column
// carries the same weight (AuthorsCode: |l'| is taken as 1; in general
// column j of K_T carries |l'ⱼ| and K_T is not symmetric), for n below
// and across the row blocks of thetaParts.symmetric.
func TestExtractKernelSymmetric(t *testing.T) {
	for _, n := range []int{7, 150, symRows + 44} {
		for _, depth := range []int{1, 2} {
			t.Run(fmt.Sprintf("n=%d/depth=%d", n, depth), func(t *testing.T) {
				x, y, _ := extractData(9, n, 0, 4)
				net, err := ntk.NewNetwork[float64](4, 16, depth, 1.3, 0.4, 2)
				if err != nil {
					t.Fatal(err)
				}
				e, err := NewExtractor(x, y, linalg.Matrix[float64]{}, Config{Loss: svm.Hinge, Objective: svm.ObjectiveMean, AuthorsCode: true})
				if err != nil {
					t.Fatal(err)
				}
				p, err := net.Forward(x)
				if err != nil {
					t.Fatal(err)
				}
				th := linalg.New[float64](n, n)
				if err := e.theta(net, p, p, e.xx, e.dd, e.aa, th); err != nil {
					t.Fatal(err)
				}
				g, err := newNetGD(net, x, y, svm.Hinge, svm.ObjectiveMean, 0, "none", false)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.run(0.1, 4, []observer[float64]{e}, []int{1}); err != nil {
					t.Fatal(err)
				}
				k, _ := e.Kernel()
				for i := range n {
					for j := range i {
						if th.At(i, j) != th.At(j, i) {
							t.Fatalf("Θ̂(%d, %d) = %g, Θ̂(%d, %d) = %g", i, j, th.At(i, j), j, i, th.At(j, i))
						}
						if k.At(i, j) != k.At(j, i) {
							t.Fatalf("K(%d, %d) = %g, K(%d, %d) = %g", i, j, k.At(i, j), j, i, k.At(j, i))
						}
					}
				}
				if k.At(n-1, 0) == 0 {
					t.Fatal("the kernel was not accumulated")
				}
			})
		}
	}
}
