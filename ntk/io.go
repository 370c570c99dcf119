package ntk

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// Weight files. A network is stored as one array per layer, named as a
// PyTorch state_dict of nn.Linear layers would be after renaming the
// Sequential indices to layer numbers:
//
//	layer<l>.weight.npy   out×in (PyTorch's nn.Linear orientation): Width×D
//	                      for l = 0, Width×Width for 0 < l < Depth, 1×Width
//	                      for l = Depth
//	layer<l>.bias.npy     1-D, length out; present only when σ_b ≠ 0
//
// either as files in a directory or as members of a .npz archive (a zip of
// .npy files, as numpy.savez writes; stored or deflated members are read).
// float32 and float64 files are accepted and converted to T. σ_w and σ_b
// are not stored: they are hyper-parameters of the parameterisation, given
// again to LoadNetwork. A network trained elsewhere in PyTorch loads
// directly: np.savez("w.npz", **{f"layer{i}.weight": t.numpy() for …}).

// weightKey and biasKey are the array names of layer l (the .npz keys);
// weightName and biasName are their file names.
func weightKey(l int) string  { return fmt.Sprintf("layer%d.weight", l) }
func biasKey(l int) string    { return fmt.Sprintf("layer%d.bias", l) }
func weightName(l int) string { return weightKey(l) + ".npy" }
func biasName(l int) string   { return biasKey(l) + ".npy" }

// Save writes the network's weights to path: a .npz archive if path ends in
// ".npz", else a directory (created if needed) of .npy files. The archive
// is written atomically (temporary file in the same directory, sync,
// rename); in a directory each file is written atomically.
func (net *Network[T]) Save(path string) error {
	if strings.HasSuffix(path, ".npz") {
		return net.saveNpz(path)
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("ntk: save weights: %w", err)
	}
	for l, w := range net.W {
		if err := npy.Write(filepath.Join(path, weightName(l)), w); err != nil {
			return err
		}
		if net.B != nil {
			if err := npy.WriteVector(filepath.Join(path, biasName(l)), net.B[l]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (net *Network[T]) saveNpz(path string) error {
	z, err := npy.CreateNpz(path)
	if err != nil {
		return fmt.Errorf("ntk: save weights: %w", err)
	}
	defer z.Discard()
	for l, w := range net.W {
		if err := npy.WriteNpzMatrix(z, weightKey(l), w); err != nil {
			return fmt.Errorf("ntk: save weights: %w", err)
		}
		if net.B != nil {
			if err := npy.WriteNpzVector(z, biasKey(l), net.B[l]); err != nil {
				return fmt.Errorf("ntk: save weights: %w", err)
			}
		}
	}
	if err := z.Close(); err != nil {
		return fmt.Errorf("ntk: save weights: %w", err)
	}
	return nil
}

// LoadNetwork reads a network saved by Save, or written by other tools in
// the same layout, from a .npz archive or a directory. The depth, width and
// input dimension come from the array shapes, which must chain (Width×D,
// Width×Width, …, 1×Width). Bias files must be present for every layer
// exactly when biasStd ≠ 0.
func LoadNetwork[T linalg.Float](path string, weightStd, biasStd float64) (*Network[T], error) {
	// Layer l's arrays, read from the archive or the directory; a missing
	// one is an error wrapping fs.ErrNotExist.
	var readWeight func(l int) (linalg.Matrix[T], error)
	var readBias func(l int) ([]T, error)
	if strings.HasSuffix(path, ".npz") {
		z, err := npy.OpenNpz(path)
		if err != nil {
			return nil, fmt.Errorf("ntk: load weights %s: %w", path, err)
		}
		defer z.Close()
		readWeight = func(l int) (linalg.Matrix[T], error) { return npy.ReadNpzMatrix[T](z, weightKey(l)) }
		readBias = func(l int) ([]T, error) { return npy.ReadNpzVector[T](z, biasKey(l)) }
	} else {
		readWeight = func(l int) (linalg.Matrix[T], error) { return npy.Read[T](filepath.Join(path, weightName(l))) }
		readBias = func(l int) ([]T, error) { return npy.ReadVector[T](filepath.Join(path, biasName(l))) }
	}
	var ws []linalg.Matrix[T]
	var bs [][]T
	for l := 0; ; l++ {
		w, err := readWeight(l)
		if errors.Is(err, fs.ErrNotExist) && l > 0 {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("ntk: load weights %s: %s: %w", path, weightName(l), err)
		}
		ws = append(ws, w)
		b, err := readBias(l)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if biasStd != 0 {
				return nil, fmt.Errorf("ntk: load weights %s: bias std %v but no %s", path, biasStd, biasName(l))
			}
		case err != nil:
			return nil, fmt.Errorf("ntk: load weights %s: %s: %w", path, biasName(l), err)
		default:
			if biasStd == 0 {
				return nil, fmt.Errorf("ntk: load weights %s: %s present but bias std is 0 (give the σ_b the network was trained with)", path, biasName(l))
			}
			bs = append(bs, b)
		}
		if l > maxDepth {
			return nil, fmt.Errorf("ntk: load weights %s: more than %d layers", path, maxDepth)
		}
	}
	if len(ws) < 2 {
		return nil, fmt.Errorf("ntk: load weights %s: %d layer(s); a network has at least 2 (one hidden layer)", path, len(ws))
	}
	depth := len(ws) - 1
	net, err := newShape[T](ws[0].Cols, ws[0].Rows, depth, weightStd, biasStd)
	if err != nil {
		return nil, fmt.Errorf("ntk: load weights %s: %w", path, err)
	}
	for l, w := range ws {
		out, in := net.layerShape(l)
		if w.Rows != out || w.Cols != in {
			return nil, fmt.Errorf("ntk: load weights %s: %s is %d×%d, want %d×%d (out×in) for a %d→%d×%d→1 network",
				path, weightName(l), w.Rows, w.Cols, out, in, net.D, net.Width, depth)
		}
		net.W[l] = w
		if net.B != nil {
			if len(bs[l]) != out {
				return nil, fmt.Errorf("ntk: load weights %s: %s has %d entries, want %d", path, biasName(l), len(bs[l]), out)
			}
			net.B[l] = bs[l]
		}
		for i, v := range w.Data {
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("ntk: load weights %s: %s element %d is %v", path, weightName(l), i, f)
			}
		}
	}
	return net, nil
}
