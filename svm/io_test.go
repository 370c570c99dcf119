package svm

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm/dataset"
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
	s, err := dataset.ReadLIBSVM(&buf, "mem", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := s.X
	if got.Rows != 7 || got.Cols != 5 {
		t.Fatalf("read %d×%d, want 7×5", got.Rows, got.Cols)
	}
	for i := range 7 {
		if l, err := strconv.ParseFloat(s.Classes[s.Y[i]], 64); err != nil || l != y[i] {
			t.Errorf("label %d: %q, want %g", i, s.Classes[s.Y[i]], y[i])
		}
		for j := range 5 {
			if got.At(i, j) != x.At(i, j) {
				t.Errorf("(%d, %d): %g, want %g (not bit-exact)", i, j, got.At(i, j), x.At(i, j))
			}
		}
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
		HasBias: true, Bias: -0.25, Kernel: ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1},
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
		s, err := dataset.ReadLIBSVM(strings.NewReader(in), "fuzz", dataset.Options{MaxBytes: 1 << 19})
		if err != nil {
			return
		}
		y := make([]float64, s.N())
		for i, c := range s.Y {
			if y[i], err = strconv.ParseFloat(s.Classes[c], 64); err != nil || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
				return // a class name, not a target WriteLIBSVM writes
			}
		}
		var buf bytes.Buffer
		if err := WriteLIBSVM(&buf, y, s.X); err != nil {
			t.Fatal(err)
		}
		s2, err := dataset.ReadLIBSVM(&buf, "again", dataset.Options{})
		if slices.ContainsFunc(s.X.Data, func(v float64) bool { return v != 0 }) && (err != nil || s2.N() != s.N()) {
			t.Fatalf("round trip: %v", err) // (without a nonzero feature the file has no feature column to read)
		}
		ReadPrecomputed(strings.NewReader(in), "fuzz")
	})
}
