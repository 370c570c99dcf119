package npy

import (
	"bytes"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
)

// FuzzNpz reads arbitrary bytes as a .npz archive and every array in it,
// under a read limit as the commands set one: it must never panic, and
// never allocate an array beyond the limit whatever the archive declares.
func FuzzNpz(f *testing.F) {
	var buf bytes.Buffer
	z := NewNpzWriter(&buf)
	WriteNpzMatrix(z, "w", linalg.New[float64](2, 3))
	WriteNpzVector(z, "b", []float32{1, 2})
	if err := z.Close(); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x03\x04"))
	const limit = 1 << 24
	f.Fuzz(func(t *testing.T, b []byte) {
		defer SetReadLimit(SetReadLimit(limit))
		r, err := NewNpzReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		for _, name := range r.Names() {
			if m, err := ReadNpzMatrix[float64](r, name); err == nil && 8*len(m.Data) > limit {
				t.Fatalf("%s: %d elements read past the limit", name, len(m.Data))
			}
			if v, err := ReadNpzVector[float32](r, name); err == nil && 4*len(v) > limit {
				t.Fatalf("%s: %d elements read past the limit", name, len(v))
			}
		}
	})
}
