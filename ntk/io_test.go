package ntk

import (
	"archive/zip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	for _, sb := range []float64{0, 0.3} {
		a, err := NewNetwork[float32](5, 6, 3, 1.2, sb, 42)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"w.npz", "wdir"} {
			path := filepath.Join(dir, name)
			if err := a.Save(path); err != nil {
				t.Fatal(err)
			}
			for _, as64 := range []bool{false, true} {
				var check func() error
				if as64 {
					b, err := LoadNetwork[float64](path, 1.2, sb)
					if err != nil {
						t.Fatal(err)
					}
					check = func() error {
						for l := range a.W {
							for i, v := range a.W[l].Data {
								if float64(v) != b.W[l].Data[i] {
									t.Fatalf("%s sb=%v f64: W[%d][%d] %v != %v", name, sb, l, i, b.W[l].Data[i], v)
								}
							}
						}
						return nil
					}
				} else {
					b, err := LoadNetwork[float32](path, 1.2, sb)
					if err != nil {
						t.Fatal(err)
					}
					if b.D != 5 || b.Width != 6 || b.Depth != 3 || (sb != 0) != (b.B != nil) {
						t.Fatalf("%s: loaded shape %d %d %d", name, b.D, b.Width, b.Depth)
					}
					check = func() error {
						for l := range a.W {
							for i, v := range a.W[l].Data {
								if v != b.W[l].Data[i] {
									t.Fatalf("%s sb=%v: W[%d][%d] %v != %v", name, sb, l, i, b.W[l].Data[i], v)
								}
							}
							if sb != 0 {
								for i, v := range a.B[l] {
									if v != b.B[l][i] {
										t.Fatalf("%s: B[%d][%d] differs", name, l, i)
									}
								}
							}
						}
						return nil
					}
				}
				check()
			}
			// Bias files exactly when σ_b ≠ 0: a mismatch is an error.
			other := 0.7
			if sb != 0 {
				other = 0
			}
			if _, err := LoadNetwork[float32](path, 1.2, other); err == nil {
				t.Errorf("%s: saved with σ_b=%v, loaded with %v: no error", name, sb, other)
			}
		}
	}
	// Errors: missing, bad chain.
	if _, err := LoadNetwork[float32](filepath.Join(dir, "nothing.npz"), 1, 0); err == nil {
		t.Error("missing archive: no error")
	}
	bad := filepath.Join(dir, "bad")
	os.MkdirAll(bad, 0o755)
	npy.Write(filepath.Join(bad, "layer0.weight.npy"), linalg.New[float32](4, 3))
	npy.Write(filepath.Join(bad, "layer1.weight.npy"), linalg.New[float32](1, 5))
	if _, err := LoadNetwork[float32](bad, 1, 0); err == nil {
		t.Error("shapes that do not chain: no error")
	}
}

// TestLoadDeflatedNpz loads an archive as numpy.savez_compressed writes it
// (deflated members), read member by member without temporary files.
func TestLoadDeflatedNpz(t *testing.T) {
	a, err := NewNetwork[float64](3, 4, 2, 1, 0.5, 9)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "c.npz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for l := range a.W {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: weightName(l), Method: zip.Deflate})
		if err := npy.WriteTo(w, a.W[l]); err != nil {
			t.Fatal(err)
		}
		w, _ = zw.CreateHeader(&zip.FileHeader{Name: biasName(l), Method: zip.Deflate})
		if err := npy.WriteVectorTo(w, a.B[l]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := LoadNetwork[float64](path, 1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	for l := range a.W {
		if !slices.Equal(a.W[l].Data, b.W[l].Data) || !slices.Equal(a.B[l], b.B[l]) {
			t.Fatalf("layer %d differs", l)
		}
	}
}
