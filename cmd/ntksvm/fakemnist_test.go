package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ntksvm/ntksvm/mnist"
)

// fakeMNISTSized writes a non-canonical MNIST of nTrain and nTest images
// of side×side random pixels, labelled 0 and 1 alternately, into a new
// directory (read with --allow-noncanonical). seed varies the pixels.
func fakeMNISTSized(t *testing.T, nTrain, nTest, side int, seed uint64) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 17))
	for _, s := range []struct {
		prefix string
		n      int
	}{{"train", nTrain}, {"t10k", nTest}} {
		pix := make([]byte, s.n*side*side)
		for i := range pix {
			pix[i] = byte(rng.IntN(256))
		}
		labels := make([]byte, s.n)
		for i := range labels {
			labels[i] = byte(i % 2)
		}
		imgs := mnist.EncodeIDX([]uint32{uint32(s.n), uint32(side), uint32(side)}, pix)
		if err := os.WriteFile(filepath.Join(dir, s.prefix+"-images-idx3-ubyte"), imgs, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.prefix+"-labels-idx1-ubyte"), mnist.EncodeIDX([]uint32{uint32(s.n)}, labels), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
