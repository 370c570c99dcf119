package reproduce

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Verdict is the outcome of comparing one of our numbers with the paper's.
type Verdict string

// The verdicts, from best to worst.
const (
	// Match: equal to the precision the paper prints (exactly, for Exact).
	Match Verdict = "match"
	// Within: different, but inside the row's Tolerance.
	Within Verdict = "within tolerance"
	// Differs: outside the Tolerance (or not a number).
	Differs Verdict = "differs"
)

// TolKind is the kind of a Tolerance.
type TolKind string

// The kinds of tolerance.
const (
	// TolExact accepts only equality (counts: correctly classified points).
	TolExact TolKind = "exact"
	// TolRel accepts |ours − paper| ≤ Value·|paper|.
	TolRel TolKind = "relative"
	// TolAbs accepts |ours − paper| ≤ Value.
	TolAbs TolKind = "absolute"
	// TolBand accepts ours in [Lo, Hi] whatever the paper's number (a
	// ratio that theory predicts only approximately).
	TolBand TolKind = "band"
)

// Tolerance is how far ours may be from the paper's number and still be
// "within tolerance". Each entry states it per row.
type Tolerance struct {
	Kind  TolKind `json:"kind"`
	Value float64 `json:"value,omitempty"`
	Lo    float64 `json:"lo,omitempty"`
	Hi    float64 `json:"hi,omitempty"`
}

// Exact returns the tolerance that accepts only equality.
func Exact() Tolerance { return Tolerance{Kind: TolExact} }

// Rel returns the tolerance |ours − paper| ≤ r·|paper|.
func Rel(r float64) Tolerance { return Tolerance{Kind: TolRel, Value: r} }

// Abs returns the tolerance |ours − paper| ≤ a.
func Abs(a float64) Tolerance { return Tolerance{Kind: TolAbs, Value: a} }

// Band returns the tolerance lo ≤ ours ≤ hi.
func Band(lo, hi float64) Tolerance { return Tolerance{Kind: TolBand, Lo: lo, Hi: hi} }

// String describes the tolerance for a report: "exact", "±0.5 %", "±0.01",
// "in [2.5, 4]".
func (t Tolerance) String() string {
	switch t.Kind {
	case TolExact:
		return "exact"
	case TolRel:
		return "±" + strconv.FormatFloat(100*t.Value, 'g', 3, 64) + " %"
	case TolAbs:
		return "±" + strconv.FormatFloat(t.Value, 'g', 3, 64)
	case TolBand:
		return fmt.Sprintf("in [%.4g, %.4g]", t.Lo, t.Hi)
	}
	return string(t.Kind)
}

// Validate returns an error unless t is a known kind with sensible bounds.
func (t Tolerance) Validate() error {
	switch t.Kind {
	case TolExact:
		return nil
	case TolRel, TolAbs:
		if !(t.Value >= 0) || math.IsInf(t.Value, 0) {
			return fmt.Errorf("%s tolerance %v: want a finite value ≥ 0", t.Kind, t.Value)
		}
		return nil
	case TolBand:
		if !(t.Lo <= t.Hi) {
			return fmt.Errorf("band tolerance [%v, %v]: want lo ≤ hi", t.Lo, t.Hi)
		}
		return nil
	}
	return fmt.Errorf("unknown tolerance kind %q", t.Kind)
}

// ParsePaper parses a number as the paper prints it ("7.9733e-3",
// "0.001005", "99.95", "2114") and returns its value and half a unit in its
// last printed digit, the precision the paper's number carries.
func ParsePaper(s string) (value, halfULP float64, err error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, fmt.Errorf("paper number %q: not a finite number", s)
	}
	mant, exp := t, 0
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant = t[:i]
		if exp, err = strconv.Atoi(t[i+1:]); err != nil {
			return 0, 0, fmt.Errorf("paper number %q: bad exponent", s)
		}
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	return v, 0.5 * math.Pow(10, float64(exp-decimals)), nil
}

// Judge returns the verdict for ours against the paper's number paper (as
// printed, see ParsePaper) under tolerance t, and the difference ours −
// paper. A non-finite ours differs.
func Judge(paper string, ours float64, t Tolerance) (Verdict, float64, error) {
	p, half, err := ParsePaper(paper)
	if err != nil {
		return Differs, math.NaN(), err
	}
	if err := t.Validate(); err != nil {
		return Differs, math.NaN(), err
	}
	d := ours - p
	if math.IsNaN(ours) || math.IsInf(ours, 0) {
		return Differs, d, nil
	}
	ad := math.Abs(d)
	if t.Kind == TolExact {
		if d == 0 {
			return Match, d, nil
		}
		return Differs, d, nil
	}
	if ad <= half*(1+1e-9) {
		if t.Kind != TolBand || (ours >= t.Lo && ours <= t.Hi) {
			return Match, d, nil
		}
	}
	var ok bool
	switch t.Kind {
	case TolRel:
		ok = ad <= t.Value*math.Abs(p)
	case TolAbs:
		ok = ad <= t.Value
	case TolBand:
		ok = ours >= t.Lo && ours <= t.Hi
	}
	if ok {
		return Within, d, nil
	}
	return Differs, d, nil
}
