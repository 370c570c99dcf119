package ntk

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

func randMatrix(rows, cols int, seed uint64) linalg.Matrix[float64] {
	g := NewNormal(seed)
	m := linalg.New[float64](rows, cols)
	for i := range m.Data {
		m.Data[i] = g.Float64()
	}
	return m
}

// TestGramLadderEqualsGram: every kernel of a Ladder (depth 0 included)
// is, bit for bit, the Gram of its Spec.
func TestGramLadderEqualsGram(t *testing.T) {
	for _, tc := range []struct {
		n, d, depth int
		sw, sb      float64
	}{{1, 3, 1, 1, 0}, {37, 5, 4, math.Sqrt2, 0}, {300, 17, 3, 1.3, 0.4}, {37, 5, 0, 1.3, 0.4}} {
		x := randMatrix(tc.n, tc.d, uint64(tc.n))
		p := Spec{Depth: tc.depth, WeightStd: tc.sw, BiasStd: tc.sb}
		l, err := GramLadder(context.Background(), x, p, Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		for h := 0; h <= tc.depth; h++ {
			for _, kind := range []Kind{KindNTK, KindNNGP} {
				s := Spec{Kind: kind, Depth: h, WeightStd: tc.sw, BiasStd: tc.sb}
				want, err := Gram(context.Background(), s, x, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := l.Gram(s)
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range want.Data {
					if got.Data[i] != v {
						t.Fatalf("n=%d %v: element %d = %v, Gram gives %v", tc.n, s, i, got.Data[i], v)
					}
				}
			}
		}
	}
}

// TestLadderGramErrors: a Spec of other standard deviations, a deeper
// one, an NTK of other fixed layers, an NNGP left out by NTKOnly and an
// invalid one are not in a Ladder.
func TestLadderGramErrors(t *testing.T) {
	x := randMatrix(20, 4, 3)
	ctx := context.Background()
	l, err := GramLadder(ctx, x, Spec{Depth: 3, WeightStd: 1.2, BiasStd: 0.3, Fixed: 1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	only, err := GramLadder(ctx, x, Spec{Depth: 3, WeightStd: 1.2, BiasStd: 0.3}, Options{NTKOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		l    *Ladder
		s    Spec
		want string
	}{
		{"σ_w", l, Spec{Depth: 2, Fixed: 1, WeightStd: 1, BiasStd: 0.3}, "not in the ladder"},
		{"σ_b", l, Spec{Depth: 2, Fixed: 1, WeightStd: 1.2}, "not in the ladder"},
		{"deeper", l, Spec{Depth: 4, Fixed: 1, WeightStd: 1.2, BiasStd: 0.3}, "not in the ladder"},
		{"fixed", l, Spec{Depth: 2, WeightStd: 1.2, BiasStd: 0.3}, "not in the ladder"},
		{"NTKOnly", only, Spec{Kind: KindNNGP, Depth: 2, WeightStd: 1.2, BiasStd: 0.3}, "NTKs only"},
		{"invalid", l, Spec{Kind: KindNNGP, Depth: 2, Fixed: 1, WeightStd: 1.2, BiasStd: 0.3}, "fixed layers"},
	} {
		if _, err := tc.l.Gram(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v: error %v, want one saying %q", tc.name, tc.s, err, tc.want)
		}
	}
	// What a ladder with fixed layers holds: the NNGPs of every depth and
	// the NTKs with its fixed layers.
	for _, s := range []Spec{{Kind: KindNNGP, Depth: 0, WeightStd: 1.2, BiasStd: 0.3}, {Kind: KindNNGP, Depth: 3, WeightStd: 1.2, BiasStd: 0.3},
		{Depth: 1, Fixed: 1, WeightStd: 1.2, BiasStd: 0.3}, {Depth: 3, Fixed: 1, WeightStd: 1.2, BiasStd: 0.3, Float32: true}} {
		if _, err := l.Gram(s); err != nil {
			t.Errorf("%v: %v", s, err)
		}
	}
	if _, err := only.Gram(Spec{Kind: KindNNGP, WeightStd: 1.2, BiasStd: 0.3}); err != nil {
		t.Errorf("NTKOnly: the input kernel: %v", err)
	}
}

// TestGramLadderNTKOnly checks that NTKOnly leaves the NTKs as they are,
// bit for bit, and only them (and the input kernel the NTK of depth 0 is).
func TestGramLadderNTKOnly(t *testing.T) {
	x := randMatrix(41, 6, 7)
	for _, fixed := range []int{0, 2} {
		p := Spec{Depth: 4, WeightStd: math.Sqrt2, BiasStd: 0.5, Fixed: fixed}
		full, _, err := gramLadder(context.Background(), x, p, Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		ntks, nngps, err := gramLadder(context.Background(), x, p, Options{Threads: 2, NTKOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		for h := range ntks {
			if h < fixed {
				if ntks[h].Rows != 0 {
					t.Errorf("F=%d: ntk[%d] is %d×%d, want the zero Matrix", fixed, h, ntks[h].Rows, ntks[h].Cols)
				}
				continue
			}
			for i, v := range full[h].Data {
				if ntks[h].Data[i] != v {
					t.Fatalf("F=%d depth %d: element %d = %v with NTKOnly, %v without", fixed, h, i, ntks[h].Data[i], v)
				}
			}
		}
		for h, m := range nngps {
			if keep := h == 0 && fixed == 0; (m.Rows != 0) != keep {
				t.Errorf("F=%d: nngp[%d] is %d×%d with NTKOnly", fixed, h, m.Rows, m.Cols)
			}
		}
	}
}

func TestSpecCrossAndDiag(t *testing.T) {
	x := randMatrix(23, 7, 1)
	for _, s := range []Spec{
		{Kind: KindNTK, Depth: 0, WeightStd: 1, BiasStd: 0.5},
		{Kind: KindNNGP, Depth: 2, WeightStd: math.Sqrt2},
		{Kind: KindNTK, Depth: 3, WeightStd: 1, BiasStd: 0.1, Float32: true},
	} {
		k, err := Gram(context.Background(), s, x, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Cross(context.Background(), s, x, x, Options{})
		if err != nil {
			t.Fatal(err)
		}
		d, err := Diag(s, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x.Rows {
			if math.Abs(d[i]-k.At(i, i)) > 1e-12*math.Abs(d[i]) {
				t.Errorf("%v: diag %d = %v, Gram %v", s, i, d[i], k.At(i, i))
			}
			for j := range x.Rows {
				if k.At(i, j) != k.At(j, i) {
					t.Fatalf("%v: Gram not symmetric at (%d, %d)", s, i, j)
				}
				if i != j && math.Abs(c.At(i, j)-k.At(i, j)) > 1e-12*(1+math.Abs(k.At(i, j))) {
					t.Errorf("%v: cross (%d, %d) = %v, Gram %v", s, i, j, c.At(i, j), k.At(i, j))
				}
			}
		}
	}
}

func TestSpecJSON(t *testing.T) {
	s := Spec{Kind: KindNNGP, Depth: 3, WeightStd: 1.5, BiasStd: 0.25, Float32: true}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var r Spec
	if err := json.Unmarshal(b, &r); err != nil || r != s {
		t.Fatalf("round trip of %s: %+v, %v", b, r, err)
	}
	for _, bad := range []string{
		`{"name":"rbf","depth":1,"sigma_w":1}`,
		`{"name":"ntk","depth":-1,"sigma_w":1}`,
		`{"name":"ntk","depth":1,"sigma_w":0}`,
		`{"name":"ntk","depth":1,"sigma_w":1,"type":"float16"}`,
	} {
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s: no error", bad)
		} else if !strings.Contains(err.Error(), "ntk:") {
			t.Errorf("%s: error %q does not name the package", bad, err)
		}
	}
}
