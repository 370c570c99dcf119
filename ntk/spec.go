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
// the network it belongs to, the number of its leading layers that are not
// trained, and the element type its matrices are stored in. It is the one
// description of a kernel in this package and the one that commands, model
// files and experiments share: Gram, Cross and Diag compute it, FillGram,
// FillCross and FillGramRows write it into storage the caller owns, Blocks
// computes it in row blocks under a memory cap, and Prepare prepares it
// against a fixed set of points. The element type of the matrices is the
// type parameter of those functions; Float32 records it for a caller that
// stores or reads the kernel.
//
// Depth L is the recursion of the package documentation with L hidden ReLU
// layers, whose first layer is the input kernel Σ¹ = σ_w²·x·x'/d + σ_b²:
// depth 0 is that input kernel alone (a network with no hidden layer is
// linear, and its NTK and NNGP coincide).
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

// DefaultSpec returns the NTK of the paper's network with L hidden layers:
// σ_w = 1, σ_b = 0, every layer trained, float64.
func DefaultSpec(depth int) Spec { return Spec{Kind: KindNTK, Depth: depth, WeightStd: 1} }

// Validate reports whether s describes a kernel.
func (s Spec) Validate() error {
	switch {
	case s.Kind != KindNTK && s.Kind != KindNNGP:
		return fmt.Errorf("ntk: kernel kind %d: want ntk or nngp", int(s.Kind))
	case s.Depth < 0 || s.Depth > maxDepth:
		return fmt.Errorf("ntk: depth %d: want 0…%d hidden layers", s.Depth, maxDepth)
	case !(s.WeightStd > 0) || math.IsInf(s.WeightStd, 0):
		return fmt.Errorf("ntk: weight std %v: want a positive finite number", s.WeightStd)
	case !(s.BiasStd >= 0) || math.IsInf(s.BiasStd, 0):
		return fmt.Errorf("ntk: bias std %v: want a finite number ≥ 0", s.BiasStd)
	case s.Kind == KindNNGP && s.Fixed != 0:
		return fmt.Errorf("ntk: fixed layers %d with the nngp: fixed layers apply to the ntk (the nngp is the ntk with every layer fixed)", s.Fixed)
	}
	return checkFixed(s.Fixed, s.Depth)
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
// values are those of Gram, bit for bit, and exactly symmetric; with
// o.Lower only the lower triangle (diagonal included) is written. Its
// lower triangle is, bit for bit, the union of FillGramRows' bands. It
// returns an error for a bad s, bad shapes, an x without features or with
// a NaN or an infinity (naming the row), and ctx's error if it is
// cancelled (k is then incomplete).
func FillGram[T linalg.Float](ctx context.Context, s Spec, x linalg.Matrix[T], o Options, k linalg.Matrix[T]) error {
	if err := s.Validate(); err != nil {
		return err
	}
	kn, kg := slots(s.Kind, k)
	return gramBand(ctx, x, s, o, 0, x.Rows, kn, kg, !o.Lower)
}

// FillCross writes the kernel matrix K(Z, X) of s into k (z.Rows×x.Rows).
// Its values are those of Cross, bit for bit. Each row depends on its own
// row of z and on x only, and the inner products are formed in strips of
// linalg.GramStrip rows of z, so the rows computed from z[r0:r1] alone, r0
// a multiple of linalg.GramStrip, are bit for bit those computed from all
// of z. Errors as FillGram's.
func FillCross[T linalg.Float](ctx context.Context, s Spec, z, x linalg.Matrix[T], o Options, k linalg.Matrix[T]) error {
	return fillRows(ctx, s, z, x, k, o, -1)
}

// FillGramRows writes rows r0…r1−1 of the lower triangle of the Gram
// K(X, X) of s into k: k is (r1−r0)×r1, its row i−r0 holding row i of the
// Gram in columns 0…i; the elements above the diagonal are left as they
// were. Only rows 0…r1−1 of x are read. r0 must be a multiple of
// linalg.GramStrip. The values are, bit for bit, those of the same rows of
// Gram (for any thread count, on the same kernel set), so a Gram too large
// for one machine can be computed as bands by separate processes and
// assembled by mirroring their lower triangles. Errors as FillGram's.
func FillGramRows[T linalg.Float](ctx context.Context, s Spec, x linalg.Matrix[T], o Options, r0, r1 int, k linalg.Matrix[T]) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if r0 < 0 || r0 > r1 || r1 > x.Rows || r0%linalg.GramStrip != 0 {
		return fmt.Errorf("%w: ntk: Gram rows [%d, %d) of %d (the start must be a multiple of %d)",
			linalg.ErrShape, r0, r1, x.Rows, linalg.GramStrip)
	}
	kn, kg := slots(s.Kind, k)
	return gramBand(ctx, x, s, o, r0, r1, kn, kg, false)
}

// fillRows writes K(Z, X) of s into k; when diagOff ≥ 0, z is rows
// diagOff… of x and the pairs (x_i, x_i) get the exact diagonal.
func fillRows[T linalg.Float](ctx context.Context, s Spec, z, x, k linalg.Matrix[T], o Options, diagOff int) error {
	if err := s.Validate(); err != nil {
		return err
	}
	kn, kg := slots(s.Kind, k)
	return crossInto(ctx, z, x, s, o, kn, kg, diagOff)
}

// Diag returns the diagonal K(x_i, x_i) of s for the rows of x, by the
// diagonal recursion (the correlation is exactly 1): Σ^{h+1} = σ_w²Σ^h/2 +
// σ_b², Θ^{h+1} = Σ^{h+1} + σ_w²Θ^h/2. Gram's diagonal is these values.
func Diag[T linalg.Float](s Spec, x linalg.Matrix[T]) ([]T, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := checkFinite("X", x); err != nil {
		return nil, err
	}
	ln := newPlan(s, x.Cols).layerNorms(rowSquares(x))
	src := pick(s.Kind, ln.diagNTK, ln.diagNNGP)
	d := make([]T, x.Rows)
	for i, v := range src {
		d[i] = T(v)
	}
	return d, nil
}

// pick returns the one of ntk and nngp that kind selects: the one place
// where a Spec's kind picks the NTK or the NNGP (an output, a diagonal, a
// matrix of a Ladder).
func pick[V any](kind Kind, ntk, nngp V) V {
	if kind == KindNNGP {
		return nngp
	}
	return ntk
}

// slots returns k as the output slot of kind and the zero Matrix for the
// other one, as the recursion's functions take them.
func slots[T linalg.Float](kind Kind, k linalg.Matrix[T]) (ntk, nngp linalg.Matrix[T]) {
	var none linalg.Matrix[T]
	return pick(kind, k, none), pick(kind, none, k)
}

// Ladder is the Gram matrices of one σ_w, σ_b and number of fixed layers
// F at every depth 0…L, of the NTK (Θ_F from depth F on) and of the NNGP,
// as GramLadder computes them in one pass; Gram returns the one a Spec
// names. Model selection over the depth uses it: the pairs' inner products
// and each layer's arc-cosine step are computed once for all depths.
type Ladder struct {
	s         Spec                     // the deepest NTK: L, σ_w, σ_b and F
	ntk, nngp []linalg.Matrix[float64] // by depth; zero where not computed
}

// GramLadder computes, in one pass of the recursion, the Ladder of s: the
// Gram matrices of every kernel with s's standard deviations and a depth
// 0…s.Depth, the NTKs with s's fixed layers F (so of a depth ≥ F) and the
// NNGPs (s's kind and element type are not used). Each matrix equals, bit
// for bit, what Gram returns for its Spec. With o.NTKOnly the NNGPs of
// depths 1 and more are left out.
func GramLadder(ctx context.Context, x linalg.Matrix[float64], s Spec, o Options) (*Ladder, error) {
	ntk, nngp, err := gramLadder(ctx, x, s, o)
	if err != nil {
		return nil, err
	}
	return &Ladder{s: s, ntk: ntk, nngp: nngp}, nil
}

// Gram returns the Gram matrix of s, one of l's (the matrix itself, not a
// copy): s must have l's σ_w and σ_b, a depth up to l's and, for the NTK,
// l's fixed layers; the NNGPs of depth ≥ 1 are not in a ladder computed
// with Options.NTKOnly. s's element type is not used (the matrices are
// float64).
func (l *Ladder) Gram(s Spec) (linalg.Matrix[float64], error) {
	if err := s.Validate(); err != nil {
		return linalg.Matrix[float64]{}, err
	}
	if s.WeightStd != l.s.WeightStd || s.BiasStd != l.s.BiasStd || s.Depth > l.s.Depth || (s.Kind == KindNTK && s.Fixed != l.s.Fixed) {
		return linalg.Matrix[float64]{}, fmt.Errorf("ntk: %v is not in the ladder of depth %d, σ_w=%g, σ_b=%g, %d fixed layers", s, l.s.Depth, l.s.WeightStd, l.s.BiasStd, l.s.Fixed)
	}
	m := pick(s.Kind, l.ntk, l.nngp)[s.Depth]
	if m.Data == nil {
		return linalg.Matrix[float64]{}, fmt.Errorf("ntk: %v is not in the ladder (computed for the NTKs only)", s)
	}
	return m, nil
}

// gramLadder computes the matrices of the Ladder of s: ntk[h] and nngp[h]
// are Θ and Σ of the network with h hidden layers (ntk[0] and nngp[0] are
// the same matrix, the input kernel). With s.Fixed = F > 0, ntk[h] is Θ_F
// of depth h for h ≥ F and the zero Matrix for h < F (no network has more
// fixed layers than layers); nngp is unchanged. With o.NTKOnly, nngp[h] is
// the zero Matrix for h ≥ 1, and for h = 0 too when F > 0.
func gramLadder(ctx context.Context, x linalg.Matrix[float64], s Spec, o Options) (ntk, nngp []linalg.Matrix[float64], err error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	if err := checkFinite("X", x); err != nil {
		return nil, nil, err
	}
	n, L, F := x.Rows, s.Depth, s.Fixed
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
	pl := newPlan(s, x.Cols)
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
			if nngp[0].Rows > 0 { // the first layer, the input kernel
				row0 := nngp[0].Row(i)[:i+1]
				for j, v := range in {
					row0[j] = math.FMA(pl.a, v, pl.sb2)
				}
				row0[i] = diagS[0][i]
			}
			if L == 0 {
				continue
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
	L := pl.s.Depth
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
			if h == pl.s.Fixed {
				th = sig
			}
			ntk[h][i], nngp[h][i] = th, sig
		}
	}
	return ntk, nngp
}
