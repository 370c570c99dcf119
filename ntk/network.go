package ntk

import (
	"context"
	"fmt"
	"math"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
)

// Network is a finite NTK-parameterised ReLU MLP (paper eq. 1, NTK parameterisation) with Depth
// hidden layers of Width units on D inputs and one output:
//
//	z¹ = σ_w·W⁰x/√D + σ_b·b⁰,  z^{l+1} = σ_w·W^l·relu(z^l)/√Width + σ_b·b^l,  f = z^{Depth+1}.
//
// Layers are numbered from 0 as in the files: W[l] is the weight of layer
// l, stored out×in as PyTorch's nn.Linear stores it: W[0] is Width×D,
// W[1…Depth−1] Width×Width, W[Depth] 1×Width. B[l] is the bias of layer l
// (length out) and B is nil when BiasStd is 0 (no bias, the paper's
// setting). The fields may be changed between calls (a trainer updates W);
// their shapes may not.
type Network[T linalg.Float] struct {
	D, Width, Depth    int
	WeightStd, BiasStd float64
	W                  []linalg.Matrix[T]
	B                  [][]T
}

// maxParams bounds the size of a network (about 16 GiB of float32).
const maxParams = 1 << 32

// NewNetwork returns a network with every weight and bias drawn N(0, 1)
// from NewNormal(seed), layer by layer: all of W[0] in row-major order,
// then B[0] if there are biases, then W[1], and so on. Samples are drawn in
// float64 and rounded to T, so float32 and float64 networks of one seed
// hold the same weights up to rounding, on every platform.
func NewNetwork[T linalg.Float](d, width, depth int, weightStd, biasStd float64, seed uint64) (*Network[T], error) {
	return NewNetworkContext[T](context.Background(), d, width, depth, weightStd, biasStd, seed)
}

// NewNetworkContext is NewNetwork that stops once ctx is done (checked
// every 2²⁰ weights: a wide network's 10⁸ draws take seconds) and returns
// ctx's error. The weights it returns are NewNetwork's.
func NewNetworkContext[T linalg.Float](ctx context.Context, d, width, depth int, weightStd, biasStd float64, seed uint64) (*Network[T], error) {
	net, err := newShape[T](d, width, depth, weightStd, biasStd)
	if err != nil {
		return nil, err
	}
	g := NewNormal(seed)
	const chunk = 1 << 20
	for l := range net.W {
		w := net.W[l]
		for i0 := 0; i0 < len(w.Data); i0 += chunk {
			if ctx.Done() != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			for i := i0; i < min(i0+chunk, len(w.Data)); i++ {
				w.Data[i] = T(g.Float64())
			}
		}
		if net.B != nil {
			for i := range net.B[l] {
				net.B[l][i] = T(g.Float64())
			}
		}
	}
	return net, nil
}

// newShape allocates a zero network after checking its hyper-parameters.
func newShape[T linalg.Float](d, width, depth int, weightStd, biasStd float64) (*Network[T], error) {
	switch {
	case d < 1 || width < 1:
		return nil, fmt.Errorf("ntk: network with %d inputs and width %d: both must be positive", d, width)
	case depth < 1 || depth > maxDepth:
		return nil, fmt.Errorf("ntk: network depth %d: want 1…%d hidden layers", depth, maxDepth)
	case float64(width)*(float64(d)+float64(width)*float64(depth-1)+1) > maxParams:
		return nil, fmt.Errorf("ntk: network %d→%d×%d→1 has more than %d weights", d, width, depth, int64(maxParams))
	}
	if err := (Spec{Depth: depth, WeightStd: weightStd, BiasStd: biasStd}).Validate(); err != nil {
		return nil, err
	}
	net := &Network[T]{D: d, Width: width, Depth: depth, WeightStd: weightStd, BiasStd: biasStd}
	for l := 0; l <= depth; l++ {
		out, in := net.layerShape(l)
		net.W = append(net.W, linalg.New[T](out, in))
		if biasStd != 0 {
			net.B = append(net.B, make([]T, out))
		}
	}
	return net, nil
}

// layerShape returns the out×in shape of layer l's weight.
func (net *Network[T]) layerShape(l int) (out, in int) {
	out, in = net.Width, net.Width
	if l == 0 {
		in = net.D
	}
	if l == net.Depth {
		out = 1
	}
	return out, in
}

// scale returns σ_w/√fan_in of layer l.
func (net *Network[T]) scale(l int) float64 {
	_, in := net.layerShape(l)
	return net.WeightStd / math.Sqrt(float64(in))
}

// Spec returns the infinite-width NTK of this architecture, every layer
// trained, in the network's element type.
func (net *Network[T]) Spec() Spec {
	var zero T
	return Spec{Kind: KindNTK, Depth: net.Depth, WeightStd: net.WeightStd, BiasStd: net.BiasStd, Float32: sizeOf(zero) == 4}
}

// Pass holds what a forward pass keeps for the backward pass: the input
// of every layer (A[0] = X, A[l] = relu(Z[l−1])), the pre-activations Z[l]
// of the hidden layers (n×Width each), and the outputs F. A Pass can be
// given back to ForwardInto to reuse its memory.
type Pass[T linalg.Float] struct {
	A []linalg.Matrix[T] // A[l] is the input of layer l, l = 0…Depth
	Z []linalg.Matrix[T] // Z[l] is the output of layer l before the ReLU, l = 0…Depth−1
	F []T                // f(x_i), one per row of X

	out linalg.Matrix[T] // n×1 storage of F
	ga  linalg.Matrix[T] // n×Width scratch of the backward pass
}

// Forward evaluates the network on the rows of x (n×D) and returns the
// outputs with the activations the backward pass needs. Every layer is one
// GEMM (linalg.Gemm) and one ReLU (asm).
func (net *Network[T]) Forward(x linalg.Matrix[T]) (*Pass[T], error) {
	p := &Pass[T]{}
	return p, net.ForwardInto(p, x)
}

// ForwardInto is Forward writing into p, whose buffers are reused when they
// have the right shapes (a training loop allocates nothing per step). p
// keeps a reference to x.
func (net *Network[T]) ForwardInto(p *Pass[T], x linalg.Matrix[T]) error {
	return net.ForwardIntoContext(context.Background(), p, x)
}

// ForwardIntoContext is ForwardInto whose products stop early once ctx is
// done (linalg.GemmContext): it then returns ctx's error, and p holds no
// usable pass. A pass that runs to its end is bitwise ForwardInto's.
func (net *Network[T]) ForwardIntoContext(ctx context.Context, p *Pass[T], x linalg.Matrix[T]) error {
	if x.Cols != net.D {
		return fmt.Errorf("%w: ntk: inputs have %d features, the network %d", linalg.ErrShape, x.Cols, net.D)
	}
	n := x.Rows
	p.A = append(p.A[:0], x)
	p.Z = p.Z[:cap(p.Z)]
	for l := 0; l <= net.Depth; l++ {
		out, _ := net.layerShape(l)
		var z linalg.Matrix[T]
		if l == net.Depth {
			p.out = reuse(p.out, n, 1)
			z = p.out
		} else {
			if l >= len(p.Z) {
				p.Z = append(p.Z, linalg.Matrix[T]{})
			}
			p.Z[l] = reuse(p.Z[l], n, out)
			z = p.Z[l]
		}
		if err := linalg.GemmContext(ctx, linalg.NoTrans, linalg.Trans, T(net.scale(l)), p.A[l], net.W[l], 0, z); err != nil {
			return fmt.Errorf("ntk: layer %d: %w", l, err)
		}
		if net.B != nil {
			sb := T(net.BiasStd)
			for i := range n {
				r := z.Row(i)
				for j, b := range net.B[l] {
					r[j] += sb * b
				}
			}
		}
		if l == net.Depth {
			p.F = z.Data[:n:n] // one column, Stride 1
			break
		}
		var a linalg.Matrix[T]
		if l+1 < cap(p.A) {
			a = p.A[:l+2][l+1]
		}
		a = reuse(a, n, out)
		relu(a.Data, z.Data)
		p.A = append(p.A, a)
	}
	p.Z = p.Z[:net.Depth]
	return nil
}

// reuse returns m if it is a compact rows×cols matrix, else a new one.
func reuse[T linalg.Float](m linalg.Matrix[T], rows, cols int) linalg.Matrix[T] {
	if m.Rows == rows && m.Cols == cols && m.Stride == cols && len(m.Data) == rows*cols {
		return m
	}
	if cap(m.Data) >= rows*cols && m.Data != nil {
		return linalg.Matrix[T]{Rows: rows, Cols: cols, Stride: cols, Data: m.Data[:rows*cols]}
	}
	return linalg.New[T](rows, cols)
}

// Grads are gradients with the shapes of a Network's W and B.
type Grads[T linalg.Float] struct {
	W []linalg.Matrix[T]
	B [][]T // nil when the network has no biases
}

// Backward returns the gradients, with respect to every weight and bias, of
// Σ_i c[i]·f(x_i) for the pass p of this network: c holds the output
// cotangents (e.g. the loss derivatives l'(f(x_i), y_i), or one-hot for the
// gradient of one output).
func (net *Network[T]) Backward(p *Pass[T], c []T) (*Grads[T], error) {
	g := &Grads[T]{}
	return g, net.BackwardInto(g, p, c)
}

// BackwardInto is Backward writing into gr, whose buffers are reused when
// they have the right shapes.
func (net *Network[T]) BackwardInto(gr *Grads[T], p *Pass[T], c []T) error {
	return net.backward(context.Background(), gr, p, c, nil)
}

// Step describes the gradient-descent step BackwardStep applies.
type Step[T linalg.Float] struct {
	Eta T // the step size η
	// Update[l] says whether W[l] is updated; Beta[l] is its factor β_l
	// (1 for a plain gradient step, 1 − δ for a decay toward 0 by δ). Both
	// have Depth+1 entries.
	Update []bool
	Beta   []T
	// Bound, if not nil (Depth+1 entries), receives for each updated
	// layer an upper bound on max |η·G_l|, computed from the cotangents
	// and the layer's inputs (NaN or +Inf if one of them is not finite),
	// and 0 for the others: with max |W[l]| ≤ w before the step,
	// max |W[l]| ≤ |β_l|·w + Bound[l] after it, up to rounding, so a caller
	// can show the new weights finite without reading them.
	Bound []float64
}

// BackwardStep is BackwardInto fused with a gradient-descent step on the
// weights: for every layer l with st.Update[l] it applies
//
//	W[l] ← β_l·W[l] − η·G_l,   G_l = ∂(Σ_i c[i]·f(x_i))/∂W[l],
//
// in place, as one GEMM (alpha = −η·σ_w/√fan_in, beta = β_l; β_l = 0
// overwrites W[l]) run once W[l] has served the backward pass to the layer
// below. G_l is never stored: for a hidden layer of width m that saves
// writing an m×m gradient and reading it back in the update, the largest
// memory traffic of a training step. gr.W[l] is left as it is for those
// layers; the others get their gradients in gr.W[l] as from BackwardInto,
// and gr.B gets every bias gradient (biases are not updated). The weights
// differ from BackwardInto followed by W ← β·W − η·G in rounding only.
//
// It returns an error wrapping linalg.ErrShape if len(c) is not the number
// of outputs of p or st's slices do not have Depth+1 entries.
func (net *Network[T]) BackwardStep(gr *Grads[T], p *Pass[T], c []T, st *Step[T]) error {
	return net.BackwardStepContext(context.Background(), gr, p, c, st)
}

// BackwardStepContext is BackwardStep that stops early once ctx is done,
// as long as no weight has been changed: the products before the first
// in-place update (the cotangents of the layers above it, linalg.
// GemmContext) stop on ctx, and it then returns ctx's error with the
// weights as they were; from the first update on, the step runs to its
// end, so that it is applied whole or not at all. For a network of depth
// 2 trained with hidden layers updated, the cancellable part is the
// cotangent product through W[1], the update of W[1] and W[0] is not. A
// step that runs to its end is bitwise BackwardStep's.
func (net *Network[T]) BackwardStepContext(ctx context.Context, gr *Grads[T], p *Pass[T], c []T, st *Step[T]) error {
	if len(st.Update) != net.Depth+1 || len(st.Beta) != net.Depth+1 || (st.Bound != nil && len(st.Bound) != net.Depth+1) {
		return fmt.Errorf("%w: ntk: a step for %d, %d and %d layers on a network of %d",
			linalg.ErrShape, len(st.Update), len(st.Beta), len(st.Bound), net.Depth+1)
	}
	return net.backward(ctx, gr, p, c, st)
}

// backward is BackwardInto (st nil) and BackwardStepContext: ctx stops
// the products until the first weight is updated, and none after.
func (net *Network[T]) backward(ctx context.Context, gr *Grads[T], p *Pass[T], c []T, st *Step[T]) error {
	n := len(p.F)
	if len(c) != n {
		return fmt.Errorf("%w: ntk: %d cotangents for %d outputs", linalg.ErrShape, len(c), n)
	}
	if len(p.A) != net.Depth+1 {
		return fmt.Errorf("ntk: the pass is of a network of depth %d, not %d", len(p.A)-1, net.Depth)
	}
	if len(gr.W) != net.Depth+1 {
		gr.W = make([]linalg.Matrix[T], net.Depth+1)
	}
	if net.B == nil {
		gr.B = nil
	} else if len(gr.B) != net.Depth+1 {
		gr.B = make([][]T, net.Depth+1)
	}
	g, _ := linalg.FromSlice(n, 1, c) // ∂/∂z of the current layer's output, n×out
	for l := net.Depth; l >= 0; l-- {
		out, in := net.layerShape(l)
		s := T(net.scale(l))
		step := st != nil && st.Update[l]
		if st != nil && st.Bound != nil {
			st.Bound[l] = 0
		}
		if !step {
			gr.W[l] = reuse(gr.W[l], out, in)
			if err := linalg.GemmContext(ctx, linalg.Trans, linalg.NoTrans, s, g, p.A[l], 0, gr.W[l]); err != nil {
				return fmt.Errorf("ntk: layer %d: %w", l, err)
			}
		}
		if gr.B != nil {
			if len(gr.B[l]) != out {
				gr.B[l] = make([]T, out)
			}
			db := gr.B[l]
			clear(db)
			sb := T(net.BiasStd)
			for i := range n {
				for j, v := range g.Row(i) {
					db[j] += sb * v
				}
			}
		}
		var ga linalg.Matrix[T]
		if l > 0 {
			// The scratch alternates with the cotangent it is computed from:
			// g is c (l = Depth) or p.ga, so take the other half of p.ga.
			p.ga = reuse(p.ga, 2*n, in)
			ga = p.ga.Slice(0, n, 0, in)
			if l < net.Depth && (net.Depth-l)%2 == 1 {
				ga = p.ga.Slice(n, 2*n, 0, in)
			}
			if err := linalg.GemmContext(ctx, linalg.NoTrans, linalg.NoTrans, s, g, net.W[l], 0, ga); err != nil {
				return fmt.Errorf("ntk: layer %d: %w", l, err)
			}
		}
		if step {
			// W[l] has been used for ga: update it in place.
			alpha := -st.Eta * s
			if st.Bound != nil {
				st.Bound[l] = stepBound(alpha, g, p.A[l])
			}
			if ctx.Done() != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			ctx = context.Background() // the step is applied whole from here
			if err := linalg.Gemm(linalg.Trans, linalg.NoTrans, alpha, g, p.A[l], st.Beta[l], net.W[l]); err != nil {
				return fmt.Errorf("ntk: layer %d: %w", l, err)
			}
		}
		if l == 0 {
			break
		}
		reluGrad(ga.Data, ga.Data, p.Z[l-1].Data)
		g = ga
	}
	return nil
}

// stepBound returns an upper bound on every |alpha·(gᵀa)[i,j]|:
// |Σ_k g[k,i]·a[k,j]| ≤ ‖g[:,i]‖·‖a[:,j]‖ ≤ ‖g‖_F·‖a‖_F (Cauchy–Schwarz),
// doubled to cover the rounding of the sums of squares (each row's sum is
// off by at most n·ε relative for n terms: under 1/2 for float32 rows of
// fewer than 2²³ elements; longer rows are summed in pieces that short).
// The sums run on linalg.Dot's SIMD kernels. It is NaN or +Inf if g or a
// has a non-finite element (or the sums overflow T).
func stepBound[T linalg.Float](alpha T, g, a linalg.Matrix[T]) float64 {
	return 2 * math.Abs(float64(alpha)) * math.Sqrt(sumSquares(g)) * math.Sqrt(sumSquares(a))
}

// sumSquares returns Σ x[i,j]² (each row summed in T, in pieces of 2²²).
func sumSquares[T linalg.Float](x linalg.Matrix[T]) float64 {
	var s float64
	for i := range x.Rows {
		r := x.Row(i)
		for len(r) > 0 {
			q := r[:min(len(r), 1<<22)]
			s += float64(linalg.Dot(q, q))
			r = r[len(q):]
		}
	}
	return s
}

// relu and reluGrad call the asm kernels for T.
func relu[T linalg.Float](dst, x []T) {
	switch d := any(dst).(type) {
	case []float32:
		asm.ReLU32(d, any(x).([]float32))
	case []float64:
		asm.ReLU64(d, any(x).([]float64))
	}
}

func reluGrad[T linalg.Float](dst, g, x []T) {
	switch d := any(dst).(type) {
	case []float32:
		asm.ReLUGrad32(d, any(g).([]float32), any(x).([]float32))
	case []float64:
		asm.ReLUGrad64(d, any(g).([]float64), any(x).([]float64))
	}
}

// EmpiricalNTK returns the finite-width tangent kernel Θ̂(w; x1_i, x2_j) =
// ⟨∇_w f(x1_i), ∇_w f(x2_j)⟩ over all weights and biases, without forming
// a per-sample gradient: with Δ_l the rows ∂f(x)/∂z^{l+1} of layer l's
// output and A_l its input,
//
//	Θ̂ = Σ_l (σ_w²/fan_in_l)·(Δ_l Δ'_lᵀ) ⊙ (A_l A'_lᵀ) + σ_b²·Δ_l Δ'_lᵀ,
//
// two GEMMs and an elementwise product per layer. x2 may be x1 (the Gram).
func (net *Network[T]) EmpiricalNTK(x1, x2 linalg.Matrix[T]) (linalg.Matrix[T], error) {
	p1, err := net.Forward(x1)
	if err != nil {
		return linalg.Matrix[T]{}, err
	}
	p2 := p1
	same := x2.Rows == x1.Rows && x2.Cols == x1.Cols && (x1.Rows == 0 || &x1.Data[0] == &x2.Data[0])
	if !same {
		if p2, err = net.Forward(x2); err != nil {
			return linalg.Matrix[T]{}, err
		}
	}
	d1, d2 := net.deltas(p1), net.deltas(p2)
	if same {
		d2 = d1
	}
	n1, n2 := x1.Rows, x2.Rows
	k := linalg.New[T](n1, n2)
	dd, aa := linalg.New[T](n1, n2), linalg.New[T](n1, n2)
	sb2 := T(net.BiasStd * net.BiasStd)
	for l := 0; l <= net.Depth; l++ {
		if err := gram(d1[l], d2[l], dd, same); err != nil {
			return linalg.Matrix[T]{}, err
		}
		if err := gram(p1.A[l], p2.A[l], aa, same); err != nil {
			return linalg.Matrix[T]{}, err
		}
		s := net.scale(l)
		s2 := T(s * s)
		if !same {
			for i, v := range dd.Data {
				k.Data[i] += s2*v*aa.Data[i] + sb2*v
			}
			continue
		}
		for i := range n1 { // the lower triangle, j ≤ i
			kr, dr, ar := k.Data[i*n2:i*n2+i+1], dd.Data[i*n2:i*n2+i+1], aa.Data[i*n2:i*n2+i+1]
			for j, v := range dr {
				kr[j] += s2*v*ar[j] + sb2*v
			}
		}
	}
	if same {
		// One mirror of the sum rather than one per product.
		for i0 := 0; i0 < n1; i0 += gramRows {
			i1 := min(i0+gramRows, n1)
			for j0 := 0; j0 < i1; j0 += gramCols {
				linalg.MirrorLower(k, i0, i1, j0, min(j0+gramCols, i1))
			}
		}
	}
	return k, nil
}

// gram sets c = a·bᵀ; when a is b (same), only the lower triangle of the
// symmetric product, which is all EmpiricalNTK reads of it.
func gram[T linalg.Float](a, b, c linalg.Matrix[T], same bool) error {
	if same {
		return linalg.SyrkLower(1, a, 0, c)
	}
	return linalg.CrossGram(a, b, c)
}

// deltas returns Δ_l = ∂f/∂(output of layer l) for every sample, n×out_l,
// by back-propagating a cotangent of 1 per sample without summing over
// samples.
func (net *Network[T]) deltas(p *Pass[T]) []linalg.Matrix[T] {
	n := len(p.F)
	d := make([]linalg.Matrix[T], net.Depth+1)
	ones := linalg.New[T](n, 1)
	for i := range ones.Data {
		ones.Data[i] = 1
	}
	d[net.Depth] = ones
	for l := net.Depth; l >= 1; l-- {
		_, in := net.layerShape(l)
		ga := linalg.New[T](n, in)
		// Shapes are consistent by construction; an error here is a bug.
		if err := linalg.Gemm(linalg.NoTrans, linalg.NoTrans, T(net.scale(l)), d[l], net.W[l], 0, ga); err != nil {
			panic(err)
		}
		reluGrad(ga.Data, ga.Data, p.Z[l-1].Data)
		d[l-1] = ga
	}
	return d
}
