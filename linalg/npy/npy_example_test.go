package npy_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

func ExampleNewWriter() {
	dir, _ := os.MkdirTemp("", "npy")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "gram.npy")

	// Write a 4×3 matrix two rows at a time, stored as float32.
	w, err := npy.NewWriter[float64](path, npy.Float32, 4, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Discard() // no-op after a successful Close
	for i := 0; i < 4; i += 2 {
		tile := linalg.New[float64](2, 3)
		for r := range 2 {
			for c := range 3 {
				tile.Set(r, c, float64(10*(i+r)+c))
			}
		}
		if err := w.WriteRows(tile); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := w.Close(); err != nil { // the file appears only now
		fmt.Println(err)
		return
	}

	m, err := npy.Read[float64](path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Rows, m.Cols, m.Row(3))
	// Output: 4 3 [30 31 32]
}

func ExampleNewNpzWriter() {
	// An archive in memory, as numpy.savez(buf, w=..., b=...) writes it.
	var buf bytes.Buffer
	z := npy.NewNpzWriter(&buf)
	w, _ := linalg.FromSlice(2, 2, []float32{1, 2, 3, 4})
	npy.WriteNpzMatrix(z, "w", w)
	npy.WriteNpzVector(z, "b", []float32{0.5, -0.5})
	if err := z.Close(); err != nil {
		fmt.Println(err)
		return
	}

	r, err := npy.NewNpzReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := npy.ReadNpzMatrix[float64](r, "w")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Names(), m.Row(1))
	// Output: [b w] [3 4]
}
