package ntk

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadNetwork reads arbitrary bytes as a network's .npz weights
// archive (certify --net): LoadNetwork must never panic nor allocate what
// the archive merely declares, and a network it accepts has chained
// shapes.
func FuzzLoadNetwork(f *testing.F) {
	dir := f.TempDir()
	for i, sb := range []float64{0, 0.5} {
		net, err := NewNetwork[float64](3, 4, 2, 1, sb, uint64(i))
		if err != nil {
			f.Fatal(err)
		}
		p := filepath.Join(dir, "seed.npz")
		if err := net.Save(p); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, i == 1)
	}
	path := filepath.Join(dir, "w.npz")
	f.Fuzz(func(t *testing.T, b []byte, bias bool) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		sb := 0.0
		if bias {
			sb = 0.5
		}
		net, err := LoadNetwork[float64](path, 1, sb)
		if err != nil {
			return
		}
		for l := 1; l < len(net.W); l++ {
			if net.W[l].Cols != net.W[l-1].Rows {
				t.Fatalf("layer %d is %d×%d after a layer of %d rows", l, net.W[l].Rows, net.W[l].Cols, net.W[l-1].Rows)
			}
		}
	})
}
