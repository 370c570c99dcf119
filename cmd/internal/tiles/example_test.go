package tiles_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/cmd/internal/tiles"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
)

// Three tasks compute the bands of a Gram; a fourth collects them into the
// matrix one process computes.
func Example() {
	x := linalg.New[float64](300, 4)
	for i := range x.Data {
		x.Data[i] = float64(i%7) - 3
	}
	spec := ntk.Spec{Kind: ntk.KindNTK, Depth: 1, WeightStd: 1}
	m, err := tiles.NewManifest(spec, tiles.Data{N: x.Rows, D: x.Cols, SHA256: svm.InputsSHA256(x)}, nil, 3)
	if err != nil {
		log.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "tiles")
	defer os.RemoveAll(dir)
	if err := tiles.Prepare(dir, m); err != nil {
		log.Fatal(err)
	}
	for i, b := range m.Blocks { // on a cluster: one array task each
		if _, err := tiles.Compute(context.Background(), dir, m, i, x, nil, ntk.Options{}); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("tile %d: rows %d…%d\n", i, b.Rows[0], b.Rows[1]-1)
	}
	out := filepath.Join(dir, "K.npy")
	if _, err := tiles.Collect[float64](dir, m, out, 0); err != nil {
		log.Fatal(err)
	}
	k, _ := npy.Read[float64](out)
	want, _ := ntk.Gram(context.Background(), spec, x, ntk.Options{})
	same := true
	for i := range k.Data {
		same = same && k.Data[i] == want.Data[i]
	}
	fmt.Println("bit for bit the single-process Gram:", same)
	// Output:
	// tile 0: rows 0…127
	// tile 1: rows 128…255
	// tile 2: rows 256…299
	// bit for bit the single-process Gram: true
}
