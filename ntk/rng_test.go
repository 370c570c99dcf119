package ntk

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPortableLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	xs := []float64{1, 2, 0.5, math.Sqrt2, math.Nextafter(1, 0), math.Nextafter(1, 2), 1e-300, 1e300, math.MaxFloat64}
	for range 10000 {
		xs = append(xs, rng.Float64(), math.Exp(rng.NormFloat64()*100))
	}
	for _, x := range xs {
		got, want := portableLog(x), math.Log(x)
		if math.Abs(got-want) > 4e-16*math.Max(1, math.Abs(want)) {
			t.Fatalf("portableLog(%v) = %v, math.Log %v", x, got, want)
		}
	}
	// Subnormals (math.Log on amd64 is wrong for these: ln 2⁻¹⁰⁷⁴ ≈ −744.44).
	for _, e := range []int{-1074, -1060, -1023} {
		if got, want := portableLog(math.Ldexp(1, e)), float64(e)*math.Ln2; math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Errorf("portableLog(2^%d) = %v, want %v", e, got, want)
		}
	}
}

// TestNormalGolden pins the first samples for seed 6: any platform or
// compiler that changes them breaks reproducibility of the weights.
func TestNormalGolden(t *testing.T) {
	g := NewNormal(6)
	want := []uint64{
		0x3ffa515126d6554d, // 1.644852782924619
		0xbfd790f5329b07d2, // -0.36822252218200646
		0x3fc9c6bed3890540, // 0.20137772873753512
		0x3ff48dbb7ab91b8e, // 1.284602622401255
		0xbfe22f4463d44f89, // -0.5682699155608911
		0xbfe197392e355cb9, // -0.5497098829754555
		0xbff11dfefba03edc, // -1.0698232487811117
		0xbf76624d5bcaed8b, // -0.005464842016120196
	}
	for i, w := range want {
		if v := g.Float64(); math.Float64bits(v) != w {
			t.Errorf("sample %d = %v (%#x), want %v (%#x)", i, v, math.Float64bits(v), math.Float64frombits(w), w)
		}
	}
}

// TestNormalMoments: mean 0, variance 1, fourth moment 3 to sampling error.
func TestNormalMoments(t *testing.T) {
	g := NewNormal(1)
	const n = 200000
	var m1, m2, m4 float64
	for range n {
		v := g.Float64()
		m1 += v
		m2 += v * v
		m4 += v * v * v * v
	}
	m1, m2, m4 = m1/n, m2/n, m4/n
	if math.Abs(m1) > 0.01 || math.Abs(m2-1) > 0.01 || math.Abs(m4-3) > 0.06 {
		t.Fatalf("moments %v %v %v, want 0 1 3", m1, m2, m4)
	}
}
