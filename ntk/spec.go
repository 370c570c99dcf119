package ntk

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
)

// Spec names an infinite-width kernel completely: which output (the NTK Θ
// or the NNGP Σ), the depth and the weight and bias standard deviations of
// the network it belongs to, and the element type its matrices are stored
// in. It is the one description of a kernel that commands, model files and
// experiments share; Gram, Cross and DiagOf compute it, FillGram, FillCross
// and FillGramRows write it into storage the caller owns, and Blocks
// computes it in row blocks under a memory cap. Its Kind picks the NTK or
// the NNGP output in this package alone.
//
// Depth 0 is the input kernel Σ¹ = σ_w²·x·x'/d + σ_b² (a network with no
// hidden layer is linear, and its NTK and NNGP coincide). Depth L ≥ 1 is the
// recursion of the package documentation with L hidden ReLU layers.
//
// Fixed, for the NTK, is the number F of leading weight layers that are not
// trained (Arora et al., ICLR 2020): the kernel Θ_F of training the last
// L+1−F layers only, 0 ≤ F ≤ L. F = 0 is the NTK and F = L the NNGP; the
// NNGP kind takes F = 0 only.
//
// Spec is written to JSON as {"name", "depth", "fixed", "sigma_w",
// "sigma_b", "type"}, "fixed" omitted when 0.
type Spec struct {
	Kind      Kind    // KindNTK or KindNNGP
	Depth     int     // hidden ReLU layers L ≥ 0
	Fixed     int     // leading layers not trained, 0 ≤ F ≤ L (KindNTK only)
	WeightStd float64 // σ_w > 0
	BiasStd   float64 // σ_b ≥ 0
	Float32   bool    // matrices are stored as float32 (the recursion is float64)
}

// Params returns the depth, standard deviations and fixed layers as Params
// (Depth ≥ 1).
func (s Spec) Params() Params {
	return Params{Depth: s.Depth, WeightStd: s.WeightStd, BiasStd: s.BiasStd, Fixed: s.Fixed}
}

// Validate reports whether s describes a kernel.
func (s Spec) Validate() error {
	if s.Kind != KindNTK && s.Kind != KindNNGP {
		return fmt.Errorf("ntk: kernel kind %d: want ntk or nngp", int(s.Kind))
	}
	if s.Kind == KindNNGP && s.Fixed != 0 {
		return fmt.Errorf("ntk: fixed layers %d with the nngp: fixed layers apply to the ntk (the nngp is the ntk with every layer fixed)", s.Fixed)
	}
	if err := checkFixed(s.Fixed, s.Depth); err != nil {
		return err
	}
	if s.Depth == 0 {
		p := s.Params()
		p.Depth = 1
		return p.Validate()
	}
	return s.Params().Validate()
}

// Type returns the element type of the kernel's matrices, "float32" or
// "float64".
func (s Spec) Type() string {
	if s.Float32 {
		return "float32"
	}
	return "float64"
}

// String returns a short description such as "ntk L=3 σ_w=1 σ_b=0
// float64", with " F=2" after the depth when layers are fixed.
func (s Spec) String() string {
	fixed := ""
	if s.Fixed != 0 {
		fixed = fmt.Sprintf(" F=%d", s.Fixed)
	}
	return fmt.Sprintf("%s L=%d%s σ_w=%g σ_b=%g %s", s.Kind, s.Depth, fixed, s.WeightStd, s.BiasStd, s.Type())
}

// specJSON is Spec's file form, the field names the model format has
// always used for its kernel.
type specJSON struct {
	Name   string  `json:"name"`
	Depth  int     `json:"depth"`
	Fixed  int     `json:"fixed,omitempty"`
	SigmaW float64 `json:"sigma_w"`
	SigmaB float64 `json:"sigma_b"`
	Type   string  `json:"type,omitempty"`
}

// MarshalJSON writes s in its file form.
func (s Spec) MarshalJSON() ([]byte, error) {
	return json.Marshal(specJSON{Name: s.Kind.String(), Depth: s.Depth, Fixed: s.Fixed, SigmaW: s.WeightStd, SigmaB: s.BiasStd, Type: s.Type()})
}

// UnmarshalJSON reads s from its file form and validates it. A missing
// type means float64, a missing fixed 0.
func (s *Spec) UnmarshalJSON(b []byte) error {
	var j specJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	kind, err := ParseKind(j.Name)
	if err != nil {
		return err
	}
	v := Spec{Kind: kind, Depth: j.Depth, Fixed: j.Fixed, WeightStd: j.SigmaW, BiasStd: j.SigmaB}
	switch j.Type {
	case "", "float64":
	case "float32":
		v.Float32 = true
	default:
		return fmt.Errorf("ntk: kernel type %q: want float32 or float64", j.Type)
	}
	if err := v.Validate(); err != nil {
		return err
	}
	*s = v
	return nil
}

// Gram returns the kernel matrix K(X, X) of s for the rows of x.
func Gram[T linalg.Float](ctx context.Context, s Spec, x linalg.Matrix[T], o Options) (linalg.Matrix[T], error) {
	if err := s.Validate(); err != nil {
		return linalg.Matrix[T]{}, err
	}
	k := linalg.New[T](x.Rows, x.Rows)
	return k, FillGram(ctx, s, x, o, k)
}

// Cross returns the kernel matrix K(Z, X) of s: one row per row of z.
func Cross[T linalg.Float](ctx context.Context, s Spec, z, x linalg.Matrix[T], o Options) (linalg.Matrix[T], error) {
	if err := s.Validate(); err != nil {
		return linalg.Matrix[T]{}, err
	}
	k := linalg.New[T](z.Rows, x.Rows)
	return k, FillCross(ctx, s, z, x, o, k)
}

// FillGram writes the kernel matrix K(X, X) of s into k (x.Rows×x.Rows),
// for a caller that owns the storage (a buffer reused between blocks, or
// the first half of a float64 matrix that is widened afterwards). Its
// values are those of Gram, bit for bit; errors as GramInto.
func FillGram[T linalg.Float](ctx context.Context, s Spec, x linalg.Matrix[T], o Options, k linalg.Matrix[T]) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Depth > 0 {
		kn, kg := slots(s.Kind, k)
		return GramInto(ctx, x, s.Params(), o, kn, kg)
	}
	if k.Rows != x.Rows || k.Cols != x.Rows {
		return fmt.Errorf("%w: ntk: the Gram of %d rows into a %d×%d matrix", linalg.ErrShape, x.Rows, k.Rows, k.Cols)
	}
	if err := checkFinite("X", x); err != nil {
		return err
	}
	if err := linalg.SyrkLowerContext(ctx, 1, x, 0, k); err != nil {
		return err
	}
	inputKernel(s, k, x.Cols, true)
	exactDiag(s, k, x, 0)
	linalg.MirrorLower(k, 0, k.Rows, 0, k.Cols)
	if o.Progress != nil {
		o.Progress(x.Rows, x.Rows)
	}
	return nil
}

// FillCross writes the kernel matrix K(Z, X) of s into k (z.Rows×x.Rows).
// Its values are those of Cross, bit for bit; errors as CrossInto.
func FillCross[T linalg.Float](ctx context.Context, s Spec, z, x linalg.Matrix[T], o Options, k linalg.Matrix[T]) error {
	return fillRows(ctx, s, z, x, k, o, -1)
}

// FillGramRows writes rows r0…r1−1 of the Gram K(X, X) of s into k, as
// GramRowsInto writes them (k is (r1−r0)×r1, row i−r0 holding columns
// 0…i of row i; r0 a multiple of linalg.GramStrip). For depth ≥ 1 the
// values are, bit for bit, those of the same rows of Gram; the input
// kernel (depth 0) is computed as a cross kernel of the rows with the exact
// diagonal, equal to Gram's to rounding.
func FillGramRows[T linalg.Float](ctx context.Context, s Spec, x linalg.Matrix[T], o Options, r0, r1 int, k linalg.Matrix[T]) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Depth > 0 {
		kn, kg := slots(s.Kind, k)
		return GramRowsInto(ctx, x, s.Params(), o, r0, r1, kn, kg)
	}
	if r0 < 0 || r0 > r1 || r1 > x.Rows || r0%linalg.GramStrip != 0 {
		return fmt.Errorf("%w: ntk: Gram rows [%d, %d) of %d (the start must be a multiple of %d)",
			linalg.ErrShape, r0, r1, x.Rows, linalg.GramStrip)
	}
	return fillRows(ctx, s, x.Slice(r0, r1, 0, x.Cols), x.Slice(0, r1, 0, x.Cols), k, o, r0)
}

// fillRows writes K(Z, X) of s into k; when diagOff ≥ 0, z is rows
// diagOff… of x and the pairs (x_i, x_i) get the exact diagonal.
func fillRows[T linalg.Float](ctx context.Context, s Spec, z, x, k linalg.Matrix[T], o Options, diagOff int) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Depth > 0 {
		kn, kg := slots(s.Kind, k)
		return crossInto(ctx, z, x, s.Params(), o, kn, kg, diagOff)
	}
	if z.Cols != x.Cols {
		return fmt.Errorf("%w: ntk: Z has %d features, X has %d", linalg.ErrShape, z.Cols, x.Cols)
	}
	for _, m := range []struct {
		name string
		m    linalg.Matrix[T]
	}{{"Z", z}, {"X", x}} {
		if err := checkFinite(m.name, m.m); err != nil {
			return err
		}
	}
	if err := linalg.CrossGramContext(ctx, z, x, k); err != nil {
		return err
	}
	inputKernel(s, k, x.Cols, false)
	if diagOff >= 0 {
		exactDiag(s, k, z, diagOff)
	}
	if o.Progress != nil {
		o.Progress(z.Rows, z.Rows)
	}
	return ctx.Err()
}

// exactDiag sets k(i, row0+i) to the input kernel of row i of z from its
// squared norm, as DiagOf gives it.
func exactDiag[T linalg.Float](s Spec, k, z linalg.Matrix[T], row0 int) {
	a, b := s.WeightStd*s.WeightStd/float64(z.Cols), s.BiasStd*s.BiasStd
	for i, sq := range rowSquares(z) {
		k.Set(i, row0+i, T(math.FMA(a, sq, b)))
	}
}

// DiagOf returns the diagonal K(x_i, x_i) of s for the rows of x.
func DiagOf[T linalg.Float](s Spec, x linalg.Matrix[T]) ([]T, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Depth == 0 {
		if err := checkFinite("X", x); err != nil {
			return nil, err
		}
		a, b := s.WeightStd*s.WeightStd/float64(x.Cols), s.BiasStd*s.BiasStd
		d := make([]T, x.Rows)
		for i, sq := range rowSquares(x) {
			d[i] = T(math.FMA(a, sq, b))
		}
		return d, nil
	}
	ntk, nngp, err := Diag(x, s.Params())
	if s.Kind == KindNNGP {
		return nngp, err
	}
	return ntk, err
}

// slots returns k as the output slot of kind and the zero Matrix for the
// other one, as GramInto and CrossInto take them: the one place where a
// Spec's kind picks the NTK or the NNGP output.
func slots[T linalg.Float](kind Kind, k linalg.Matrix[T]) (ntk, nngp linalg.Matrix[T]) {
	if kind == KindNNGP {
		return linalg.Matrix[T]{}, k
	}
	return k, linalg.Matrix[T]{}
}

// inputKernel maps the inner products in k to σ_w²·k/d + σ_b² (the lower
// triangle only when lower), rounding once from float64.
func inputKernel[T linalg.Float](s Spec, k linalg.Matrix[T], d int, lower bool) {
	a, b := s.WeightStd*s.WeightStd/float64(d), s.BiasStd*s.BiasStd
	for i := range k.Rows {
		row := k.Row(i)
		if lower {
			row = row[:i+1]
		}
		for j, v := range row {
			row[j] = T(math.FMA(a, float64(v), b))
		}
	}
}

// GramLadder computes, in one pass of the recursion, the Gram matrices of
// every depth 0…p.Depth of the kernels with p's standard deviations: ntk[h]
// and nngp[h] are Θ and Σ of the network with h hidden layers (ntk[0] and
// nngp[0] are the same matrix, the input kernel). With p.Fixed = F > 0,
// ntk[h] is Θ_F of depth h for h ≥ F and the zero Matrix for h < F (no
// network has more fixed layers than layers); nngp is unchanged. Each
// matrix equals, bit for bit, what Gram returns for that depth (and F).
// Model selection over the depth uses it: the pairs' inner products and
// each layer's arc-cosine step are computed once for all depths. With
// o.NTKOnly, nngp[h] is the zero Matrix for h ≥ 1, and for h = 0 too when
// F > 0.
func GramLadder(ctx context.Context, x linalg.Matrix[float64], p Params, o Options) (ntk, nngp []linalg.Matrix[float64], err error) {
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	if err := checkFinite("X", x); err != nil {
		return nil, nil, err
	}
	n, L, F := x.Rows, p.Depth, p.Fixed
	g := linalg.New[float64](n, n)
	if err := linalg.SyrkLowerContext(ctx, 1, x, 0, g); err != nil {
		return nil, nil, err
	}
	ntk, nngp = make([]linalg.Matrix[float64], L+1), make([]linalg.Matrix[float64], L+1)
	for h := range L + 1 {
		if !o.NTKOnly || (h == 0 && F == 0) {
			nngp[h] = linalg.New[float64](n, n)
		}
		switch {
		case h == 0 && F == 0:
			ntk[0] = nngp[0]
		case h >= F:
			ntk[h] = linalg.New[float64](n, n)
		}
	}
	pl := newPlan(p, x.Cols)
	sq := rowSquares(x)
	cols := pl.layerNorms(sq)
	diagN, diagS := ladderDiag(pl, sq)
	const rowsPerChunk = 16
	nc := (n + rowsPerChunk - 1) / rowsPerChunk
	err = pl.chunks(ctx, o, nc, n, func(c int, sc *scratch) int {
		bi := nc - 1 - c // the longest rows first
		i0, i1 := bi*rowsPerChunk, min(bi*rowsPerChunk+rowsPerChunk, n)
		for i := i0; i < i1; i++ {
			in := g.Row(i)[:i+1]
			sig, th := grow(&sc.sig, i+1), grow(&sc.th, i+1)
			var row0 []float64
			if nngp[0].Rows > 0 {
				row0 = nngp[0].Row(i)[:i+1]
				for j, v := range in {
					row0[j] = math.FMA(pl.a, v, pl.sb2)
				}
			}
			asm.ArcCosFirst64(sig, th, in, pl.a, pl.sb2, cols.norm[0][i], cols.inv[0][i],
				cols.norm[0][:i+1], cols.inv[0][:i+1], pl.sw2, pl.sb2)
			for h := 1; ; h++ {
				if h == F {
					copy(th, sig) // Θ_F starts at the first trained layer
				}
				if h >= F {
					copy(ntk[h].Row(i)[:i+1], th)
					ntk[h].Row(i)[i] = diagN[h][i]
				}
				if nngp[h].Rows > 0 {
					copy(nngp[h].Row(i)[:i+1], sig)
					nngp[h].Row(i)[i] = diagS[h][i]
				}
				if h == L {
					break
				}
				asm.ArcCosLayer64(sig, th, cols.norm[h][i], cols.inv[h][i], cols.norm[h][:i+1], cols.inv[h][:i+1], pl.sw2, pl.sb2)
			}
			if row0 != nil {
				row0[i] = diagS[0][i]
			}
		}
		return i1 - i0
	})
	if err != nil {
		return nil, nil, err
	}
	// Mirror the matrices, several at a time.
	var mirror []linalg.Matrix[float64]
	for h := range L + 1 {
		if nngp[h].Rows > 0 {
			mirror = append(mirror, nngp[h])
		}
		if h >= max(F, 1) {
			mirror = append(mirror, ntk[h])
		}
	}
	var wg sync.WaitGroup
	next := make(chan linalg.Matrix[float64], len(mirror))
	for _, m := range mirror {
		next <- m
	}
	close(next)
	for range min(o.threads(), len(mirror)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for m := range next {
				linalg.MirrorLower(m, 0, n, 0, n)
			}
		}()
	}
	wg.Wait()
	return ntk, nngp, nil
}

// ladderDiag returns the diagonals of Θ (Θ_F with F fixed layers, for the
// depths ≥ F) and Σ at every depth 0…L by the diagonal recursion, formed
// as layerNorms forms them.
func ladderDiag(pl *plan, sq []float64) (ntk, nngp [][]float64) {
	L := pl.p.Depth
	ntk, nngp = make([][]float64, L+1), make([][]float64, L+1)
	for h := range L + 1 {
		ntk[h], nngp[h] = make([]float64, len(sq)), make([]float64, len(sq))
	}
	for i, s := range sq {
		sig := math.FMA(pl.a, s, pl.sb2)
		th := sig
		ntk[0][i], nngp[0][i] = sig, sig
		for h := 1; h <= L; h++ {
			sig = pl.sw2*(sig/2) + pl.sb2
			th = sig + pl.sw2*(th/2)
			if h == pl.p.Fixed {
				th = sig
			}
			ntk[h][i], nngp[h][i] = th, sig
		}
	}
	return ntk, nngp
}
