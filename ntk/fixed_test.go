package ntk

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// refFixed is the kernel of an L-hidden-layer ReLU network whose first F
// weight layers are not trained, for one pair, written as the sum over the
// trained layers: Θ_F = Σ_{h=F…L} Σ^(h)·Π_{h'=h+1…L} Σ̇^(h'), with Σ^(0)
// the input kernel, Σ^(h) = σ_w²·K^(h−1) + σ_b² and Σ̇^(h) = σ_w²·K̇^(h−1)
// (0-based layers). Every Σ^(h) and Σ̇^(h) is formed first, by math.Acos
// of the correlation, and the sum is taken afterwards: an independent
// reference for the accumulation of package ntk. same marks the pair
// (x, x), whose correlation is exactly 1. It returns Θ_F and Σ^(L).
func refFixed(x, y []float64, same bool, depth, fixed int, sw, sb float64) (theta, sigma float64) {
	d := float64(len(x))
	var xy, xx, yy float64
	for k := range x {
		xy += x[k] * y[k]
		xx += x[k] * x[k]
		yy += y[k] * y[k]
	}
	sw2, sb2 := sw*sw, sb*sb
	sig := make([]float64, depth+1)  // Σ^(h)(x, y)
	dsig := make([]float64, depth+1) // Σ̇^(h)(x, y), h ≥ 1
	s12, s11, s22 := sw2*xy/d+sb2, sw2*xx/d+sb2, sw2*yy/d+sb2
	sig[0] = s12
	for h := 1; h <= depth; h++ {
		r := math.Sqrt(s11 * s22)
		rho := 0.0
		if r > 0 {
			rho = max(-1, min(1, s12/r))
		}
		if same {
			rho = 1
		}
		t := math.Acos(rho)
		k := r * (math.Sin(t) + (math.Pi-t)*math.Cos(t)) / (2 * math.Pi)
		if r == 0 {
			k = 0
		}
		sig[h] = sw2*k + sb2
		dsig[h] = sw2 * (math.Pi - t) / (2 * math.Pi)
		s12, s11, s22 = sig[h], sw2*s11/2+sb2, sw2*s22/2+sb2
	}
	for h := fixed; h <= depth; h++ {
		term := sig[h]
		for hp := h + 1; hp <= depth; hp++ {
			term *= dsig[hp]
		}
		theta += term
	}
	return theta, sig[depth]
}

// fixedInputs returns n random rows without parallel pairs (whose
// reference correlation would carry the rounding the package snaps away).
func fixedInputs(seed uint64, n, d int) linalg.Matrix[float64] {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := linalg.New[float64](n, d)
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	return x
}

// TestFixedReference checks Gram, Cross, Diag, Prepared and GramLadder
// of the NTK with F fixed layers against refFixed, for every F of several
// depths, σ_w, σ_b, float64 and float32.
func TestFixedReference(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		depth  int
		sw, sb float64
		f32    bool
	}{
		{1, 1, 0, false}, {2, math.Sqrt2, 0, false}, {3, 1, 0.7, false}, {5, 1.3, 0.4, false},
		{2, 1, 0.5, true}, {4, math.Sqrt2, 0, true},
	} {
		x, z := fixedInputs(uint64(tc.depth), 17, 6), fixedInputs(uint64(tc.depth)+100, 5, 6)
		tol := 1e-12
		if tc.f32 {
			// The float32 inputs are exact in float64 too; the float32
			// Gram product and the final rounding are not.
			x, z = linalg.Convert[float64](linalg.Convert[float32](x)), linalg.Convert[float64](linalg.Convert[float32](z))
			tol = 2e-6
		}
		for F := 0; F <= tc.depth; F++ {
			s := Spec{Kind: KindNTK, Depth: tc.depth, Fixed: F, WeightStd: tc.sw, BiasStd: tc.sb, Float32: tc.f32}
			gram, cross, diag := fixedKernels(t, s, x, z)
			// The scale of a near-zero entry: the diagonal's size.
			scale, _ := refFixed(x.Row(0), x.Row(0), true, tc.depth, F, tc.sw, tc.sb)
			for i := range x.Rows {
				for j := range x.Rows {
					want, _ := refFixed(x.Row(i), x.Row(j), i == j, tc.depth, F, tc.sw, tc.sb)
					if !relClose(gram.At(i, j), want, tol, scale) {
						t.Fatalf("%v: Gram (%d, %d) = %v, reference %v", s, i, j, gram.At(i, j), want)
					}
				}
				want, _ := refFixed(x.Row(i), x.Row(i), true, tc.depth, F, tc.sw, tc.sb)
				if !relClose(diag[i], want, tol, scale) || diag[i] != gram.At(i, i) {
					t.Fatalf("%v: diagonal %d = %v, Gram %v, reference %v", s, i, diag[i], gram.At(i, i), want)
				}
			}
			for i := range z.Rows {
				for j := range x.Rows {
					want, _ := refFixed(z.Row(i), x.Row(j), false, tc.depth, F, tc.sw, tc.sb)
					if !relClose(cross.At(i, j), want, tol, scale) {
						t.Fatalf("%v: Cross (%d, %d) = %v, reference %v", s, i, j, cross.At(i, j), want)
					}
				}
			}
			if tc.f32 {
				continue
			}
			// The ladder of F: every depth ≥ F bit for bit as Gram.
			ntks, nngps, err := gramLadder(ctx, x, s, Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			for h := range tc.depth + 1 {
				if h < F {
					if ntks[h].Data != nil {
						t.Fatalf("%v: ladder depth %d < F holds a matrix", s, h)
					}
					continue
				}
				hs := s
				hs.Depth = h
				want, err := Gram(ctx, hs, x, Options{})
				if err != nil {
					t.Fatal(err)
				}
				wantS, err := Gram(ctx, Spec{Kind: KindNNGP, Depth: h, WeightStd: tc.sw, BiasStd: tc.sb}, x, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range want.Data {
					if ntks[h].Data[k] != v || nngps[h].Data[k] != wantS.Data[k] {
						t.Fatalf("%v: ladder depth %d element %d: %v, %v; Gram %v, %v", s, h, k, ntks[h].Data[k], nngps[h].Data[k], v, wantS.Data[k])
					}
				}
			}
		}
	}
}

// fixedKernels returns, as float64, the Gram, the cross kernel of z
// against x and the diagonal of s, checking on the way that Prepared
// gives Cross's values (and the diagonal for a point against itself),
// FillGramRows the Gram's rows and Blocks (in cross blocks) Cross's.
func fixedKernels(t *testing.T, s Spec, x, z linalg.Matrix[float64]) (gram, cross linalg.Matrix[float64], diag []float64) {
	t.Helper()
	if s.Float32 {
		g, c, d := fixedKernelsT(t, s, linalg.Convert[float32](x), linalg.Convert[float32](z))
		d64 := make([]float64, len(d))
		for i, v := range d {
			d64[i] = float64(v)
		}
		return linalg.Convert[float64](g), linalg.Convert[float64](c), d64
	}
	return fixedKernelsT(t, s, x, z)
}

func fixedKernelsT[T linalg.Float](t *testing.T, s Spec, x, z linalg.Matrix[T]) (gram, cross linalg.Matrix[T], diag []T) {
	t.Helper()
	ctx := context.Background()
	var err error
	if gram, err = Gram(ctx, s, x, Options{}); err != nil {
		t.Fatal(err)
	}
	if cross, err = Cross(ctx, s, z, x, Options{}); err != nil {
		t.Fatal(err)
	}
	if diag, err = Diag(s, x); err != nil {
		t.Fatal(err)
	}
	c, err := Prepare(x, s)
	if err != nil {
		t.Fatal(err)
	}
	pz := linalg.New[T](z.Rows, x.Rows)
	if err := c.Into(ctx, z, nil, Options{}, pz); err != nil {
		t.Fatal(err)
	}
	px := linalg.New[T](x.Rows, x.Rows)
	same := make([]int, x.Rows)
	for i := range same {
		same[i] = i
	}
	if err := c.Into(ctx, x, same, Options{}, px); err != nil {
		t.Fatal(err)
	}
	pd := c.Diag()
	rows := linalg.New[T](x.Rows, x.Rows)
	if err := FillGramRows(ctx, s, x, Options{}, 0, x.Rows, rows); err != nil {
		t.Fatal(err)
	}
	blocks := linalg.New[T](z.Rows, x.Rows)
	var zero T
	size := int64(8)
	if any(zero) == any(float32(0)) {
		size = 4
	}
	err = Blocks(ctx, s, &z, x, Options{}, 2*int64(x.Rows)*size, func(i0 int, k linalg.Matrix[T]) error {
		for r := range k.Rows {
			copy(blocks.Row(i0+r), k.Row(r))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range z.Rows {
		for j := range x.Rows {
			if pz.At(i, j) != cross.At(i, j) {
				t.Fatalf("%v: Prepared (%d, %d) = %v, Cross %v", s, i, j, pz.At(i, j), cross.At(i, j))
			}
			if math.Abs(float64(blocks.At(i, j)-cross.At(i, j))) > 1e-6*math.Abs(float64(cross.At(i, j)))+1e-12 {
				t.Fatalf("%v: Blocks (%d, %d) = %v, Cross %v", s, i, j, blocks.At(i, j), cross.At(i, j))
			}
		}
	}
	for i := range x.Rows {
		if T(pd[i]) != diag[i] || px.At(i, i) != diag[i] {
			t.Fatalf("%v: Prepared diagonal %d = %v, %v; Diag %v", s, i, pd[i], px.At(i, i), diag[i])
		}
		for j := range i + 1 {
			if rows.At(i, j) != gram.At(i, j) {
				t.Fatalf("%v: FillGramRows (%d, %d) = %v, Gram %v", s, i, j, rows.At(i, j), gram.At(i, j))
			}
		}
	}
	return gram, cross, diag
}

// TestFixedEnds: F = 0 is the NTK and F = L the NNGP, bit for bit, in
// every path (the NNGP: Θ_L is set to Σ^(L) after the last layer, the same
// float64 values, rounded once to the same storage type).
func TestFixedEnds(t *testing.T) {
	ctx := context.Background()
	x, z := fixedInputs(3, 21, 5), fixedInputs(4, 6, 5)
	for _, tc := range []struct {
		depth int
		sb    float64
		f32   bool
	}{{1, 0, false}, {3, 0.5, false}, {4, 1, true}} {
		for _, end := range []struct {
			fixed int
			kind  Kind
		}{{0, KindNTK}, {tc.depth, KindNNGP}} {
			s := Spec{Kind: KindNTK, Depth: tc.depth, Fixed: end.fixed, WeightStd: math.Sqrt2, BiasStd: tc.sb, Float32: tc.f32}
			w := Spec{Kind: end.kind, Depth: tc.depth, WeightStd: math.Sqrt2, BiasStd: tc.sb, Float32: tc.f32}
			g1, c1, d1 := fixedKernels(t, s, x, z)
			g2, c2, d2 := fixedKernels(t, w, x, z)
			for i, v := range g2.Data {
				if g1.Data[i] != v {
					t.Fatalf("%v: Gram element %d = %v, %v gives %v", s, i, g1.Data[i], w, v)
				}
			}
			for i, v := range c2.Data {
				if c1.Data[i] != v {
					t.Fatalf("%v: Cross element %d = %v, %v gives %v", s, i, c1.Data[i], w, v)
				}
			}
			for i, v := range d2 {
				if d1[i] != v {
					t.Fatalf("%v: diagonal %d = %v, %v gives %v", s, i, d1[i], w, v)
				}
			}
			if tc.f32 {
				continue
			}
			ntks, _, err := gramLadder(ctx, x, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range g2.Data {
				if ntks[tc.depth].Data[i] != v {
					t.Fatalf("%v: ladder element %d = %v, %v gives %v", s, i, ntks[tc.depth].Data[i], w, v)
				}
			}
		}
	}
}

// TestFixedInvalid: a number of fixed layers outside 0…L, or with the NNGP,
// is refused by every entry point, naming it.
func TestFixedInvalid(t *testing.T) {
	ctx := context.Background()
	x := fixedInputs(5, 4, 3)
	for _, s := range []Spec{
		{Kind: KindNTK, Depth: 2, Fixed: 3, WeightStd: 1},
		{Kind: KindNTK, Depth: 2, Fixed: -1, WeightStd: 1},
		{Kind: KindNTK, Depth: 0, Fixed: 1, WeightStd: 1},
		{Kind: KindNNGP, Depth: 2, Fixed: 1, WeightStd: 1},
	} {
		errs := map[string]error{"Validate": s.Validate()}
		_, errs["Gram"] = Gram(ctx, s, x, Options{})
		_, errs["Cross"] = Cross(ctx, s, x, x, Options{})
		_, errs["Diag"] = Diag(s, x)
		errs["Blocks"] = Blocks(ctx, s, nil, x, Options{}, 0, func(int, linalg.Matrix[float64]) error { return nil })
		_, _, errs["GramLadder"] = gramLadder(ctx, x, s, Options{})
		_, errs["Prepare"] = Prepare(x, s)
		for name, err := range errs {
			if err == nil || !strings.Contains(err.Error(), "fixed layers") {
				t.Errorf("%s of %+v: error %v, want one naming the fixed layers", name, s, err)
			}
		}
	}
}

// TestFixedJSON: a fixed kernel round-trips through its file form, which
// omits "fixed" when it is 0 (the form older readers know), and a bad
// value in a file is refused naming it.
func TestFixedJSON(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{Kind: KindNTK, Depth: 3, WeightStd: 1, BiasStd: 0.5}, `{"name":"ntk","depth":3,"sigma_w":1,"sigma_b":0.5,"type":"float64"}`},
		{Spec{Kind: KindNTK, Depth: 3, Fixed: 2, WeightStd: 1, Float32: true}, `{"name":"ntk","depth":3,"fixed":2,"sigma_w":1,"sigma_b":0,"type":"float32"}`},
	} {
		b, err := json.Marshal(tc.s)
		if err != nil || string(b) != tc.want {
			t.Fatalf("%+v: %s, %v; want %s", tc.s, b, err, tc.want)
		}
		var r Spec
		if err := json.Unmarshal(b, &r); err != nil || r != tc.s {
			t.Fatalf("round trip of %s: %+v, %v", b, r, err)
		}
	}
	if got := (Spec{Kind: KindNTK, Depth: 3, Fixed: 2, WeightStd: 1}).String(); got != "ntk L=3 F=2 σ_w=1 σ_b=0 float64" {
		t.Errorf("String: %q", got)
	}
	for _, bad := range []string{
		`{"name":"ntk","depth":2,"fixed":3,"sigma_w":1}`,
		`{"name":"ntk","depth":2,"fixed":-1,"sigma_w":1}`,
		`{"name":"nngp","depth":2,"fixed":1,"sigma_w":1}`,
	} {
		var r Spec
		if err := json.Unmarshal([]byte(bad), &r); err == nil || !strings.Contains(err.Error(), "fixed") {
			t.Errorf("%s: error %v, want one naming the fixed layers", bad, err)
		}
	}
}
