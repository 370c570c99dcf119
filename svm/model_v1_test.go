package svm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"testing"
)

// TestReadModelVersion1 reads model files written by the version 1 writer
// (ntksvm train before the typed metadata; the files in testdata) and
// checks that their string parameters land in the typed fields, and that
// writing them again gives version 2 with the same content.
func TestReadModelVersion1(t *testing.T) {
	for _, tc := range []struct {
		file  string
		check func(m *Model) bool
	}{
		{"v1-svm-exact.model", func(m *Model) bool {
			return m.Machine == "svm" && m.HasBias && m.Train.N == 300 && m.Train.First == 300 && !m.Train.Standardize &&
				m.Fit.C == 15.625 && m.Fit.Iterations == 87 && m.Fit.SupportVectors == 37 && m.Fit.RelGap > 0
		}},
		{"v1-krr-standardize.model", func(m *Model) bool {
			return m.Machine == "krr" && m.Train.First == 2000 && m.Train.Standardize && m.Fit.RidgeShift == 0.0005
		}},
		{"v1-svm-subgradient.model", func(m *Model) bool {
			return m.Solver == "subgradient" && m.Train.First == 3000 && m.Fit.Batch == 64 && m.Fit.LR == 1 &&
				m.Fit.Steps == 141 && m.Fit.Decay == "lazy" && m.Fit.Seed == 6 && !m.Fit.Pegasos && m.Fit.Objective > 0
		}},
	} {
		b, err := os.ReadFile("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(b[8:]); v != 1 {
			t.Fatalf("%s: version %d, want a version 1 file", tc.file, v)
		}
		m, err := ReadModel(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if !tc.check(m) {
			t.Errorf("%s: read %+v (train %+v, fit %+v)", tc.file, m, m.Train, m.Fit)
		}
		var buf bytes.Buffer
		if err := WriteModel(&buf, m); err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(buf.Bytes()[8:]); v != ModelVersion {
			t.Errorf("rewritten as version %d", v)
		}
		m2, err := ReadModel(&buf)
		if err != nil || m2.Train != m.Train || m2.Fit != m.Fit || len(m2.Alpha) != len(m.Alpha) {
			t.Errorf("%s: round trip as version %d: %v", tc.file, ModelVersion, err)
		}
	}
	// A version the reader does not know is refused by number.
	b, _ := os.ReadFile("testdata/v1-svm-exact.model")
	binary.LittleEndian.PutUint32(b[8:], 3)
	if _, err := ReadModel(bytes.NewReader(b)); !errors.Is(err, ErrModel) {
		t.Errorf("version 3: %v", err)
	}
}
