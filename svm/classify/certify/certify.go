// Package certify computes robustness certificates for the multi-class NTK
// machines of package classify (paper §4.2, Tables 2 and 3, past two
// classes): for each point, the largest radius of an ℓ∞ or ℓ2 ball around
// it, in the units of the data the classifier is given, on which its
// predicted class provably does not change.
//
// One-vs-rest (and multi-output KRR) predicts the class c of the largest
// decision f_c. It keeps predicting c on a ball where every margin
// f_c − f_j, j ≠ c, stays positive. Each margin is itself a kernel machine
// on the union of the two machines' support vectors, with weights α_c − α_j
// and bias b_c − b_j, so the NTK interval bounds of package ibp apply to it
// directly; bounding f_c and f_j separately would add both machines'
// slack. The k − 1 margins are certified together as their minimum
// (ibp.Min).
//
// One-vs-one voting predicts the class with the most votes, each pair
// machine g_{ab} voting for a when g_{ab} > 0. When the predicted class c
// wins all its k − 1 pairs, no other class can reach k − 1 votes, so c
// stays the prediction on a ball where each of those pair machines, signed
// so that c's side is positive, stays positive: the radius is the one of
// their minimum. When c does not win them all (a tie in votes broken by
// class order, or a cycle where no class wins all its pairs), some pair's
// decision can change the prediction at any radius: the radius is 0, and
// Result.Reason says why.
//
// The prediction certified is the classifier's PredictIndex (votes, or the
// largest decision), not the rule of its probabilities (PredictProbable).
//
// A radius is certified when the minimum's lower bound over the ball is at
// least 0 (ibp's convention; a point where a margin is exactly 0 lies on a
// decision boundary). The search is ibp's with SearchOptions.Grow, since a
// user's features have no fixed range. The balls are in the units of the
// data, before the model's standardisation, which the bounds carry through
// (ibp.Preprocess). Verify checks every certified ball by sampling it and
// asking the classifier itself for its prediction there.
package certify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ntksvm/ntksvm/ibp"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/classify"
)

// Options configure Certify. The zero value certifies ℓ∞ and ℓ2 balls with
// the paper's relaxation and ibp's kernel search with Grow.
type Options struct {
	Norms  []ibp.Norm        // the balls, one radius each (nil: ℓ∞ and ℓ2)
	Search ibp.SearchOptions // zero: ibp.KernelSearch() with Grow
	Tight  bool              // ibp.KernelOptions.Tight
	Clip   bool              // ibp.KernelOptions.Clip: balls within [0, 1]^d of the data's units
	// Verify is the number of points of every certified ball at which the
	// classifier's prediction is checked (0: none).
	Verify  int
	Seed    uint64 // of Verify's samples
	Threads int    // goroutines; 0 means GOMAXPROCS
	// MaxBytes bounds the products of points and support vectors that the
	// bounds keep, (k − 1)·8 bytes per point and support vector: points
	// are certified in blocks that fit (0: 256 MiB).
	MaxBytes int64
	// Progress, if not nil, is called with the number of certificates
	// done (one per point and norm) and their total.
	Progress func(done, total int)
}

func (o *Options) norms() []ibp.Norm {
	if o.Norms == nil {
		return []ibp.Norm{ibp.Linf, ibp.L2}
	}
	return o.Norms
}

func (o *Options) search() ibp.SearchOptions {
	if o.Search == (ibp.SearchOptions{}) {
		s := ibp.KernelSearch()
		s.Grow = true
		return s
	}
	return o.Search
}

// Result is the certificate of one point.
type Result struct {
	Index int // the point, a row of x
	Class int // the predicted class, an index into the classifier's Classes
	// Margin is the smallest margin at the point itself (f_c − f_j, or the
	// signed pair decisions), NaN when no margin decides (Reason).
	Margin float64
	Radius []float64 // the certified radius in each norm of Options.Norms
	Reason string    // why the radius is 0, when it is
	Iters  int       // search steps, all norms
	Bounds int       // bounds evaluated, all norms
}

// Violation is a sampled point of a certified ball where the certificate
// fails (any is a bug).
type Violation struct {
	Index  int // the point
	Norm   ibp.Norm
	Radius float64 // its certified radius
	Sample int
	Class  int          // the classifier's prediction at the sample
	Margin float64      // the smallest margin there
	Bound  ibp.Interval // the certified interval of the smallest margin
}

// ErrKernel is wrapped by the error for a model whose kernel the bounds do
// not cover.
var ErrKernel = errors.New("certify: kernel not covered by the bounds")

// Certify certifies the points idx of x (nil: every row) for the
// classifier c. Results are in the order of idx; violations come from
// Options.Verify. It returns an error, before any work, when x has another
// number of features than c was trained on or the kernel is not an NTK of
// depth ≥ 1 trained in every layer (ErrKernel), and ctx's error if
// cancelled.
func Certify(ctx context.Context, c *classify.Classifier, x linalg.Matrix[float64], idx []int, o Options) ([]Result, []Violation, error) {
	m, err := c.Model()
	if err != nil {
		return nil, nil, err
	}
	mc, err := newMachines(m)
	if err != nil {
		return nil, nil, err
	}
	if x.Cols != m.Train.D {
		return nil, nil, fmt.Errorf("certify: the points have %d features, the model was trained on %d", x.Cols, m.Train.D)
	}
	if err := o.search().Validate(); err != nil {
		return nil, nil, err
	}
	if o.Verify < 0 {
		return nil, nil, fmt.Errorf("certify: %d samples per ball: want ≥ 0", o.Verify)
	}
	if idx == nil {
		idx = make([]int, x.Rows)
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) == 0 {
		return nil, nil, ibp.ErrNoPoints
	}
	for _, i := range idx {
		if i < 0 || i >= x.Rows {
			return nil, nil, fmt.Errorf("certify: point %d out of range [0, %d)", i, x.Rows)
		}
	}
	r := &run{c: c, mc: mc, x: x, o: o, norms: o.norms(), search: o.search(),
		rng: rand.New(rand.NewPCG(o.Seed, 0xce27f)), total: len(idx) * len(o.norms())}
	block := r.blockSize()
	out := make([]Result, 0, len(idx))
	for b0 := 0; b0 < len(idx); b0 += block {
		rs, err := r.block(ctx, idx[b0:min(len(idx), b0+block)])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, rs...)
	}
	return out, r.bad, nil
}

// machines are the model's binary machines as ibp sees them.
type machines struct {
	m       *svm.Model
	ovo     bool
	classes int
	kernel  ntk.Spec
	input   *ibp.Preprocess
	nu      int
	// one-vs-rest: the output of each class's machine
	of []int
}

// newMachines checks that the bounds cover m's kernel and gathers what
// the margins need.
func newMachines(m *svm.Model) (*machines, error) {
	k := m.Kernel
	if k.Kind != ntk.KindNTK || k.Fixed != 0 || k.Depth < 1 {
		return nil, fmt.Errorf("%w: %v: the bounds are for the NTK of depth ≥ 1 trained in every layer (not the NNGP, fixed layers or depth 0)", ErrKernel, k)
	}
	mc := &machines{m: m, ovo: m.Scheme != "ovr", classes: len(m.Classes), kernel: k, nu: len(m.Outputs)}
	if s := m.Scaling; s != nil {
		mc.input = &ibp.Preprocess{Mean: s.Mean, Scale: s.Scale, UnitNorm: s.UnitNorm}
	}
	if !mc.ovo {
		mc.of = make([]int, mc.classes)
		for c := range mc.of {
			mc.of[c] = -1
		}
		for u, out := range m.Outputs {
			if out.Neg >= 0 || mc.of[out.Pos] >= 0 {
				return nil, fmt.Errorf("%w: one-vs-rest output %d is %+v", svm.ErrModel, u, out)
			}
			mc.of[out.Pos] = u
		}
		if i := slices.Index(mc.of, -1); i >= 0 {
			return nil, fmt.Errorf("%w: one-vs-rest has no output for class %q", svm.ErrModel, m.Classes[i])
		}
	}
	return mc, nil
}

// margins returns the kernel machines whose minimum is positive exactly
// where class a keeps the prediction: f_a − f_j for one-vs-rest, the pair
// machines involving a, signed for a, for one-vs-one. rival[k] is the
// other class of machine k.
func (mc *machines) margins(a int) (kms []ibp.KernelMachine, rival []int) {
	m := mc.m
	n := m.Train.N
	col := func(u int, sign float64, dst []float64) {
		for i := range n {
			dst[i] += sign * m.Alpha[i*mc.nu+u]
		}
	}
	if !mc.ovo {
		for j := range mc.classes {
			if j == a {
				continue
			}
			alpha := make([]float64, n)
			col(mc.of[a], 1, alpha)
			col(mc.of[j], -1, alpha)
			kms = append(kms, ibp.KernelMachine{X: m.X, Alpha: alpha, Bias: m.Outputs[mc.of[a]].Bias - m.Outputs[mc.of[j]].Bias, Kernel: mc.kernel})
			rival = append(rival, j)
		}
		return kms, rival
	}
	for u, out := range m.Outputs {
		sign, j := 1.0, out.Neg
		switch a {
		case out.Pos:
		case out.Neg:
			sign, j = -1, out.Pos
		default:
			continue
		}
		alpha := make([]float64, n)
		col(u, sign, alpha)
		kms = append(kms, ibp.KernelMachine{X: m.X, Alpha: alpha, Bias: sign * out.Bias, Kernel: mc.kernel})
		rival = append(rival, j)
	}
	return kms, rival
}

// run is the state of one Certify call.
type run struct {
	c      *classify.Classifier
	mc     *machines
	x      linalg.Matrix[float64]
	o      Options
	norms  []ibp.Norm
	search ibp.SearchOptions
	rng    *rand.Rand
	done   int
	total  int
	bad    []Violation
}

// blockSize is the number of points whose bounds' products fit MaxBytes.
func (r *run) blockSize() int {
	mb := r.o.MaxBytes
	if mb <= 0 {
		mb = 256 << 20
	}
	per := int64(max(r.mc.classes-1, 1)) * int64(max(r.mc.m.Train.N, 1)) * 8
	return int(max(1, min(mb/per, 1<<30)))
}

// gather returns the rows idx of x.
func gather(x linalg.Matrix[float64], idx []int) linalg.Matrix[float64] {
	z := linalg.New[float64](len(idx), x.Cols)
	for k, i := range idx {
		copy(z.Row(k), x.Row(i))
	}
	return z
}

// block certifies the points idx: predictions, the vote check of
// one-vs-one, then one minimum of margins per predicted class.
func (r *run) block(ctx context.Context, idx []int) ([]Result, error) {
	z := gather(r.x, idx)
	pred, err := r.c.PredictIndex(ctx, z)
	if err != nil {
		return nil, err
	}
	rs := make([]Result, len(idx))
	byClass := make([][]int, r.mc.classes) // positions in idx
	for k, i := range idx {
		rs[k] = Result{Index: i, Class: pred[k], Margin: math.NaN(), Radius: make([]float64, len(r.norms))}
	}
	if r.mc.ovo {
		dec, err := r.c.Decision(ctx, z)
		if err != nil {
			return nil, err
		}
		for k := range rs {
			rs[k].Reason = r.voteReason(dec.Row(k), pred[k])
		}
	}
	for k := range rs {
		if rs[k].Reason == "" {
			byClass[pred[k]] = append(byClass[pred[k]], k)
		} else {
			r.advance(len(r.norms))
		}
	}
	for a, pos := range byClass {
		if len(pos) == 0 {
			continue
		}
		if err := r.class(ctx, a, pos, idx, z, rs); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// class certifies the points pos (positions in idx and rows of z)
// predicted a.
func (r *run) class(ctx context.Context, a int, pos, idx []int, z linalg.Matrix[float64], rs []Result) error {
	za := gather(z, pos)
	kms, rival := r.mc.margins(a)
	parts := make([]ibp.Certifier, len(kms))
	for k, km := range kms {
		kc, err := ibp.NewKernel(ctx, km, za, ibp.KernelOptions{Tight: r.o.Tight, Clip: r.o.Clip, Input: r.mc.input})
		if err != nil {
			return err
		}
		parts[k] = kc
	}
	mn, err := ibp.NewMin(parts...)
	if err != nil {
		return err
	}
	var live []int // the points with a positive margin, indices into za
	for t, p := range pos {
		res := &rs[p]
		res.Margin = mn.Output(t)
		if res.Margin > 0 {
			live = append(live, t)
			continue
		}
		// An exact tie, or the bounds' kernel rounding otherwise than the
		// classifier's: the nearest rival is named.
		near := 0
		for k, part := range parts {
			if part.Output(t) < parts[near].Output(t) {
				near = k
			}
		}
		res.Reason = fmt.Sprintf("no margin over class %s at the point itself (%.3g)", r.c.Classes[rival[near]], res.Margin)
		r.advance(len(r.norms))
	}
	if len(live) == 0 {
		return nil
	}
	for ni, norm := range r.norms {
		base := r.done
		cs, err := ibp.CertifyAll(ctx, mn, live, norm, r.search, r.o.Threads, func(done, _ int) {
			if r.o.Progress != nil {
				r.o.Progress(base+done, r.total)
			}
		})
		if err != nil {
			return err
		}
		r.done = base + len(live)
		for k, cr := range cs {
			res := &rs[pos[live[k]]]
			res.Radius[ni] = cr.Radius
			res.Iters += cr.Iters
			res.Bounds += cr.Bounds
		}
		if r.o.Verify > 0 {
			if err := r.verify(ctx, a, mn, za, cs, norm, func(t int) int { return idx[pos[t]] }); err != nil {
				return err
			}
		}
	}
	for _, t := range live {
		if res := &rs[pos[t]]; slices.Max(res.Radius) == 0 {
			res.Reason = "no radius certified"
		}
	}
	return nil
}

// advance counts n certificates that needed no search.
func (r *run) advance(n int) {
	r.done += n
	if r.o.Progress != nil {
		r.o.Progress(r.done, r.total)
	}
}

// voteReason returns why one-vs-one voting with decisions dec does not
// let class c win all its pairs, or "" when it does.
func (r *run) voteReason(dec []float64, c int) string {
	k := r.mc.classes
	votes := make([]int, k)
	for u, out := range r.mc.m.Outputs {
		if dec[u] > 0 {
			votes[out.Pos]++
		} else {
			votes[out.Neg]++
		}
	}
	if votes[c] == k-1 {
		return ""
	}
	var tied []string
	for j, v := range votes {
		if j != c && v == votes[c] {
			tied = append(tied, r.c.Classes[j])
		}
	}
	if len(tied) > 0 {
		return fmt.Sprintf("vote tie: %s and %s win %d of %d pairs each (class order breaks it)", r.c.Classes[c], strings.Join(tied, ", "), votes[c], k-1)
	}
	return fmt.Sprintf("vote cycle: no class wins all its pairs (%s wins %d of %d)", r.c.Classes[c], votes[c], k-1)
}

// verify samples every certified ball of cs (points of za, predicted a)
// and checks that the classifier still predicts a there and that the
// smallest margin, from the classifier's own decisions, has the sign and
// lies in the bound. row maps a point of za to its row of x.
func (r *run) verify(ctx context.Context, a int, mn *ibp.Min, za linalg.Matrix[float64], cs []ibp.Result, norm ibp.Norm, row func(int) int) error {
	const batch = 1024
	k := r.o.Verify
	var pending []ibp.Result
	var rows []float64
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		s, err := linalg.FromSlice(len(rows)/za.Cols, za.Cols, rows)
		if err != nil {
			return err
		}
		pred, err := r.c.PredictIndex(ctx, s)
		if err != nil {
			return err
		}
		dec, err := r.c.Decision(ctx, s)
		if err != nil {
			return err
		}
		for bi, cr := range pending {
			iv := mn.Bound(cr.Index, ibp.Ball{Norm: norm, Radius: cr.Radius})
			for t := range k {
				q := bi*k + t
				v := r.margin(a, dec.Row(q))
				slack := 1e-9 * (1 + math.Abs(v))
				if pred[q] != a || v <= 0 || v < iv.Lo-slack || v > iv.Hi+slack {
					r.bad = append(r.bad, Violation{Index: row(cr.Index), Norm: norm, Radius: cr.Radius, Sample: t, Class: pred[q], Margin: v, Bound: iv})
				}
			}
		}
		pending, rows = pending[:0], rows[:0]
		return nil
	}
	for _, cr := range cs {
		if cr.Radius <= 0 {
			continue
		}
		s := ibp.Sample(r.rng, za.Row(cr.Index), ibp.Ball{Norm: norm, Radius: cr.Radius}, k, r.o.Clip)
		pending, rows = append(pending, cr), append(rows, s.Data...)
		if len(pending)*k >= batch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// margin is the smallest margin of class a in the decisions dec (one per
// binary machine, as classify.Classifier.Decision gives them).
func (r *run) margin(a int, dec []float64) float64 {
	v := math.Inf(1)
	if !r.mc.ovo {
		for j, u := range r.mc.of {
			if j != a {
				v = min(v, dec[r.mc.of[a]]-dec[u])
			}
		}
		return v
	}
	for u, out := range r.mc.m.Outputs {
		switch {
		case out.Pos == a:
			v = min(v, dec[u])
		case out.Neg == a:
			v = min(v, -dec[u])
		}
	}
	return v
}
