package svm

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ntksvm/ntksvm/ntk"
)

// TestReadModelKernel reads model files of every version (written by the
// writers of their time; the files in testdata) and checks that their
// kernel reads as the ntk.Spec they were trained with: version 1's NTK,
// version 2's float32 kernel with a bias, version 3's depth-0 NNGP whose
// depth the old writer left out, version 4's regressor (an ε-SVR with a
// bias). Writing them again and reading back keeps the kernel.
func TestReadModelKernel(t *testing.T) {
	for _, tc := range []struct {
		file    string
		version uint32
		want    ntk.Spec
	}{
		{"v1-svm-exact.model", 1, ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}},
		{"v2-krr-float32.model", 2, ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1.5, BiasStd: 0.1, Float32: true}},
		{"v3-multiclass-depth0.model", 3, ntk.Spec{Kind: ntk.KindNNGP, Depth: 0, WeightStd: 1}},
		{"v4-svr-regression.model", 4, ntk.Spec{Kind: ntk.KindNTK, Depth: 2, WeightStd: 1.5, BiasStd: 0.2}},
	} {
		b, err := os.ReadFile("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(b[8:]); v != tc.version {
			t.Fatalf("%s: version %d, want %d", tc.file, v, tc.version)
		}
		m, err := ReadModel(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if m.Kernel != tc.want {
			t.Errorf("%s: kernel %v, want %v", tc.file, m.Kernel, tc.want)
		}
		var buf bytes.Buffer
		if err := WriteModel(&buf, m); err != nil {
			t.Fatal(err)
		}
		m2, err := ReadModel(&buf)
		if err != nil || m2.Kernel != tc.want || len(m2.Alpha) != len(m.Alpha) || len(m2.Outputs) != len(m.Outputs) {
			t.Errorf("%s: rewritten: %v, kernel %v", tc.file, err, m2.Kernel)
		}
	}
}

// TestWriteModelKernel: a model whose kernel is not a kernel (no σ_w, or
// an unknown kind) is refused by the writer, and a file with a bad kernel
// by the reader.
func TestWriteModelKernel(t *testing.T) {
	for _, s := range []ntk.Spec{{Kind: ntk.KindNTK, Depth: 1}, {Kind: ntk.Kind(7), Depth: 1, WeightStd: 1}, {Kind: ntk.KindNNGP, Depth: -1, WeightStd: 1}} {
		m := testModel()
		m.Kernel = s
		if err := WriteModel(new(bytes.Buffer), m); err == nil {
			t.Errorf("kernel %+v written", s)
		}
	}
	b, err := os.ReadFile("testdata/v2-krr-float32.model")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b, []byte(`"type":"float32"`), []byte(`"type":"float16"`), 1)
	if _, err := ReadModel(bytes.NewReader(bad)); err == nil {
		t.Error("a kernel of type float16 read")
	}
}

// TestModelFixedKernel: a model on the NTK with fixed first layers writes
// "fixed" in its kernel and reads back the same kernel; a model without
// fixed layers writes no "fixed" (its file is what older readers know);
// a file whose fixed layers exceed the depth, or that fixes layers of
// the NNGP, is refused naming the field.
func TestModelFixedKernel(t *testing.T) {
	for _, tc := range []struct {
		kernel ntk.Spec
		field  bool
	}{
		{ntk.Spec{Kind: ntk.KindNTK, Depth: 3, Fixed: 2, WeightStd: 1.5, BiasStd: 0.5}, true},
		{ntk.Spec{Kind: ntk.KindNTK, Depth: 3, WeightStd: 1.5, BiasStd: 0.5}, false},
	} {
		m := testModel()
		m.Kernel = tc.kernel
		var buf bytes.Buffer
		if err := WriteModel(&buf, m); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		if got := bytes.Contains(b, []byte(`"fixed"`)); got != tc.field {
			t.Errorf("%v: the file holds \"fixed\": %v, want %v", tc.kernel, got, tc.field)
		}
		r, err := ReadModel(bytes.NewReader(b))
		if err != nil || r.Kernel != tc.kernel {
			t.Fatalf("%v: read back %v, %v", tc.kernel, r.Kernel, err)
		}
		if !tc.field {
			continue
		}
		for old, repl := range map[string]string{`"fixed":2`: `"fixed":4`, `"name":"ntk"`: `"name":"nngp"`} {
			bad := editHeader(b, old, repl)
			if _, err := ReadModel(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "fixed layers") {
				t.Errorf("%s replaced by %s: error %v, want one naming the fixed layers", old, repl, err)
			}
		}
	}
}

// editHeader returns the model file b with old replaced by repl in its
// JSON header, the lengths and the checksum made right again.
func editHeader(b []byte, old, repl string) []byte {
	payload := b[20 : len(b)-32]
	h := binary.LittleEndian.Uint32(payload)
	header := bytes.Replace(payload[4:4+h], []byte(old), []byte(repl), 1)
	p := binary.LittleEndian.AppendUint32(nil, uint32(len(header)))
	p = append(append(p, header...), payload[4+h:]...)
	out := append(append([]byte(nil), b[:12]...), binary.LittleEndian.AppendUint64(nil, uint64(len(p)))...)
	sum := sha256.Sum256(p)
	return append(append(out, p...), sum[:]...)
}

// multiModel returns a three-class one-vs-one model with class weights
// and a probability model (version 5's fields).
func multiModel() *Model {
	m := testModel()
	m.Classes, m.Scheme = []string{"a", "b", "c"}, "ovo"
	m.Outputs = []Output{{Pos: 0, Neg: 1}, {Pos: 0, Neg: 2}, {Pos: 1, Neg: 2}}
	m.Alpha = make([]float64, 9)
	m.ClassWeights, m.ClassWeight = []float64{0.5, 1, 2}, "balanced"
	m.Probability = &Probability{A: []float64{-1, -2, -3}, B: []float64{0.1, 0, -0.1}, Coupling: "pairwise", Folds: 5}
	return m
}

// TestModelV4RoundTrip: class weights and the probability model survive
// a write and a read.
func TestModelV5RoundTrip(t *testing.T) {
	m := multiModel()
	var buf bytes.Buffer
	if err := WriteModel(&buf, m); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(buf.Bytes()[8:]); v != 5 {
		t.Fatalf("written as version %d", v)
	}
	got, err := ReadModel(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.ClassWeights, m.ClassWeights) || got.ClassWeight != "balanced" || got.Probability == nil ||
		!slices.Equal(got.Probability.A, m.Probability.A) || !slices.Equal(got.Probability.B, m.Probability.B) ||
		got.Probability.Coupling != "pairwise" || got.Probability.Folds != 5 {
		t.Errorf("read %+v %+v, wrote %+v %+v", got.ClassWeights, got.Probability, m.ClassWeights, m.Probability)
	}
}

// TestModelV4Refused: inconsistent class weights or probability models
// are refused by the writer.
func TestModelV5Refused(t *testing.T) {
	for name, mod := range map[string]func(m *Model){
		"two weights":      func(m *Model) { m.ClassWeights = []float64{1, 2} },
		"zero weight":      func(m *Model) { m.ClassWeights[1] = 0 },
		"NaN weight":       func(m *Model) { m.ClassWeights[1] = math.NaN() },
		"two sigmoids":     func(m *Model) { m.Probability.A = m.Probability.A[:2] },
		"infinite B":       func(m *Model) { m.Probability.B[0] = math.Inf(1) },
		"wrong coupling":   func(m *Model) { m.Probability.Coupling = "normalize" },
		"unknown coupling": func(m *Model) { m.Probability.Coupling = "votes" },
	} {
		m := multiModel()
		mod(m)
		if err := WriteModel(io.Discard, m); !errors.Is(err, ErrModel) {
			t.Errorf("%s: error %v, want ErrModel", name, err)
		}
	}
}
