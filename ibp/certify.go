package ibp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Norm is the norm of a perturbation ball.
type Norm int

const (
	// Linf is the ℓ∞ ball {x' : ‖x' − x‖∞ ≤ δ}, the paper's threat model
	// (Theorem 4.2, Table 2 and 3).
	Linf Norm = iota
	// L2 is the Euclidean ball {x' : ‖x' − x‖₂ ≤ r}.
	L2
)

// String returns "linf" or "l2".
func (n Norm) String() string {
	switch n {
	case Linf:
		return "linf"
	case L2:
		return "l2"
	}
	return fmt.Sprintf("Norm(%d)", int(n))
}

// ParseNorm parses "linf" (also "inf") or "l2".
func ParseNorm(s string) (Norm, error) {
	switch s {
	case "linf", "inf", "Linf":
		return Linf, nil
	case "l2", "L2":
		return L2, nil
	}
	return 0, fmt.Errorf("ibp: unknown norm %q: want linf or l2", s)
}

// Ball is a perturbation set around one of a certifier's points: every x'
// with ‖x' − x‖ ≤ Radius in the given norm (intersected with the pixel box
// [0, 1]^d when the certifier was built with Clip).
type Ball struct {
	Norm   Norm
	Radius float64
}

// Interval is a closed interval [Lo, Hi] of outputs. A NaN end means the
// bound failed (it then certifies nothing).
type Interval struct{ Lo, Hi float64 }

// Contains reports whether v lies in [Lo, Hi].
func (iv Interval) Contains(v float64) bool { return iv.Lo <= v && v <= iv.Hi }

// Certifier bounds a model's output over balls around a fixed set of points
// (the ball centres, e.g. the test inputs). Every certifier of this package
// has this one shape, so that the radius search (Search, CertifyAll) is
// written once. Implementations are safe for concurrent use.
type Certifier interface {
	// Len is the number of points.
	Len() int
	// Output is the model's output at point i itself (the clean prediction
	// whose sign is certified).
	Output(i int) float64
	// Bound returns an interval that contains the output at every x' in
	// the ball b around point i. A ball that CheckBall rejects gives
	// [NaN, NaN]. It panics if i is out of range.
	Bound(i int, b Ball) Interval
}

// SearchOptions configure the radius search of the authors' robust_svm.py
// (binary search on the radius with a tolerance on the output margin).
type SearchOptions struct {
	Init    float64 // first radius tried: 0.05 for kernel machines, 0.01 for networks
	Lo, Hi  float64 // initial bracket, [0, 0.3]
	Tol     float64 // stop once a certified margin is below Tol (1e-3)
	MaxIter int     // at most this many bounds (1000)
	// Grow doubles the bracket's upper end while the margin there is at
	// least Tol, before the search runs in the last doubling (see Search):
	// for inputs in units where no bracket is known in advance. Off in the
	// authors' search, whose radii stay below Hi.
	Grow bool
}

// KernelSearch returns the authors' settings for kernel machines: start at
// 0.05, bracket [0, 0.3], margin tolerance 1e-3, at most 1000 iterations.
func KernelSearch() SearchOptions {
	return SearchOptions{Init: 0.05, Lo: 0, Hi: 0.3, Tol: 1e-3, MaxIter: 1000}
}

// NetworkSearch returns the authors' settings for networks (ibp.py): as
// KernelSearch but starting at 0.01.
func NetworkSearch() SearchOptions {
	o := KernelSearch()
	o.Init = 0.01
	return o
}

// Validate reports whether o describes a search.
func (o SearchOptions) Validate() error {
	ok := func(v float64) bool { return v >= 0 && !math.IsInf(v, 0) } // false for NaN
	switch {
	case !ok(o.Lo) || !ok(o.Hi) || !(o.Lo < o.Hi):
		return fmt.Errorf("ibp: search bracket [%v, %v]: want finite 0 ≤ lo < hi", o.Lo, o.Hi)
	case !ok(o.Init):
		return fmt.Errorf("ibp: initial radius %v: want finite ≥ 0", o.Init)
	case !ok(o.Tol):
		return fmt.Errorf("ibp: margin tolerance %v: want finite ≥ 0", o.Tol)
	case o.MaxIter < 1:
		return fmt.Errorf("ibp: max iterations %d: want ≥ 1", o.MaxIter)
	}
	return nil
}

// Result is the certificate of one point.
type Result struct {
	Index  int     // the point
	Output float64 // the clean output; its sign is what is certified
	Radius float64 // the largest certified radius found (0 if none)
	Iters  int     // steps of the authors' search (each one bound there)
	// Bounds is the number of bounds evaluated: Iters, except for a
	// certifier whose bound grows with the radius (the paper's kernel
	// bound), where Search infers most steps from the other bounds.
	Bounds int
}

// Margin is the worst-case signed output over a ball: Lo if the clean
// output is positive, −Hi if it is negative, and NaN if it is 0 or the
// bound is NaN. The sign is certified when Margin ≥ 0.
func Margin(out float64, iv Interval) float64 {
	switch {
	case out > 0:
		return iv.Lo
	case out < 0:
		return -iv.Hi
	}
	return math.NaN()
}

// Search finds the largest radius of a ball around point i, in norm, on
// which c certifies the sign of the clean output, by the binary search of
// the authors' robust_svm.py: evaluate the margin s at δ; if s ≥ 0 record δ
// as certified, and stop if also s < Tol; then move the bracket (l ← δ if
// s > 0, else r ← δ) and try the midpoint. The result is the largest
// certified δ, or 0 if none was (a point with output 0 certifies nothing).
// The search also stops once the midpoint no longer changes (the bracket
// has shrunk to floating-point resolution), which changes no result.
//
// For a certifier whose margin provably decreases with the radius (the
// paper's kernel bound, Kernel.BoundEnd), Search gives the same Radius and
// Iters with fewer bounds (Result.Bounds): see searchMonotone.
//
// With Grow, the margin is first evaluated at Hi, 2·Hi, 4·Hi, … (each a
// step, each radius with a margin ≥ 0 recorded as certified) until it is
// below Tol there; the search then runs as above in the bracket of the
// last doubling, starting at Init if Init lies inside it and at its
// midpoint otherwise. A margin in [0, Tol) at a doubling ends the search
// as it would end the authors', and so does a radius past 2⁴⁰·Hi.
func Search(c Certifier, i int, norm Norm, o SearchOptions) Result {
	res := Result{Index: i, Output: c.Output(i)}
	margin := func(b Ball) float64 { return Margin(res.Output, c.Bound(i, b)) }
	if e, ok := c.(endBounder); ok && res.Output != 0 {
		margin = func(b Ball) float64 {
			if res.Output > 0 {
				return e.BoundEnd(i, b, true)
			}
			return -e.BoundEnd(i, b, false)
		}
	}
	if o.Grow && res.Output != 0 {
		var done bool
		if o, done = growBracket(margin, norm, o, &res); done {
			return res
		}
	}
	if m, ok := c.(monotoneCertifier); ok && res.Output != 0 {
		if slack, ok := m.marginSlack(i, Ball{Norm: norm, Radius: max(o.Init, o.Hi)}); ok {
			return searchMonotone(m, i, norm, o, res, slack)
		}
	}
	b := bisection{delta: o.Init, l: o.Lo, r: o.Hi}
	for res.Iters < o.MaxIter {
		s := margin(Ball{Norm: norm, Radius: b.delta})
		res.Iters++
		res.Bounds++
		if b.step(s, o.Tol, &res) {
			break
		}
	}
	return res
}

// maxGrow bounds the doublings of SearchOptions.Grow.
const maxGrow = 40

// growBracket doubles o.Hi while the margin there is at least o.Tol,
// recording each radius with a margin ≥ 0 in res, and returns the bracket
// of the last doubling, or done when the search is over (see Search).
func growBracket(margin func(Ball) float64, norm Norm, o SearchOptions, res *Result) (SearchOptions, bool) {
	for range maxGrow {
		if res.Iters >= o.MaxIter {
			return o, true
		}
		s := margin(Ball{Norm: norm, Radius: o.Hi})
		res.Iters++
		res.Bounds++
		if s >= 0 {
			res.Radius = max(res.Radius, o.Hi)
		}
		if !(s >= o.Tol) {
			if s >= 0 {
				return o, true // certified with a margin below Tol: the authors' rule stops
			}
			if !(o.Init > o.Lo && o.Init < o.Hi) {
				o.Init = (o.Lo + o.Hi) / 2
			}
			return o, false
		}
		o.Lo, o.Hi = o.Hi, 2*o.Hi
	}
	return o, true
}

// bisection is the state of the authors' binary search for the radius: the
// radius δ to try and the bracket [l, r] around the certified radius.
type bisection struct{ delta, l, r float64 }

// step takes the margin s at δ: a δ with s ≥ 0 is certified (recorded in
// res.Radius), s > 0 moves the bracket's lower end to δ and s ≤ 0 its upper
// end. It reports whether the search is over: a certified margin below tol,
// or a bracket too narrow to halve.
func (b *bisection) step(s, tol float64, res *Result) bool {
	if s >= 0 {
		res.Radius = max(res.Radius, b.delta)
		if s < tol {
			return true
		}
	}
	if s > 0 {
		b.l = b.delta
	} else {
		b.r = b.delta
	}
	next := (b.l + b.r) / 2
	if next == b.delta {
		return true
	}
	b.delta = next
	return false
}

// endBounder is a Certifier that can compute one end of its interval alone
// (faster); Search then asks only for the end the margin needs.
type endBounder interface {
	BoundEnd(i int, b Ball, lower bool) float64
}

// ErrNoPoints is returned by CertifyAll for an empty point set.
var ErrNoPoints = errors.New("ibp: no points to certify")

// CertifyAll runs Search for every listed point of c (all points if idx is
// nil) on up to threads goroutines (≤ 0: GOMAXPROCS). progress, if not nil,
// is called with the number of points done, from one goroutine at a time.
// Results are in the order of idx. It returns ctx's error if cancelled.
func CertifyAll(ctx context.Context, c Certifier, idx []int, norm Norm, o SearchOptions, threads int,
	progress func(done, total int)) ([]Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if idx == nil {
		idx = make([]int, c.Len())
		for i := range idx {
			idx[i] = i
		}
	}
	if len(idx) == 0 {
		return nil, ErrNoPoints
	}
	for _, i := range idx {
		if i < 0 || i >= c.Len() {
			return nil, fmt.Errorf("ibp: point %d out of range [0, %d)", i, c.Len())
		}
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, len(idx))
	out := make([]Result, len(idx))
	var next, done atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				k := int(next.Add(1) - 1)
				if k >= len(idx) {
					return
				}
				out[k] = Search(c, idx[k], norm, o)
				if n := int(done.Add(1)); progress != nil {
					mu.Lock()
					progress(n, len(idx))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Summary are the statistics of a set of certificates that the authors'
// test() prints: mean and (population) standard deviation of the radius,
// with its minimum and maximum.
type Summary struct {
	N                   int
	Mean, Std, Min, Max float64
}

// Summarize returns the statistics of the radii of rs.
func Summarize(rs []Result) Summary {
	s := Summary{N: len(rs)}
	if len(rs) == 0 {
		return s
	}
	s.Min, s.Max = math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		s.Mean += r.Radius
		s.Min = min(s.Min, r.Radius)
		s.Max = max(s.Max, r.Radius)
	}
	s.Mean /= float64(len(rs))
	for _, r := range rs {
		s.Std += (r.Radius - s.Mean) * (r.Radius - s.Mean)
	}
	s.Std = math.Sqrt(s.Std / float64(len(rs)))
	return s
}

// CheckBall returns an error unless b has a known norm and a finite
// radius ≥ 0.
func CheckBall(b Ball) error {
	if b.Norm != Linf && b.Norm != L2 {
		return fmt.Errorf("ibp: unknown norm %v", b.Norm)
	}
	if !(b.Radius >= 0) || math.IsInf(b.Radius, 0) {
		return fmt.Errorf("ibp: radius %v: want finite ≥ 0", b.Radius)
	}
	return nil
}

// nanInterval is the bound of a rejected ball.
var nanInterval = Interval{math.NaN(), math.NaN()}
