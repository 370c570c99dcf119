package ntk

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
)

// maxDepth bounds Spec.Depth: beyond it the kernel has long since
// converged to its fixed point and a typo is more likely than intent.
const maxDepth = 1000

// checkFixed checks a number of fixed layers against the depth.
func checkFixed(fixed, depth int) error {
	if fixed < 0 || fixed > depth {
		return fmt.Errorf("ntk: fixed layers %d: want 0…%d (at most the depth)", fixed, depth)
	}
	return nil
}

// Kind selects a kernel.
type Kind int

const (
	KindNTK  Kind = iota // the neural tangent kernel Θ
	KindNNGP             // the NNGP (conjugate) kernel Σ
)

// String returns "ntk" or "nngp".
func (k Kind) String() string {
	switch k {
	case KindNTK:
		return "ntk"
	case KindNNGP:
		return "nngp"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind parses "ntk" or "nngp".
func ParseKind(s string) (Kind, error) {
	switch s {
	case "ntk":
		return KindNTK, nil
	case "nngp":
		return KindNNGP, nil
	}
	return 0, fmt.Errorf("ntk: kind %q: want ntk or nngp", s)
}

// Options control how the Gram functions run. The zero value uses
// linalg.Threads() workers and reports no progress.
type Options struct {
	Threads int // workers for the elementwise recursion; 0 means linalg.Threads()
	// Progress, if not nil, is called with the number of rows finished and
	// the total, from one goroutine at a time, at most about 100 times.
	Progress func(done, total int)
	// Lower, for FillGram (and Gram) only, writes the lower triangle of
	// the kernel (diagonal included) and leaves the strict upper triangle
	// as it was, skipping the mirror: for consumers that read one triangle
	// only, such as linalg.Cholesky and svm.KRRInPlace. The lower triangle
	// is the same, bit for bit, as with the mirror.
	Lower bool
	// NTKOnly, for GramLadder only, leaves out the NNGP matrices of depths
	// 1 and more: for a caller that selects among NTKs only, it saves
	// their memory and their mirroring.
	NTKOnly bool
}

func (o Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return linalg.Threads()
}

// errNoOutput is returned when neither output is given.
var errNoOutput = errors.New("ntk: no output matrix given (want the NTK, the NNGP or both)")

// Tile shape of the Gram: a gramRows×gramCols tile (256 KiB of float64)
// stays in L2 for its mirror, whose writes are then runs of gramRows
// elements; tall tiles mirror faster than wide ones (docs/performance.md,
// "Packing").
const (
	gramRows = 256
	gramCols = 128
)

// seg returns row i, columns [j0, j1), of m, or nil if m is not given.
func seg[T linalg.Float](m linalg.Matrix[T], i, j0, j1 int) []T {
	if m.Data == nil {
		return nil
	}
	return m.Row(i)[j0:j1]
}

// crossInto writes Θ(Z, X) of s's depth, σ's and fixed layers into ntk and
// Σ(Z, X) into nngp, each z.Rows × x.Rows; either may be the zero Matrix
// to skip it (at least one must be given). When diagOff ≥ 0, z is rows
// diagOff… of x and the pairs (x_i, x_i) get the exact diagonal values, as
// gramBand gives them. Each row depends on its own row of z and on x only,
// and the inner products are formed in strips of linalg.GramStrip rows of
// z, so the rows computed from z[r0:r1] alone, r0 a multiple of
// linalg.GramStrip, are bit for bit those computed from all of z. It
// returns an error for bad shapes or a non-finite input (naming the row),
// and ctx's error if it is cancelled (the outputs are then incomplete).
func crossInto[T linalg.Float](ctx context.Context, z, x linalg.Matrix[T], s Spec, o Options, ntk, nngp linalg.Matrix[T], diagOff int) error {
	if z.Cols != x.Cols {
		return fmt.Errorf("%w: ntk: Z has %d features, X has %d", linalg.ErrShape, z.Cols, x.Cols)
	}
	if err := checkFinite("Z", z); err != nil {
		return err
	}
	outs, err := checkOutputs(s, x, z.Rows, x.Rows, ntk, nngp)
	if err != nil {
		return err
	}
	pl := newPlan(s, x.Cols)
	cols := pl.layerNorms(rowSquares(x))
	rows := pl.layerNorms(rowSquares(z))
	g := outs[0]
	if err := linalg.CrossGramContext(ctx, z, x, g); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("ntk: cross Gram product: %w", err)
	}
	const chunk = 8
	m, n := z.Rows, x.Rows
	return pl.chunks(ctx, o, (m+chunk-1)/chunk, m, func(c int, sc *scratch) int {
		i0, i1 := c*chunk, min(c*chunk+chunk, m)
		for i := i0; i < i1; i++ {
			for j0 := 0; j0 < n; j0 += crossCols {
				j1 := min(j0+crossCols, n)
				diag := -1
				if d := diagOff + i; diagOff >= 0 && d >= j0 && d < j1 {
					diag = d - j0
				}
				processSeg(pl, g.Row(i)[j0:j1], seg(ntk, i, j0, j1), seg(nngp, i, j0, j1), rows, cols, i, j0, diag, sc)
			}
		}
		return i1 - i0
	})
}

// crossCols is the segment length of crossInto.
const crossCols = 1024

// checkOutputs checks s, x and the outputs (either may be the zero Matrix,
// not both), each to be m×n, and returns the ones given.
func checkOutputs[T linalg.Float](s Spec, x linalg.Matrix[T], m, n int, ntk, nngp linalg.Matrix[T]) ([]linalg.Matrix[T], error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if x.Cols == 0 {
		return nil, fmt.Errorf("%w: ntk: inputs have no features", linalg.ErrShape)
	}
	if err := checkFinite("X", x); err != nil {
		return nil, err
	}
	var outs []linalg.Matrix[T]
	for _, o := range []struct {
		name string
		m    linalg.Matrix[T]
	}{{"NTK", ntk}, {"NNGP", nngp}} {
		if o.m.Data == nil && o.m.Rows == 0 && o.m.Cols == 0 {
			continue
		}
		if o.m.Rows != m || o.m.Cols != n {
			return nil, fmt.Errorf("%w: ntk: %s output is %d×%d, want %d×%d", linalg.ErrShape, o.name, o.m.Rows, o.m.Cols, m, n)
		}
		outs = append(outs, o.m)
	}
	if len(outs) == 0 {
		return nil, errNoOutput
	}
	if len(outs) == 2 && overlaps(ntk.Data, nngp.Data) {
		return nil, errors.New("ntk: the NTK and NNGP outputs share storage")
	}
	for _, o := range outs {
		if overlaps(o.Data, x.Data) {
			return nil, errors.New("ntk: an output shares storage with the inputs")
		}
	}
	return outs, nil
}

// overlaps reports whether a and b may share elements.
func overlaps[T linalg.Float](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	a0, a1 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&a[len(a)-1]))
	b0, b1 := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&b[len(b)-1]))
	return a0 <= b1 && b0 <= a1
}

// checkFinite returns an error naming the first row of x with a NaN or an
// infinity.
func checkFinite[T linalg.Float](name string, x linalg.Matrix[T]) error {
	if i, j, v, bad := firstNonFinite(x); bad {
		return fmt.Errorf("ntk: %s row %d (column %d) holds %v; inputs must be finite", name, i, j, v)
	}
	return nil
}

// ErrOverflow is wrapped by CheckKernel's error: a kernel value is NaN or
// infinite because the inputs or σ_w, σ_b are too large.
var ErrOverflow = errors.New("ntk: the kernel overflows")

// CheckKernel returns an error wrapping ErrOverflow that names the first
// NaN or infinite entry of k, a block of a kernel starting at its row
// row0; nil if every entry is finite. Writers of kernels call it before
// writing a block.
func CheckKernel[T linalg.Float](k linalg.Matrix[T], row0 int) error {
	if i, j, v, bad := firstNonFinite(k); bad {
		return fmt.Errorf("%w: K[%d, %d] is %v (inputs, σ_w or σ_b too large: rescale them)", ErrOverflow, row0+i, j, v)
	}
	return nil
}

// firstNonFinite returns the position and value of the first NaN or
// infinity of x, and whether there is one.
func firstNonFinite[T linalg.Float](x linalg.Matrix[T]) (int, int, float64, bool) {
	for i := range x.Rows {
		// v·0 is ±0 for a finite v and NaN otherwise, so a row's sum of
		// them is zero unless the row holds a NaN or an infinity: four
		// independent sums, without a branch per element, and the
		// element-wise search only for such a row.
		r := x.Row(i)
		var s0, s1, s2, s3 T
		j := 0
		for ; j+4 <= len(r); j += 4 {
			s0 += r[j] * 0
			s1 += r[j+1] * 0
			s2 += r[j+2] * 0
			s3 += r[j+3] * 0
		}
		for ; j < len(r); j++ {
			s0 += r[j] * 0
		}
		if s0+s1+s2+s3 == 0 {
			continue
		}
		for j, v := range r {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return i, j, f, true
			}
		}
	}
	return 0, 0, 0, false
}

// rowSquares returns ‖x_i‖² for every row, summed in float64.
func rowSquares[T linalg.Float](x linalg.Matrix[T]) []float64 {
	s := make([]float64, x.Rows)
	for i := range x.Rows {
		var a0, a1, a2, a3 float64
		r := x.Row(i)
		j := 0
		for ; j+4 <= len(r); j += 4 {
			v0, v1, v2, v3 := float64(r[j]), float64(r[j+1]), float64(r[j+2]), float64(r[j+3])
			a0 += v0 * v0
			a1 += v1 * v1
			a2 += v2 * v2
			a3 += v3 * v3
		}
		for ; j < len(r); j++ {
			v := float64(r[j])
			a0 += v * v
		}
		s[i] = (a0 + a1) + (a2 + a3)
	}
	return s
}

// plan holds the constants of one kernel computation.
type plan struct {
	s        Spec
	a        float64 // σ_w²/d: the first Dense layer applied to x·x'
	sw2, sb2 float64
}

func newPlan(s Spec, d int) *plan {
	sw2 := s.WeightStd * s.WeightStd
	return &plan{s: s, a: sw2 / float64(d), sw2: sw2, sb2: s.BiasStd * s.BiasStd}
}

// layerNorms are, for a set of inputs, √Σ^h(x, x) and its reciprocal (0 for
// a zero norm) at each ReLU layer h = 1…L, and the final diagonals (at
// depth 0, the input kernel's).
type layerNorms struct {
	norm, inv         [][]float64 // [h-1][i]
	diagNTK, diagNNGP []float64
}

// tinyNorm: norms below it count as zero (their reciprocal would overflow).
const tinyNorm = 1e-150

func (pl *plan) layerNorms(sq []float64) *layerNorms {
	L := pl.s.Depth
	ln := &layerNorms{norm: make([][]float64, L), inv: make([][]float64, L),
		diagNTK: make([]float64, len(sq)), diagNNGP: make([]float64, len(sq))}
	for h := range L {
		ln.norm[h], ln.inv[h] = make([]float64, len(sq)), make([]float64, len(sq))
	}
	for i, s := range sq {
		sig := math.FMA(pl.a, s, pl.sb2) // Σ¹(x, x), formed as ArcCosFirst64 forms Σ¹(x, x')
		th := sig
		for h := range L {
			nrm := math.Sqrt(sig)
			ln.norm[h][i] = nrm
			if nrm >= tinyNorm {
				ln.inv[h][i] = 1 / nrm
			}
			sig = pl.sw2*(sig/2) + pl.sb2
			th = sig + pl.sw2*(th/2)
			if h+1 == pl.s.Fixed {
				th = sig // Θ_F starts at the first trained layer
			}
		}
		ln.diagNTK[i], ln.diagNNGP[i] = th, sig
	}
	return ln
}

// scratch is one worker's float64 rows.
type scratch struct{ sig, th, in []float64 }

// chunks runs fn for chunks 0…nc−1 on the workers, taken in order,
// checking ctx between chunks; fn returns the rows it finished, out of
// total, for the progress report.
func (pl *plan) chunks(ctx context.Context, o Options, nc, total int, fn func(c int, sc *scratch) int) error {
	var next, done atomic.Int64
	var mu sync.Mutex
	reported := 0
	var wg sync.WaitGroup
	for range max(1, min(o.threads(), nc)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := &scratch{}
			for ctx.Err() == nil {
				c := int(next.Add(1)) - 1
				if c >= nc {
					return
				}
				d := int(done.Add(int64(fn(c, sc))))
				if o.Progress != nil {
					mu.Lock()
					if d > reported && (d == total || d-reported >= max(total/100, 1)) {
						reported = d
						o.Progress(d, total)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// processSeg applies the whole recursion to a segment of one row of pairs:
// g holds x_i·x_j for the columns j = j0… (ri indexes the row norms, j0
// the column norms), and the results go to ntk and nngp (either may be
// nil, and either may be g itself). diag ≥ 0 is the position of the pair
// (x_i, x_i) in the segment, which gets the exact diagonal values.
//
// The recursion's first layer is the input kernel Σ¹ = Θ¹ = σ_w²·x·x'/d + σ_b²:
// at depth 0 it is the result, otherwise ArcCosFirst64 forms it inside the
// first arc-cosine step, and each further hidden layer is one
// ArcCosLayer64 step.
func processSeg[T linalg.Float](pl *plan, g, ntk, nngp []T, rows, cols *layerNorms, ri, j0, diag int, sc *scratch) {
	n := len(g)
	if n == 0 {
		return
	}
	var sig, th, in []float64
	if g64, ok := any(g).([]float64); ok {
		in = g64
		sig, _ = any(nngp).([]float64)
		th, _ = any(ntk).([]float64)
	} else {
		in = grow(&sc.in, n)[:len(g)] // the same length: no bounds checks
		for j, v := range g {
			in[j] = float64(v)
		}
	}
	if sig == nil {
		sig = grow(&sc.sig, n)
	}
	if th == nil {
		th = grow(&sc.th, n)
	}
	cn, ci := cols.norm, cols.inv
	L, F := pl.s.Depth, pl.s.Fixed
	if L == 0 {
		sig := sig[:n]
		for j, v := range in {
			sig[j] = math.FMA(pl.a, v, pl.sb2)
		}
		copy(th, sig)
	} else {
		asm.ArcCosFirst64(sig, th, in, pl.a, pl.sb2, rows.norm[0][ri], rows.inv[0][ri],
			cn[0][j0:j0+n], ci[0][j0:j0+n], pl.sw2, pl.sb2)
	}
	if F == 1 {
		copy(th, sig)
	}
	for h := 1; h < L; h++ {
		asm.ArcCosLayer64(sig, th, rows.norm[h][ri], rows.inv[h][ri], cn[h][j0:j0+n], ci[h][j0:j0+n], pl.sw2, pl.sb2)
		if h+1 == F {
			copy(th, sig) // Θ_F starts at the first trained layer
		}
	}
	if diag >= 0 {
		sig[diag], th[diag] = rows.diagNNGP[ri], rows.diagNTK[ri]
	}
	if _, ok := any(g).([]float64); !ok {
		if ntk != nil {
			th := th[:len(ntk)]
			for j := range ntk {
				ntk[j] = T(th[j])
			}
		}
		if nngp != nil {
			sig := sig[:len(nngp)]
			for j := range nngp {
				nngp[j] = T(sig[j])
			}
		}
	}
}

// grow returns (*buf)[:n], reallocating if needed.
func grow(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}
