package svm

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

func TestLIBSVMRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := linalg.New[float64](7, 5)
	y := make([]float64, 7)
	for i := range 7 {
		y[i] = float64(rng.IntN(3) - 1)
		for j := range 5 {
			if rng.IntN(2) == 0 {
				x.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(20)-10)))
			}
		}
	}
	x.Set(3, 4, 1) // the last column is used, so Dim = 5
	var buf bytes.Buffer
	if err := WriteLIBSVM(&buf, y, x); err != nil {
		t.Fatal(err)
	}
	s, err := ReadLIBSVM(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Dense(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != 7 || got.Cols != 5 {
		t.Fatalf("read %d×%d, want 7×5", got.Rows, got.Cols)
	}
	for i := range 7 {
		if s.Y[i] != y[i] {
			t.Errorf("label %d: %g, want %g", i, s.Y[i], y[i])
		}
		for j := range 5 {
			if got.At(i, j) != x.At(i, j) {
				t.Errorf("(%d, %d): %g, want %g (not bit-exact)", i, j, got.At(i, j), x.At(i, j))
			}
		}
	}
	if _, err := s.Dense(3, 0); err == nil {
		t.Error("Dense with too small a dimension accepted")
	}
	if _, err := s.Dense(0, 10); err == nil {
		t.Error("Dense beyond the element limit accepted")
	}
}

func TestLIBSVMErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1 1:2\n\n", "f:2: empty line"},
		{"1 1:2\n-1 3:1 2:1\n", "f:2: index 2 after 3"},
		{"x 1:2\n", "f:1: label"},
		{"1 0:2\n", "f:1: index \"0\""},
		{"1 1:nan\n", "f:1: value of index 1"},
		{"1 1\n", "f:1: \"1\" is not idx:val"},
		{"1 1:1e999\n", "not a finite number"},
	} {
		_, err := ReadLIBSVM(strings.NewReader(tc.in), "f")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
	s, err := ReadLIBSVM(strings.NewReader("+1 2:0.5\t4:1\r\n-1"), "f") // CRLF, tabs, no final newline, empty point
	if err != nil || len(s.Y) != 2 || s.Dim != 4 || len(s.Rows[1]) != 0 {
		t.Errorf("lenient input: %+v, %v", s, err)
	}
}

func TestPrecomputedRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := blobs(rng, 9, 1)
	k := rbfGram(x, x, 0.3)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"f64": func(b *bytes.Buffer) error { return WritePrecomputed(b, y, k) },
		"f32": func(b *bytes.Buffer) error { return WritePrecomputed(b, y, to32(k)) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(buf.String(), "\n")
		if !strings.HasPrefix(first, "1 0:1 1:1 2:") {
			t.Errorf("%s: first line %.40q…", name, first)
		}
		gy, gk, err := ReadPrecomputed(&buf, "k")
		if err != nil {
			t.Fatal(err)
		}
		for i := range y {
			if gy[i] != y[i] {
				t.Errorf("%s: label %d", name, i)
			}
			for j := range y {
				got, want := gk.At(i, j), k.At(i, j)
				if name == "f32" { // the shortest decimal reads back to the same float32
					got, want = float64(float32(got)), float64(float32(want))
				}
				if got != want {
					t.Fatalf("%s: K(%d,%d) = %v, want %v", name, i, j, gk.At(i, j), want)
				}
			}
		}
	}
	if _, _, err := ReadPrecomputed(strings.NewReader("1 0:1 1:1 2:0\n1 0:3 1:0 2:1\n"), "k"); err == nil || !strings.Contains(err.Error(), "k:2") {
		t.Errorf("bad serial: %v", err)
	}
}

func testModel() *Model {
	x, _ := linalg.FromSlice(3, 2, []float64{1, 2, 3, 4, 5, 6})
	return &Model{Machine: "svm", Loss: "hinge", Lambda: 0.064, Objective: "sum", Solver: "exact",
		HasBias: true, Bias: -0.25, Kernel: KernelSpec{Name: "ntk", Depth: 1, SigmaW: 1, Type: "float64"},
		Train: TrainRef{Source: "mem", N: 3, D: 2, SHA256: InputsSHA256(x), Embedded: true},
		Fit:   FitInfo{RelGap: 1e-4, C: 15.625}, Alpha: []float64{0.5, -1e-300, 7}, X: x}
}

func TestModelRoundTrip(t *testing.T) {
	for _, embed := range []bool{true, false} {
		m := testModel()
		if !embed {
			m.Train.Embedded, m.X = false, linalg.Matrix[float64]{}
		}
		var buf bytes.Buffer
		if err := WriteModel(&buf, m); err != nil {
			t.Fatal(err)
		}
		got, err := ReadModel(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if got.Machine != m.Machine || got.Bias != m.Bias || got.Kernel != m.Kernel || got.Train != m.Train ||
			got.Fit != m.Fit || len(got.Alpha) != 3 || got.Alpha[1] != m.Alpha[1] || got.Alpha[2] != 7 {
			t.Errorf("embed=%v: read %+v, wrote %+v", embed, got, m)
		}
		if embed && (got.X.At(2, 1) != 6 || InputsSHA256(got.X) != m.Train.SHA256) {
			t.Errorf("embedded inputs differ: %v", got.X)
		}
		// Every single-byte corruption and every truncation is rejected.
		b := buf.Bytes()
		for i := range b {
			c := bytes.Clone(b)
			c[i] ^= 0x40
			if _, err := ReadModel(bytes.NewReader(c)); !errors.Is(err, ErrModel) {
				t.Fatalf("byte %d flipped: err %v", i, err)
			}
		}
		for l := 0; l < len(b); l += 7 {
			if _, err := ReadModel(bytes.NewReader(b[:l])); !errors.Is(err, ErrModel) {
				t.Fatalf("truncated to %d: err %v", l, err)
			}
		}
		if _, err := ReadModel(bytes.NewReader(append(bytes.Clone(b), 0))); !errors.Is(err, ErrModel) {
			t.Errorf("trailing byte: err %v", err)
		}
	}
	m := testModel()
	m.Alpha = m.Alpha[:2]
	if err := WriteModel(&bytes.Buffer{}, m); !errors.Is(err, ErrModel) {
		t.Errorf("inconsistent model written: %v", err)
	}
}

func FuzzModel(f *testing.F) {
	var buf bytes.Buffer
	WriteModel(&buf, testModel())
	f.Add(buf.Bytes())
	f.Add([]byte(modelMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ReadModel(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrModel) {
				t.Fatalf("error %v does not wrap ErrModel", err)
			}
			return
		}
		var out bytes.Buffer
		if err := WriteModel(&out, m); err != nil {
			t.Fatalf("a model that reads does not write: %v", err)
		}
	})
}

func FuzzLIBSVM(f *testing.F) {
	f.Add("1 1:0.5 3:2\n-1 2:1e-3\n")
	f.Add("+1\n")
	f.Add("1 0:1 1:2 2:3\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadLIBSVM(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		x, err := s.Dense(0, 1<<16)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteLIBSVM(&buf, s.Y, x); err != nil {
			t.Fatal(err)
		}
		s2, err := ReadLIBSVM(&buf, "again")
		if err != nil || len(s2.Y) != len(s.Y) {
			t.Fatalf("round trip: %v", err)
		}
		ReadPrecomputed(strings.NewReader(in), "fuzz")
	})
}
