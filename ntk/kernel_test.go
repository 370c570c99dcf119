package ntk

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// randX returns n random inputs of dimension d with a few special rows:
// a duplicate, an antipodal copy and a zero row when n is large enough.
func randX(rng *rand.Rand, n, d int) linalg.Matrix[float64] {
	x := linalg.New[float64](n, d)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	if n >= 6 {
		copy(x.Row(1), x.Row(0)) // duplicate
		for j, v := range x.Row(0) {
			x.Row(2)[j] = -v // antipodal
			x.Row(3)[j] = 3 * v
		}
		clear(x.Row(4)) // zero norm
	}
	return x
}

// refKernel is the arc-cosine recursion (see the package doc) step by step for one pair, with θ by atan2 as
// neural-tangents writes it: an independent reference.
func refKernel(x, y []float64, p Spec) (ntk, nngp float64) {
	d := float64(len(x))
	var xy, xx, yy float64
	for k := range x {
		xy += x[k] * y[k]
		xx += x[k] * x[k]
		yy += y[k] * y[k]
	}
	sw2, sb2 := p.WeightStd*p.WeightStd, p.BiasStd*p.BiasStd
	s12, s11, s22 := sw2*xy/d+sb2, sw2*xx/d+sb2, sw2*yy/d+sb2
	th := s12
	for range p.Depth {
		c := s11 * s22
		theta := math.Atan2(math.Sqrt(max(c-s12*s12, 0)), s12)
		if c == 0 {
			theta = math.Pi / 2
		}
		k := (math.Sqrt(max(c-s12*s12, 0)) + (math.Pi-theta)*s12) / (2 * math.Pi)
		kd := (math.Pi - theta) / (2 * math.Pi)
		s12 = sw2*k + sb2
		s11 = sw2*s11/2 + sb2
		s22 = sw2*s22/2 + sb2
		th = s12 + sw2*th*kd
	}
	return th, s12
}

func relClose(got, want, tol, scale float64) bool {
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), scale)
}

// TestClosedFormL1 checks the recursion at L = 1 against the paper's eq. (63)
// and the NNGP closed form √(1 − u²) + u(π − arccos u) over 2π.
func TestClosedFormL1(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct{ n, d int }{{7, 5}, {20, 784}, {9, 1}} {
		x := randX(rng, tc.n, tc.d)
		ntk, nngp, err := kernels(x, DefaultSpec(1))
		if err != nil {
			t.Fatal(err)
		}
		d := float64(tc.d)
		scale := 0.0
		for i := range tc.n {
			scale = max(scale, ntk.At(i, i))
		}
		for i := range tc.n {
			for j := range tc.n {
				xi, xj := x.Row(i), x.Row(j)
				var dot, ni, nj float64
				for k := range xi {
					dot += xi[k] * xj[k]
					ni += xi[k] * xi[k]
					nj += xj[k] * xj[k]
				}
				ni, nj = math.Sqrt(ni), math.Sqrt(nj)
				u := 0.0
				if ni > 0 && nj > 0 {
					u = min(max(dot/(ni*nj), -1), 1)
				}
				h := 2*u*(math.Pi-math.Acos(u)) + math.Sqrt(1-u*u) // eq. (64)
				want := ni * nj * h / (2 * math.Pi * d)            // eq. (63)
				wantG := ni * nj / (2 * math.Pi * d) * (math.Sqrt(1-u*u) + u*(math.Pi-math.Acos(u)))
				// 1e-7: near-parallel pairs (i, j ≠ i) lose half the digits
				// of u in any formula; the others agree to 1e-13.
				tol, sc := 1e-13, 1e-3*scale
				if math.Abs(math.Abs(u)-1) < 1e-12 { // includes the diagonal: u = 1 ± ulp here
					tol, sc = 1e-7, scale
				}
				if !relClose(ntk.At(i, j), want, tol, sc) || !relClose(nngp.At(i, j), wantG, tol, sc) {
					t.Fatalf("n=%d d=%d (%d,%d) u=%v: NTK %v want %v, NNGP %v want %v",
						tc.n, tc.d, i, j, u, ntk.At(i, j), want, nngp.At(i, j), wantG)
				}
			}
		}
	}
}

func TestRecursionReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, p := range []Spec{
		DefaultSpec(1), DefaultSpec(2), DefaultSpec(5),
		{Depth: 3, WeightStd: 1.5, BiasStd: 0.3},
		{Depth: 1, WeightStd: 0.7, BiasStd: 1},
	} {
		x := randX(rng, 10, 13)
		z := randX(rng, 4, 13)
		ntk, nngp, err := kernels(x, p)
		if err != nil {
			t.Fatal(err)
		}
		cn, err := crossOf(z, x, p)
		if err != nil {
			t.Fatal(err)
		}
		cg, err := crossOf(z, x, nngpOf(p))
		if err != nil {
			t.Fatal(err)
		}
		dn, dg, err := diags(x, p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 10 {
			for j := range 10 {
				wn, wg := refKernel(x.Row(i), x.Row(j), p)
				tol := 1e-12
				// (Anti)parallel pairs and the diagonal: the reference's
				// √(c − Σ²) has u to half precision only.
				if i == j || (i < 4 && j < 4) {
					tol = 1e-7
				}
				if !relClose(ntk.At(i, j), wn, tol, 1e-9) || !relClose(nngp.At(i, j), wg, tol, 1e-9) {
					t.Fatalf("%+v (%d,%d): NTK %v want %v, NNGP %v want %v", p, i, j, ntk.At(i, j), wn, nngp.At(i, j), wg)
				}
				if ntk.At(i, j) != ntk.At(j, i) || nngp.At(i, j) != nngp.At(j, i) {
					t.Fatalf("%+v: not symmetric at (%d,%d)", p, i, j)
				}
			}
			if dn[i] != ntk.At(i, i) || dg[i] != nngp.At(i, i) {
				t.Fatalf("%+v: Diag %v %v, Gram diagonal %v %v", p, dn[i], dg[i], ntk.At(i, i), nngp.At(i, i))
			}
		}
		for i := range 4 {
			for j := range 10 {
				wn, wg := refKernel(z.Row(i), x.Row(j), p)
				tol := 1e-12
				if i < 4 && j < 4 {
					tol = 1e-7
				}
				if !relClose(cn.At(i, j), wn, tol, 1e-9) || !relClose(cg.At(i, j), wg, tol, 1e-9) {
					t.Fatalf("%+v cross (%d,%d): NTK %v want %v, NNGP %v want %v", p, i, j, cn.At(i, j), wn, cg.At(i, j), wg)
				}
			}
		}
	}
}

// TestDiagonalIdentities: σ_b = 0, σ_w = 1 gives Θ(x,x) = (L+1)‖x‖²/(d·2^L)
// and Σ(x,x) = ‖x‖²/(d·2^L) (the diagonal of the recursion with σ_b = 0).
func TestDiagonalIdentities(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := randX(rng, 8, 11)
	for L := 1; L <= 6; L++ {
		ntk, nngp, err := kernels(x, DefaultSpec(L))
		if err != nil {
			t.Fatal(err)
		}
		for i := range x.Rows {
			var s float64
			for _, v := range x.Row(i) {
				s += v * v
			}
			s /= 11 * math.Exp2(float64(L))
			if !relClose(ntk.At(i, i), float64(L+1)*s, 1e-14, 1e-300) || !relClose(nngp.At(i, i), s, 1e-14, 1e-300) {
				t.Fatalf("L=%d row %d: Θ=%v Σ=%v, want %v %v", L, i, ntk.At(i, i), nngp.At(i, i), float64(L+1)*s, s)
			}
		}
	}
}

// cholesky reports whether a (n×n, symmetric) is positive definite.
func cholesky(a linalg.Matrix[float64]) bool {
	n := a.Rows
	l := make([]float64, n*n)
	for j := range n {
		s := a.At(j, j)
		for k := range j {
			s -= l[j*n+k] * l[j*n+k]
		}
		if !(s > 0) {
			return false
		}
		l[j*n+j] = math.Sqrt(s)
		for i := j + 1; i < n; i++ {
			s := a.At(i, j)
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = s / l[j*n+j]
		}
	}
	return true
}

// TestGramPSD: λ_min(K) ≥ −1e-10·‖K‖, checked as K + 1e-10·‖K‖_F·I being
// positive definite.
func TestGramPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, p := range []Spec{DefaultSpec(1), DefaultSpec(3), {Depth: 2, WeightStd: 2, BiasStd: 0.5}} {
		x := randX(rng, 40, 6)
		ntk, nngp, err := kernels(x, p)
		if err != nil {
			t.Fatal(err)
		}
		for name, k := range map[string]linalg.Matrix[float64]{"ntk": ntk, "nngp": nngp} {
			var f float64
			for _, v := range k.Data {
				f += v * v
			}
			sh := k.Clone()
			for i := range sh.Rows {
				sh.Set(i, i, sh.At(i, i)+1e-10*math.Sqrt(f))
			}
			if !cholesky(sh) {
				t.Errorf("%+v %s: not positive semi-definite", p, name)
			}
			// A kernel with a duplicate row is singular: shifted down it
			// fails, so the check is not vacuous.
			for i := range sh.Rows {
				sh.Set(i, i, k.At(i, i)-1e-6*math.Sqrt(f))
			}
			if cholesky(sh) {
				t.Errorf("%+v %s: duplicate rows but Cholesky succeeded", p, name)
			}
		}
	}
}

func TestZeroNormNoNaN(t *testing.T) {
	x := linalg.New[float64](3, 4)
	x.Set(1, 2, 1)
	for _, p := range []Spec{DefaultSpec(3), {Depth: 2, WeightStd: 1, BiasStd: 0.5}} {
		ntk, nngp, err := kernels(x, p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			for j := range 3 {
				wn, wg := refKernel(x.Row(i), x.Row(j), p)
				if math.IsNaN(ntk.At(i, j)) || math.IsNaN(nngp.At(i, j)) ||
					!relClose(ntk.At(i, j), wn, 1e-14, 1e-300) || !relClose(nngp.At(i, j), wg, 1e-14, 1e-300) {
					t.Fatalf("%+v (%d,%d): %v %v, want %v %v", p, i, j, ntk.At(i, j), nngp.At(i, j), wn, wg)
				}
			}
		}
		if p.BiasStd == 0 && (ntk.At(0, 0) != 0 || ntk.At(0, 1) != 0) {
			t.Fatalf("zero input: Θ = %v, %v, want 0", ntk.At(0, 0), ntk.At(0, 1))
		}
	}
}

func TestFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x := randX(rng, 30, 50)
	x32 := linalg.New[float32](30, 50)
	for i, v := range x.Data {
		x32.Data[i] = float32(v)
		x.Data[i] = float64(float32(v))
	}
	p := DefaultSpec(2)
	k64, err := gramOf(x, p)
	if err != nil {
		t.Fatal(err)
	}
	k32, err := gramOf(x32, p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		for j := range 30 {
			// Parallel pairs (rows 0…3) lose half the digits of u in a
			// float32 Gram product, as in any float32 implementation.
			tol := 1e-5
			if i < 4 && j < 4 && i != j {
				tol = 1e-3
			}
			if !relClose(float64(k32.At(i, j)), k64.At(i, j), tol, k64.At(0, 0)*1e-2) || k32.At(i, j) != k32.At(j, i) {
				t.Fatalf("(%d,%d): float32 %v float64 %v", i, j, k32.At(i, j), k64.At(i, j))
			}
		}
	}
}

func TestErrors(t *testing.T) {
	x := linalg.New[float64](3, 2)
	bad := x.Clone()
	bad.Set(2, 1, math.NaN())
	ctx := context.Background()
	for name, err := range map[string]error{
		"depth -1":    gramInto(ctx, x, Spec{Depth: -1, WeightStd: 1}, Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{}),
		"sigma_w 0":   gramInto(ctx, x, Spec{Depth: 1}, Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{}),
		"sigma_b NaN": gramInto(ctx, x, Spec{Depth: 1, WeightStd: 1, BiasStd: math.NaN()}, Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{}),
		"no output":   gramInto(ctx, x, DefaultSpec(1), Options{}, linalg.Matrix[float64]{}, linalg.Matrix[float64]{}),
		"wrong shape": gramInto(ctx, x, DefaultSpec(1), Options{}, linalg.New[float64](3, 2), linalg.Matrix[float64]{}),
		"NaN input":   gramInto(ctx, bad, DefaultSpec(1), Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{}),
		"cross d":     crossInto(ctx, linalg.New[float64](2, 3), x, DefaultSpec(1), Options{}, linalg.New[float64](2, 3), linalg.Matrix[float64]{}, -1),
		"cross NaN":   crossInto(ctx, bad, x, DefaultSpec(1), Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{}, -1),
		"no features": gramInto(ctx, linalg.New[float64](3, 0), DefaultSpec(1), Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{}),
		"same outputs": func() error {
			k := linalg.New[float64](3, 3)
			return gramInto(ctx, x, DefaultSpec(1), Options{}, k, k)
		}(),
		"output is X": func() error {
			y := linalg.New[float64](3, 3)
			return gramInto(ctx, y, DefaultSpec(1), Options{}, linalg.Matrix[float64]{}, y)
		}(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	err := gramInto(ctx, bad, DefaultSpec(1), Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{})
	if err == nil || !contains(err.Error(), "row 2") {
		t.Errorf("NaN input: error %v does not name row 2", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := gramInto(cctx, x, DefaultSpec(1), Options{}, linalg.New[float64](3, 3), linalg.Matrix[float64]{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestGramTiles: Grams larger than one tile (rows and columns) are exactly
// symmetric and agree with the cross kernel of X with itself and with the
// reference, in float64 and float32, for one or two outputs.
func TestGramTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	const n, d = 300, 7
	x := randX(rng, n, d)
	p := Spec{Depth: 2, WeightStd: 1.1, BiasStd: 0.2}
	ntk, nngp, err := kernels(x, p)
	if err != nil {
		t.Fatal(err)
	}
	only, err := gramOf(x, p)
	if err != nil {
		t.Fatal(err)
	}
	cross, err := crossOf(x, x, p)
	if err != nil {
		t.Fatal(err)
	}
	x32 := linalg.New[float32](n, d)
	for i, v := range x.Data {
		x32.Data[i] = float32(v)
	}
	k32, err := gramOf(x32, nngpOf(p))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for j := range n {
			v := ntk.At(i, j)
			if v != ntk.At(j, i) || nngp.At(i, j) != nngp.At(j, i) || k32.At(i, j) != k32.At(j, i) {
				t.Fatalf("(%d,%d): not symmetric", i, j)
			}
			if v != only.At(i, j) {
				t.Fatalf("(%d,%d): NTK alone %v, with NNGP %v", i, j, only.At(i, j), v)
			}
			if !relClose(cross.At(i, j), v, 1e-7, 1e-9) {
				t.Fatalf("(%d,%d): cross %v, Gram %v", i, j, cross.At(i, j), v)
			}
			if !relClose(float64(k32.At(i, j)), nngp.At(i, j), 1e-3, 1e-3) {
				t.Fatalf("(%d,%d): float32 %v, float64 %v", i, j, k32.At(i, j), nngp.At(i, j))
			}
		}
		if i%37 == 5 {
			for j := range n {
				wn, wg := refKernel(x.Row(i), x.Row(j), p)
				if !relClose(ntk.At(i, j), wn, 1e-7, 1e-9) || !relClose(nngp.At(i, j), wg, 1e-7, 1e-9) {
					t.Fatalf("(%d,%d): %v %v, reference %v %v", i, j, ntk.At(i, j), nngp.At(i, j), wn, wg)
				}
			}
		}
	}
}

// TestGramIntoLower checks that Options.Lower writes the same lower
// triangle, bit for bit, and leaves the strict upper triangle untouched.
func TestGramIntoLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	const n, d = 300, 9
	x := randX(rng, n, d)
	p := Spec{Depth: 2, WeightStd: 1.1, BiasStd: 0.2}
	full, fullG, err := kernels(x, p)
	if err != nil {
		t.Fatal(err)
	}
	const canary = -12345.5
	lo, loG := linalg.New[float64](n, n), linalg.New[float64](n, n)
	for i := range lo.Data {
		lo.Data[i], loG.Data[i] = canary, canary
	}
	if err := gramInto(context.Background(), x, p, Options{Lower: true}, lo, loG); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for j := range n {
			for _, c := range []struct {
				name      string
				got, want linalg.Matrix[float64]
			}{{"NTK", lo, full}, {"NNGP", loG, fullG}} {
				g := c.got.At(i, j)
				switch {
				case j <= i && math.Float64bits(g) != math.Float64bits(c.want.At(i, j)):
					t.Fatalf("%s (%d,%d): lower %v, full %v", c.name, i, j, g, c.want.At(i, j))
				case j > i && g != canary:
					t.Fatalf("%s (%d,%d): upper triangle written (%v)", c.name, i, j, g)
				}
			}
		}
	}
}

// TestCheckFinite puts a NaN or an infinity at every position of short
// rows (across the 4-wide unrolling and its tail), in both element types,
// among large finite values whose squares would overflow.
func TestCheckFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for cols := 1; cols <= 9; cols++ {
			for pos := range 2 * cols {
				x := linalg.New[float64](2, cols)
				x32 := linalg.New[float32](2, cols)
				for i := range x.Data {
					x.Data[i], x32.Data[i] = 1e300, -3e38
				}
				x.Data[pos], x32.Data[pos] = bad, float32(bad)
				if err := checkFinite("X", x); err == nil {
					t.Fatalf("float64 %v at %d of 2×%d not found", bad, pos, cols)
				}
				if err := checkFinite("X", x32); err == nil {
					t.Fatalf("float32 %v at %d of 2×%d not found", bad, pos, cols)
				}
				x.Data[pos], x32.Data[pos] = -0.0, math.SmallestNonzeroFloat32
				if err := checkFinite("X", x); err != nil {
					t.Fatal(err)
				}
				if err := checkFinite("X", x32); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func TestCheckKernel(t *testing.T) {
	k := linalg.New[float32](3, 5)
	if err := CheckKernel(k, 0); err != nil {
		t.Fatal(err)
	}
	k.Set(2, 4, float32(math.Inf(-1)))
	err := CheckKernel(k, 10)
	if !errors.Is(err, ErrOverflow) || !strings.Contains(err.Error(), "K[12, 4] is -Inf") {
		t.Errorf("err %v", err)
	}
	k.Set(1, 0, float32(math.NaN()))
	if err := CheckKernel(k, 0); err == nil || !strings.Contains(err.Error(), "K[1, 0] is NaN") {
		t.Errorf("err %v", err)
	}
}
