package plot

import (
	"math"
	"strconv"
	"strings"
)

// Scale is how an axis maps data values to positions.
type Scale int

// Axis scales.
const (
	ScaleLinear Scale = iota // equal distances for equal differences
	ScaleLog10               // equal distances for equal ratios; only positive values are shown
)

// Axis is one axis of a chart.
type Axis struct {
	Label string
	Scale Scale
	// Min and Max fix the axis range when Min < Max (and, on a ScaleLog10
	// axis, Min > 0); otherwise the range is fitted to the data and
	// widened to nice tick values.
	Min, Max float64
	// Format, if not nil, labels the major ticks instead of the default
	// format.
	Format func(v float64) string
}

// Tick is a tick mark on an axis. Major ticks have a label and a
// gridline; minor ticks have neither.
type Tick struct {
	Value float64
	Label string // "" for a minor tick
}

// Major reports whether t is a labelled tick.
func (t Tick) Major() bool { return t.Label != "" }

// decade returns the k with 10^k <= x < 10^(k+1), for x > 0, correcting
// math.Log10's rounding (it gives 2.9999999999999996 for 1000).
func decade(x float64) int {
	k := int(math.Floor(math.Log10(x)))
	if math.Pow10(k+1) <= x {
		k++
	} else if math.Pow10(k) > x {
		k--
	}
	return k
}

// niceStep returns the smallest step of the form {1, 2, 5} × 10^k that
// divides [lo, hi] into at most n intervals (n >= 1).
func niceStep(lo, hi float64, n int) float64 {
	if n < 1 {
		n = 1
	}
	raw := hi/float64(n) - lo/float64(n) // hi-lo may overflow
	p := math.Pow10(decade(raw))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// NiceRange widens [lo, hi] to multiples of the step that LinearTicks
// would choose for at most n intervals. Empty or degenerate ranges are
// widened first: lo == hi becomes a range of 10% about it (or [-1, 1]
// about 0).
func NiceRange(lo, hi float64, n int) (float64, float64) {
	lo, hi = widen(lo, hi)
	step := niceStep(lo, hi, n)
	nlo := clean(math.Floor(lo/step+1e-9)*step, step)
	nhi := clean(math.Ceil(hi/step-1e-9)*step, step)
	if math.IsInf(nlo, 0) || math.IsInf(nhi, 0) { // widened past the largest float
		return lo, hi
	}
	return nlo, nhi
}

func widen(lo, hi float64) (float64, float64) {
	if lo > hi {
		lo, hi = hi, lo
	}
	// A range within rounding error of a constant is a constant.
	if hi-lo <= 1e-12*max(math.Abs(lo), math.Abs(hi)) {
		if lo == 0 && hi == 0 {
			return -1, 1
		}
		m := lo/2 + hi/2
		d := math.Abs(m) / 10
		return m - d, m + d
	}
	return lo, hi
}

// clean snaps v, a multiple of step, to the nearest multiple computed
// without accumulated error, and to exactly 0 near 0.
func clean(v, step float64) float64 {
	k := math.Round(v / step)
	if k == 0 {
		return 0
	}
	// k*step can carry an error such as 0.30000000000000004; parsing
	// the shortest decimal with the step's precision removes it.
	d := max(0, -decade(step)) + 1
	r, err := strconv.ParseFloat(strconv.FormatFloat(k*step, 'f', d, 64), 64)
	if err != nil || d > 15 {
		return k * step
	}
	return r
}

// LinearTicks returns labelled ticks at multiples of a {1, 2, 5} × 10^k
// step, at most n+1 of them, within [lo, hi] (lo < hi), each labelled by
// the default linear format.
func LinearTicks(lo, hi float64, n int) []Tick {
	if !(lo < hi) {
		return nil
	}
	step := niceStep(lo, hi, n)
	var ticks []Tick
	first := math.Ceil(lo/step - 1e-9)
	last := math.Floor(hi/step + 1e-9)
	if !(last-first <= float64(4*n+4)) || math.Abs(first) > 1<<52 || math.Abs(last) > 1<<52 {
		// A range too narrow for its magnitude (a fixed one: fitted
		// ranges are widened): label its ends.
		return []Tick{
			{Value: lo, Label: minus(strconv.FormatFloat(lo, 'g', 17, 64))},
			{Value: hi, Label: minus(strconv.FormatFloat(hi, 'g', 17, 64))},
		}
	}
	for i := range int(last-first) + 1 {
		ticks = append(ticks, Tick{Value: clean((first+float64(i))*step, step)})
	}
	labelLinear(ticks, step)
	return ticks
}

// labelLinear labels ticks spaced by step, with as many decimals as the
// step needs, or in e-notation when the values are very large or small.
func labelLinear(ticks []Tick, step float64) {
	big := 0.0
	for _, t := range ticks {
		big = max(big, math.Abs(t.Value))
	}
	sd := decade(step)
	sci := big >= 1e6 || (big > 0 && big < 1e-3)
	for i := range ticks {
		v := ticks[i].Value
		var s string
		switch {
		case v == 0:
			s = "0"
		case sci:
			e := decade(math.Abs(v))
			s = strconv.FormatFloat(v/math.Pow10(e), 'f', max(0, e-sd), 64) + "e" + strconv.Itoa(e)
		default:
			s = strconv.FormatFloat(v, 'f', max(0, -sd), 64)
		}
		ticks[i].Label = minus(s)
	}
}

// minus replaces the ASCII hyphen of negative numbers by the minus sign.
func minus(s string) string { return strings.ReplaceAll(s, "-", "\u2212") }

var superscripts = map[rune]rune{
	'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹', '-': '⁻',
}

// pow10Label is "10" followed by k in superscript digits, as 10⁻³.
func pow10Label(k int) string {
	var b strings.Builder
	b.WriteString("10")
	for _, r := range strconv.Itoa(k) {
		b.WriteRune(superscripts[r])
	}
	return b.String()
}

// LogRange widens [lo, hi] (0 < lo <= hi) for a log axis: to whole
// decades when it spans two decades or more, otherwise to the nearest
// d × 10^k (d = 1…9). lo == hi becomes a range of a factor 2 about it.
func LogRange(lo, hi float64) (float64, float64) {
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	if hi/lo >= 100 {
		// A bound a few ulps past a power of ten (t = 1000.0000000001 after
		// 10⁴ summed steps of 0.1) stays on that decade.
		return pow10Down(lo * (1 + 1e-9)), pow10Up(hi * (1 - 1e-9))
	}
	kl := math.Pow10(decade(lo))
	kh := math.Pow10(decade(hi))
	return math.Floor(lo/kl*(1+1e-12)) * kl, math.Ceil(hi/kh*(1-1e-12)) * kh
}

// pow10Down returns the largest power of ten <= x.
func pow10Down(x float64) float64 { return math.Pow10(decade(x)) }

// pow10Up returns the smallest power of ten >= x.
func pow10Up(x float64) float64 {
	p := math.Pow10(decade(x))
	if p < x {
		p *= 10
	}
	return p
}

// LogTicks returns ticks for a log axis on [lo, hi] (0 < lo < hi):
//   - over more than ten decades, every second, fifth... decade labelled,
//     the other decades as minor ticks, at most about n labels;
//   - over two or more decades, every decade labelled and 2×…9× minor;
//   - over less, labels at 1, 2 and 5 × 10^k (all of 1…9 × 10^k if that
//     gives fewer than three), the rest of 1…9 × 10^k minor; a range too
//     narrow for two such labels gets linear ticks.
//
// Decades are labelled 0.001 … 10000 when every labelled decade is in that
// range, and as 10⁻⁵, 10⁶ otherwise.
func LogTicks(lo, hi float64, n int) []Tick {
	if !(lo > 0 && lo < hi) || math.IsInf(hi, 0) {
		return nil
	}
	n = max(n, 2)
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	k0, k1 := decade(lo), decade(hi)
	var ticks []Tick
	span := k1 - k0
	if span >= 2 || (span == 1 && in(math.Pow10(k0)) && in(math.Pow10(k1))) {
		step := 1
		for _, s := range []int{1, 2, 5, 10, 20, 50, 100} {
			step = s
			if (span+1)/s <= n+1 {
				break
			}
		}
		var labelled []int
		for k := k0; k <= k1; k++ {
			v := math.Pow10(k)
			if in(v) {
				t := Tick{Value: v}
				if k%step == 0 {
					t.Label = "x" // placeholder, set below
					labelled = append(labelled, k)
				}
				ticks = append(ticks, t)
			}
			if step == 1 && span <= 10 {
				for d := 2; d <= 9; d++ {
					if w := float64(d) * v; in(w) {
						ticks = append(ticks, Tick{Value: w})
					}
				}
			}
		}
		plain := len(labelled) > 0 && labelled[0] >= -3 && labelled[len(labelled)-1] <= 4
		for i, t := range ticks {
			if t.Label != "" {
				ticks[i].Label = decadeLabel(decade(t.Value), plain)
			}
		}
		return ticks
	}
	// Less than two decades: 1-2-5 labels, or every digit.
	for _, digits := range [][]int{{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		ticks = ticks[:0]
		labels := 0
		for k := k0; k <= k1; k++ {
			for d := 1; d <= 9; d++ {
				v := clean(float64(d)*math.Pow10(k), math.Pow10(k))
				if !in(v) {
					continue
				}
				t := Tick{Value: v}
				for _, l := range digits {
					if l == d {
						t.Label = digitLabel(d, k)
						labels++
					}
				}
				ticks = append(ticks, t)
			}
		}
		if labels >= 3 || (labels == 2 && len(digits) == 9) {
			return ticks
		}
	}
	return LinearTicks(lo, hi, n)
}

func decadeLabel(k int, plain bool) string {
	if plain {
		return strconv.FormatFloat(math.Pow10(k), 'f', max(0, -k), 64)
	}
	return pow10Label(k)
}

func digitLabel(d, k int) string {
	if k >= -3 && k <= 4 {
		return strconv.FormatFloat(float64(d)*math.Pow10(k), 'f', max(0, -k), 64)
	}
	if d == 1 {
		return pow10Label(k)
	}
	return strconv.Itoa(d) + "×" + pow10Label(k)
}
