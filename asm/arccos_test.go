package asm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
)

// acUlps returns |got − want| in units of the ulp of want (0 when both are
// the same NaN class or equal).
func acUlps(got, want float64) float64 {
	if math.IsNaN(got) || math.IsNaN(want) {
		if math.IsNaN(got) && math.IsNaN(want) {
			return 0
		}
		return math.Inf(1)
	}
	if got == want {
		return 0
	}
	w := math.Abs(want)
	ulp := math.Nextafter(w, math.Inf(1)) - w
	return math.Abs(got-want) / ulp
}

// acosWant is the documented Acos64 computed with 160-bit arithmetic and
// rounded: acos of x clamped to [−1, 1] by the asin Taylor series (math.Acos
// itself is off by millions of ulps next to ±1, where it forms 1 − x²).
func acosWant(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	x = min(max(x, -1), 1)
	const prec = 160
	pi, _ := new(big.Float).SetPrec(prec).SetString("3.14159265358979323846264338327950288419716939937510582097494459")
	a := math.Abs(x)
	w := new(big.Float).SetPrec(prec).SetFloat64(a)
	if a > 0.5 {
		w.SetFloat64(1 - a) // exact
		w.Quo(w, big.NewFloat(2))
		w.Sqrt(w)
	}
	// asin(w) = Σ_k (2k)!/(4^k (k!)² (2k+1)) w^{2k+1}
	w2 := new(big.Float).SetPrec(prec).Mul(w, w)
	term := new(big.Float).SetPrec(prec).Set(w) // c_k w^{2k+1} without the 1/(2k+1)
	sum := new(big.Float).SetPrec(prec).Set(w)
	for k := 1; k < 200; k++ {
		term.Mul(term, w2)
		term.Mul(term, big.NewFloat(float64(2*k-1)))
		term.Quo(term, big.NewFloat(float64(2*k)))
		t := new(big.Float).SetPrec(prec).Quo(term, big.NewFloat(float64(2*k+1)))
		if t.Sign() == 0 || t.MantExp(nil)-sum.MantExp(nil) < -prec {
			break
		}
		sum.Add(sum, t)
	}
	r := new(big.Float).SetPrec(prec)
	switch {
	case a <= 0.5:
		half := new(big.Float).SetPrec(prec).Quo(pi, big.NewFloat(2))
		if x < 0 || math.Signbit(x) {
			r.Add(half, sum)
		} else {
			r.Sub(half, sum)
		}
	case x > 0:
		r.Mul(sum, big.NewFloat(2))
	default:
		r.Mul(sum, big.NewFloat(2))
		r.Sub(pi, r)
	}
	f, _ := r.Float64()
	return f
}

// acosFast is a float64 reference good to about 1 ulp, fast enough for the
// float32 sweep: 2·asin(√((1−|x|)/2)) with a corrected square root near ±1,
// math.Asin near 0.
func acosFast(x float64) float64 {
	a := math.Abs(x)
	if a <= 0.5 {
		return math.Pi/2 - math.Asin(x)
	}
	z := (1 - a) / 2
	s := math.Sqrt(z)
	var lo float64
	if s > 0 {
		lo = -math.FMA(s, s, -z) / (2 * s) // √z = s + lo to about 2⁻¹⁰⁵
	}
	y := 2 * (math.Asin(s) + lo/math.Sqrt(1-z))
	if x < 0 {
		return math.Pi - y
	}
	return y
}

// acosSamples returns the float64 inputs of the dense accuracy test: random
// points, the neighbourhoods of −1, −1/2, 0, 1/2 and 1 ulp by ulp, and
// special values.
func acosSamples(rng *rand.Rand, n int) []float64 {
	xs := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, math.NaN(), math.Inf(1), math.Inf(-1),
		1 + 1e-15, -1 - 1e-15, 2, -3, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		math.MaxFloat64, -math.MaxFloat64,
	}
	for _, c := range []float64{-1, -0.5, 0, 0.5, 1} {
		x := c
		y := c
		for range 300 {
			x = math.Nextafter(x, math.Inf(1))
			y = math.Nextafter(y, math.Inf(-1))
			xs = append(xs, x, y)
		}
	}
	for range n {
		xs = append(xs, 2*rng.Float64()-1)
		// Logarithmically close to ±1 and to 0.
		e := -rng.Float64() * 50
		xs = append(xs, 1-math.Exp2(e), -1+math.Exp2(e), math.Exp2(e-10), -math.Exp2(e-10))
	}
	return xs
}

func TestAcos64Accuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 4000
	if testing.Short() {
		n = 400
	}
	xs := acosSamples(rng, n)
	for _, k := range Available() {
		t.Run(k.Name(), func(t *testing.T) {
			got := make([]float64, len(xs))
			k.Acos64(got, xs)
			worst, at := 0.0, 0.0
			for i, x := range xs {
				if u := acUlps(got[i], acosWant(x)); u > worst {
					worst, at = u, x
				}
			}
			t.Logf("%d samples: worst error %.2f ulp at x=%v", len(xs), worst, at)
			if worst > 2 {
				t.Fatalf("error %.2f ulp > 2 at x=%v (got %v, want %v)", worst, at,
					acosGot(k, at), acosWant(at))
			}
		})
	}
}

func acosGot(k *Kernels, x float64) float64 {
	d := []float64{0}
	k.Acos64(d, []float64{x})
	return d[0]
}

// TestAcos64Float32 checks every float32 in [−1, 1] (as a float64 input)
// when NTKSVM_EXHAUSTIVE=1, and every 997th one otherwise, on every set,
// within 2 ulp (screened with acosFast, confirmed with acosWant).
func TestAcos64Float32(t *testing.T) {
	step := uint32(997)
	if os.Getenv("NTKSVM_EXHAUSTIVE") == "1" {
		step = 1
	} else if testing.Short() {
		step = 99991
	}
	const one = 0x3f800000 // bits of 1.0; [0, 1] is bits 0…one, [−1, −0] the same with the sign bit
	for _, k := range Available() {
		t.Run(k.Name(), func(t *testing.T) {
			workers := runtime.GOMAXPROCS(0)
			var mu sync.Mutex
			worst, at := 0.0, 0.0
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					const chunk = 4096
					xs := make([]float64, 0, 2*chunk)
					got := make([]float64, 2*chunk)
					lw, lat := 0.0, 0.0
					for b := uint32(w) * step * chunk; b <= one; b += uint32(workers) * step * chunk {
						xs = xs[:0]
						for i := uint32(0); i < chunk; i++ {
							bits := b + i*step
							if bits > one {
								break
							}
							f := float64(math.Float32frombits(bits))
							xs = append(xs, f, -f)
						}
						k.Acos64(got, xs)
						for i, x := range xs {
							u := acUlps(got[i], acosFast(x))
							if u > 1.5 { // settle it with the exact reference
								u = acUlps(got[i], acosWant(x))
							}
							if u > lw {
								lw, lat = u, x
							}
						}
					}
					mu.Lock()
					if lw > worst {
						worst, at = lw, lat
					}
					mu.Unlock()
				}()
			}
			wg.Wait()
			t.Logf("step %d: worst error %.2f ulp at x=%v ", step, worst, at)
			if worst > 2 {
				t.Fatalf("error %.2f ulp > 2 at x=%v", worst, at)
			}
		})
	}
}

// layerWant is ArcCosLayer64 written plainly with math.Acos, the formulas
// of the arc-cosine recursion of neural-tangents' stax.py (θ by arccos of
// the clamped correlation).
func layerWant(sig, ntk, ni, invi, nj, invj, sw2, sb2 float64) (float64, float64) {
	rho := min(max(sig*(invi*invj), -1), 1)
	if math.Abs(rho) > 1-9.0/(1<<53) {
		rho = math.Copysign(1, rho)
	}
	theta := math.Acos(rho)
	k := ni * nj * (math.Sqrt(1-rho*rho) + (math.Pi-theta)*rho) / (2 * math.Pi)
	kd := (math.Pi - theta) / (2 * math.Pi)
	s := sw2*k + sb2
	return s, sw2*ntk*kd + s
}

// layerCase builds a random row of consistent pairs: sig[j] = ni·nj·cos for
// random angles, including zero norms and exact (anti)parallel pairs.
func layerCase(rng *rand.Rand, n int) (sig, ntk, nj, invj []float64, ni, invi float64) {
	ni = rng.Float64() * 3
	if rng.IntN(8) == 0 {
		ni = 0
	}
	invi = 0
	if ni > 0 {
		invi = 1 / ni
	}
	sig, ntk, nj, invj = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range n {
		nj[j] = rng.Float64() * 2
		switch rng.IntN(10) {
		case 0:
			nj[j] = 0
		}
		if nj[j] > 0 {
			invj[j] = 1 / nj[j]
		}
		c := 2*rng.Float64() - 1
		switch rng.IntN(6) {
		case 0:
			c = 1
		case 1:
			c = -1
		case 2:
			c = 1 - 1e-12*rng.Float64()
		}
		sig[j] = ni * nj[j] * c
		ntk[j] = rng.Float64() * 4
	}
	return
}

func TestArcCosLayer64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range Available() {
		t.Run(k.Name(), func(t *testing.T) {
			for n := 0; n <= 70; n++ {
				for off := range 3 {
					sig, ntk, nj, invj, ni, invi := layerCase(rng, n+off)
					sig, ntk, nj, invj = sig[off:], ntk[off:], nj[off:], invj[off:]
					sw2, sb2 := 0.5+rng.Float64(), rng.Float64()*0.3
					if n%3 == 0 {
						sb2 = 0
					}
					// Bitwise against the generic twin.
					gs, gn := append([]float64(nil), sig...), append([]float64(nil), ntk...)
					arcCosLayer64Generic(gs, gn, ni, invi, nj, invj, sw2, sb2)
					s0, n0 := append([]float64(nil), sig...), append([]float64(nil), ntk...)
					k.ArcCosLayer64(sig, ntk, ni, invi, nj, invj, sw2, sb2)
					for j := range sig {
						if math.Float64bits(sig[j]) != math.Float64bits(gs[j]) ||
							math.Float64bits(ntk[j]) != math.Float64bits(gn[j]) {
							t.Fatalf("n=%d off=%d j=%d: (%v, %v), generic (%v, %v)", n, off, j, sig[j], ntk[j], gs[j], gn[j])
						}
						ws, wn := layerWant(s0[j], n0[j], ni, invi, nj[j], invj[j], sw2, sb2)
						scale := 1 + ni*nj[j] + math.Abs(n0[j])
						if math.Abs(sig[j]-ws) > 1e-14*scale || math.Abs(ntk[j]-wn) > 1e-14*scale ||
							math.IsNaN(sig[j]) || math.IsNaN(ntk[j]) {
							t.Fatalf("n=%d j=%d: (%v, %v), want (%v, %v)", n, j, sig[j], ntk[j], ws, wn)
						}
					}
				}
			}
		})
	}
}

// TestArcCosLayer64Special pins the documented values: a zero norm gives
// K = 0 and K̇ = 1/4; parallel inputs K = ni·nj/2, K̇ = 1/2; antiparallel
// K = 0, K̇ = 0.
func TestArcCosLayer64Special(t *testing.T) {
	for _, k := range Available() {
		t.Run(k.Name(), func(t *testing.T) {
			// j=0: zero norm on the j side; j=1: parallel; j=2: antiparallel.
			sig := []float64{0, 6, -6}
			ntk := []float64{0, 2, 2}
			nj := []float64{0, 3, 3}
			invj := []float64{0, 1.0 / 3, 1.0 / 3}
			k.ArcCosLayer64(sig, ntk, 2, 0.5, nj, invj, 1, 0)
			want := [][2]float64{{0, 0}, {3, 3 + 1}, {0, 0}}
			for j, w := range want {
				if math.Abs(sig[j]-w[0]) > 1e-15 || math.Abs(ntk[j]-w[1]) > 1e-15 {
					t.Errorf("j=%d: (%v, %v), want %v", j, sig[j], ntk[j], w)
				}
			}
		})
	}
}

func TestArcCosPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"acos short dst": func() { Acos64(make([]float64, 1), make([]float64, 2)) },
		"layer short ntk": func() {
			ArcCosLayer64(make([]float64, 3), make([]float64, 2), 1, 1, make([]float64, 3), make([]float64, 3), 1, 0)
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

func BenchmarkArcCosLayer64(b *testing.B) {
	const n = 4096
	rng := rand.New(rand.NewPCG(5, 6))
	sig, ntk, nj, invj, ni, invi := layerCase(rng, n)
	for _, k := range Available() {
		b.Run("impl="+k.Name()+"/n=4096", func(b *testing.B) {
			s, t := append([]float64(nil), sig...), append([]float64(nil), ntk...)
			b.SetBytes(n * 8 * 6)
			for b.Loop() {
				copy(s, sig)
				copy(t, ntk)
				k.ArcCosLayer64(s, t, ni, invi, nj, invj, 1, 0)
			}
		})
	}
}

func BenchmarkAcos64(b *testing.B) {
	const n = 4096
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, n)
	for i := range x {
		x[i] = 2*rng.Float64() - 1
	}
	dst := make([]float64, n)
	for _, k := range Available() {
		b.Run("impl="+k.Name()+"/n=4096", func(b *testing.B) {
			b.SetBytes(n * 16)
			for b.Loop() {
				k.Acos64(dst, x)
			}
		})
	}
}

// TestArcCosFirst64: the first-layer kernel equals the affine map followed
// by ArcCosLayer64 with Θ = Σ, bit for bit on every set, with the outputs
// separate from g or either one of them in place over g.
func TestArcCosFirst64(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, k := range Available() {
		t.Run(k.Name(), func(t *testing.T) {
			for n := 0; n <= 70; n++ {
				for alias := range 3 { // 0: separate, 1: sig is g, 2: ntk is g
					sig0, _, nj, invj, ni, invi := layerCase(rng, n)
					a, b := 0.5+rng.Float64(), rng.Float64()*0.2
					if n%4 == 0 {
						b = 0
					}
					g := make([]float64, n)
					for j := range g {
						g[j] = (sig0[j] - b) / a // so that a·g + b ≈ sig0
					}
					// Want: Σ = Θ = fma(a, g, b), then the layer.
					ws, wt := make([]float64, n), make([]float64, n)
					for j, v := range g {
						ws[j] = math.FMA(a, v, b)
						wt[j] = ws[j]
					}
					arcCosLayer64Generic(ws, wt, ni, invi, nj, invj, 1.1, 0.2)
					gg := append([]float64(nil), g...)
					sig, ntk := make([]float64, n), make([]float64, n)
					switch alias {
					case 1:
						sig = gg
					case 2:
						ntk = gg
					}
					k.ArcCosFirst64(sig, ntk, gg, a, b, ni, invi, nj, invj, 1.1, 0.2)
					for j := range n {
						if math.Float64bits(sig[j]) != math.Float64bits(ws[j]) || math.Float64bits(ntk[j]) != math.Float64bits(wt[j]) {
							t.Fatalf("n=%d alias=%d j=%d: (%v, %v), want (%v, %v)", n, alias, j, sig[j], ntk[j], ws[j], wt[j])
						}
					}
				}
			}
		})
	}
}
