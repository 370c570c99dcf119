package ntk

import (
	"math"

	"github.com/ntksvm/ntksvm/internal/rng"
)

// Normal is the seeded N(0, 1) generator of the network weights. It gives
// the same numbers on every platform and Go version because it uses only
// integer arithmetic and IEEE-exact floating-point operations (+ − × ÷ and
// √), every product explicitly rounded so that no compiler may fuse it
// into an FMA, and its own logarithm instead of math.Log (which has
// assembly implementations on some architectures):
//
//   - SplitMix64 (Steele, Lea and Flood 2014) with state seed turns the
//     seed into 64-bit words: state += 0x9E3779B97F4A7C15, then the state
//     is mixed with xor-shifts by 30, 27, 31 and multiplications by
//     0xBF58476D1CE4E5B9 and 0x94D049BB133111EB;
//   - each word w gives u = (w >> 11)·2⁻⁵³ in [0, 1) and v = 2u − 1;
//   - Marsaglia's polar method: draw (v₁, v₂) until s = v₁² + v₂² is in
//     (0, 1), then return v₁·√(−2 ln s / s) and, on the next call,
//     v₂·√(−2 ln s / s).
type Normal struct {
	src   rng.SplitMix64
	spare float64
	has   bool
}

// NewNormal returns the generator for seed.
func NewNormal(seed uint64) *Normal { return &Normal{src: rng.SplitMix64(seed)} }

// Float64 returns the next N(0, 1) sample.
func (g *Normal) Float64() float64 {
	if g.has {
		g.has = false
		return g.spare
	}
	for {
		v1 := float64(float64(g.src.Uint64()>>11)*0x1p-53)*2 - 1
		v2 := float64(float64(g.src.Uint64()>>11)*0x1p-53)*2 - 1
		s := float64(v1*v1) + float64(v2*v2)
		if s >= 1 || s == 0 {
			continue
		}
		f := math.Sqrt(float64(-2*portableLog(s)) / s)
		g.spare, g.has = float64(v2*f), true
		return float64(v1 * f)
	}
}

// portableLog is ln x for a positive finite x, to within a few ulp, from
// IEEE-exact operations only: x = m·2^e with m in [√½, √2), and
// ln m = 2·atanh(t) = 2(t + t³/3 + t⁵/5 + …) with t = (m − 1)/(m + 1),
// |t| ≤ 0.1716, summed to t²³.
func portableLog(x float64) float64 {
	b := math.Float64bits(x)
	e := int((b>>52)&0x7ff) - 1023
	if e == -1023 { // subnormal: scale into the normal range first
		return portableLog(float64(x*0x1p64)) - float64(64*ln2Hi) - float64(64*ln2Lo)
	}
	m := math.Float64frombits(b&^(0x7ff<<52) | 1023<<52) // in [1, 2)
	if m > math.Sqrt2 {
		m = m / 2
		e++
	}
	t := (m - 1) / (m + 1)
	t2 := float64(t * t)
	p := 1.0 / 23
	for k := 21; k >= 1; k -= 2 {
		p = float64(p*t2) + 1/float64(k)
	}
	lnm := float64(2 * float64(t*p))
	fe := float64(e)
	return float64(fe*ln2Hi) + (lnm + float64(fe*ln2Lo))
}

const (
	ln2Hi = 6.93147180369123816490e-01 // ln 2 with its low 32 bits zero: e·ln2Hi is exact
	ln2Lo = 1.90821492927058770002e-10 // ln 2 − ln2Hi
)
