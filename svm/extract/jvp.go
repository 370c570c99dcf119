package extract

import (
	"math"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
)

// extractLin holds what DecayToInitAll needs: the initial weights of every
// layer and the buffers of the tangent pass.
type extractLin[T linalg.Float] struct {
	w0  [][]T              // W_l,0, row-major as net.W[l].Data
	b0  [][]T              // b_l,0; nil without biases
	v   []linalg.Matrix[T] // W_l − W_l,0
	buf [2]linalg.Matrix[T]
	rho []float64 // ρ_t on train then test
}

// driftAll integrates the DecayToInitAll term λ·ρ_t, ρ_t(x) = (f_t −
// f₀)(x) − ⟨∇_W f(W_t; x), W_t − W_0⟩, into b by the same quadrature as
// the kernel (see drift). The passes e.pass and e.pT hold the forward
// pass at W_t.
func (e *Extractor[T]) driftAll(net *ntk.Network[T], first bool, h float64) error {
	lin := &e.lin
	if first {
		lin.w0 = make([][]T, len(net.W))
		lin.v = make([]linalg.Matrix[T], len(net.W))
		for l, w := range net.W {
			lin.w0[l] = append([]T(nil), w.Data...)
			lin.v[l] = linalg.New[T](w.Rows, w.Cols)
		}
		if net.B != nil {
			lin.b0 = make([][]T, len(net.B))
			for l, b := range net.B {
				lin.b0[l] = append([]T(nil), b...)
			}
		}
		e.c, e.cacc = make([]float64, e.n), make([]float64, e.n)
		e.ct, e.cacT = make([]float64, e.nt), make([]float64, e.nt)
		lin.rho = make([]float64, max(e.n, e.nt))
	}
	for l, w := range net.W {
		v := lin.v[l]
		for i := range w.Rows {
			wr, vr := w.Data[i*w.Stride:i*w.Stride+w.Cols], v.Data[i*v.Stride:i*v.Stride+v.Cols]
			w0 := lin.w0[l][i*w.Stride : i*w.Stride+w.Cols]
			for j, x := range wr {
				vr[j] = x - w0[j]
			}
		}
	}
	one := func(p *ntk.Pass[T], f0, c, acc []float64) error {
		rho := lin.rho[:len(c)]
		if err := extractTangent(net, p, lin, rho); err != nil {
			return err
		}
		for i, v := range p.F {
			rho[i] = float64(v) - f0[i] - rho[i]
		}
		e.addDrift(rho, c, acc, first, h)
		return nil
	}
	if err := one(e.pass, e.f0, e.c, e.cacc); err != nil {
		return err
	}
	if e.nt > 0 {
		return one(e.pT, e.f0t, e.ct, e.cacT)
	}
	return nil
}

// addDrift advances the integral acc of λ·c by the interval h (see
// advance for the rule), c holding the integrand at the previous
// observation and cur the current one; then c ← cur.
func (e *Extractor[T]) addDrift(cur, c, acc []float64, first bool, h float64) {
	decay := math.Exp(-e.cfg.Decay * h)
	wp, wc := h/2, h/2
	if e.cfg.Rule == Left {
		wp, wc = h, 0
	}
	lam := e.cfg.Decay
	for i := range c {
		if !first {
			acc[i] = decay*(acc[i]+wp*lam*c[i]) + wc*lam*cur[i]
		}
		c[i] = cur[i]
	}
}

// extractTangent sets dst[i] = ⟨∇_W f(W; xᵢ), V⟩ (V = lin.v, and the bias
// differences) for the rows of the forward pass p, by forward-mode
// differentiation through the layers:
//
//	ż¹ = s₀·V₀ x + σ_b·v_b⁰,  ż^{l+1} = s_l·(V_l a_l + W_l ȧ_l) + σ_b·v_bˡ,  ȧ_l = relu'(z_l) ⊙ ż_l,
//
// with s_l = σ_w/√fan_in_l: two products of the forward pass's shapes per
// layer.
func extractTangent[T linalg.Float](net *ntk.Network[T], p *ntk.Pass[T], lin *extractLin[T], dst []float64) error {
	n := len(p.F)
	var adot linalg.Matrix[T]
	for l := 0; l <= net.Depth; l++ {
		out, fan := net.W[l].Rows, net.Width
		if l == 0 {
			fan = net.D
		}
		b := &lin.buf[l%2]
		if b.Rows != n || b.Cols != out {
			if cap(b.Data) >= n*out {
				*b = linalg.Matrix[T]{Rows: n, Cols: out, Stride: out, Data: b.Data[:n*out]}
			} else {
				*b = linalg.New[T](n, out)
			}
		}
		z := *b
		s := T(net.WeightStd / math.Sqrt(float64(fan)))
		if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, s, p.A[l], lin.v[l], 0, z); err != nil {
			return err
		}
		if l > 0 {
			if err := linalg.Gemm(linalg.NoTrans, linalg.Trans, s, adot, net.W[l], 1, z); err != nil {
				return err
			}
		}
		if net.B != nil && lin.b0 != nil {
			sb := T(net.BiasStd)
			for i := range n {
				zr := z.Data[i*z.Stride : i*z.Stride+out]
				for j := range zr {
					zr[j] += sb * (net.B[l][j] - lin.b0[l][j])
				}
			}
		}
		if l == net.Depth {
			for i := range n {
				dst[i] = float64(z.Data[i*z.Stride])
			}
			return nil
		}
		pre := p.Z[l]
		for i := range n {
			zr := z.Data[i*z.Stride : i*z.Stride+out]
			pr := pre.Data[i*pre.Stride : i*pre.Stride+out]
			for j, v := range pr {
				if !(v > 0) {
					zr[j] = 0
				}
			}
		}
		adot = z
	}
	return nil
}
