package ntk

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/linalg"
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

// weightName and biasName are the file names of layer l's arrays.
func weightName(l int) string { return fmt.Sprintf("layer%d.weight.npy", l) }
func biasName(l int) string   { return fmt.Sprintf("layer%d.bias.npy", l) }

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
		if err := linalg.WriteNpy(filepath.Join(path, weightName(l)), w); err != nil {
			return err
		}
		if net.B != nil {
			if err := linalg.WriteNpyVector(filepath.Join(path, biasName(l)), net.B[l]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (net *Network[T]) saveNpz(path string) error {
	err := atomicfile.WriteFile(path, func(f io.Writer) error {
		bw := bufio.NewWriterSize(f, 1<<20)
		zw := zip.NewWriter(bw)
		add := func(name string, shape []int, data []T) error {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
			if err != nil {
				return err
			}
			return encodeNpy(w, shape, data)
		}
		for l, w := range net.W {
			if err := add(weightName(l), []int{w.Rows, w.Cols}, w.Clone().Data); err != nil {
				return err
			}
			if net.B != nil {
				if err := add(biasName(l), []int{len(net.B[l])}, net.B[l]); err != nil {
					return err
				}
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("ntk: save weights %s: %w", path, err)
	}
	return nil
}

// encodeNpy writes data as a little-endian .npy (format 1.0) of the given
// shape.
func encodeNpy[T linalg.Float](w io.Writer, shape []int, data []T) error {
	var zero T
	descr := "<f8"
	if sizeOf(zero) == 4 {
		descr = "<f4"
	}
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = fmt.Sprint(s)
	}
	sh := strings.Join(dims, ", ")
	if len(shape) == 1 {
		sh += ","
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, sh)
	hlen := len(dict) + 1
	hlen += (64 - (10+hlen)%64) % 64
	hdr := make([]byte, 10, 10+hlen)
	copy(hdr, "\x93NUMPY\x01\x00")
	binary.LittleEndian.PutUint16(hdr[8:], uint16(hlen))
	hdr = append(hdr, dict...)
	for len(hdr) < 10+hlen-1 {
		hdr = append(hdr, ' ')
	}
	hdr = append(hdr, '\n')
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	buf := make([]byte, 0, 1<<16)
	for _, v := range data {
		if sizeOf(zero) == 4 {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(float32(v)))
		} else {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(float64(v)))
		}
		if len(buf) >= 1<<16-8 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// LoadNetwork reads a network saved by Save, or written by other tools in
// the same layout, from a .npz archive or a directory. The depth, width and
// input dimension come from the array shapes, which must chain (Width×D,
// Width×Width, …, 1×Width). Bias files must be present for every layer
// exactly when biasStd ≠ 0.
func LoadNetwork[T linalg.Float](path string, weightStd, biasStd float64) (*Network[T], error) {
	var open func(name string) (string, func(), error) // a readable .npy path and its cleanup
	if strings.HasSuffix(path, ".npz") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, fmt.Errorf("ntk: load weights %s: %w", path, err)
		}
		defer zr.Close()
		open = func(name string) (string, func(), error) {
			zf, err := zr.Open(name)
			if err != nil {
				return "", nil, err
			}
			defer zf.Close()
			tmp, err := os.CreateTemp("", "ntksvm-weight-*.npy")
			if err != nil {
				return "", nil, err
			}
			_, err = io.Copy(tmp, zf)
			if cerr := tmp.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(tmp.Name())
				return "", nil, err
			}
			return tmp.Name(), func() { os.Remove(tmp.Name()) }, nil
		}
	} else {
		open = func(name string) (string, func(), error) {
			p := filepath.Join(path, name)
			if _, err := os.Stat(p); err != nil {
				return "", nil, err
			}
			return p, func() {}, nil
		}
	}
	var ws []linalg.Matrix[T]
	var bs [][]T
	for l := 0; ; l++ {
		p, done, err := open(weightName(l))
		if errors.Is(err, fs.ErrNotExist) && l > 0 {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("ntk: load weights %s: %s: %w", path, weightName(l), err)
		}
		w, err := linalg.ReadNpy[T](p)
		done()
		if err != nil {
			return nil, fmt.Errorf("ntk: load weights %s: %s: %w", path, weightName(l), err)
		}
		ws = append(ws, w)
		p, done, err = open(biasName(l))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if biasStd != 0 {
				return nil, fmt.Errorf("ntk: load weights %s: bias std %v but no %s", path, biasStd, biasName(l))
			}
		case err != nil:
			return nil, fmt.Errorf("ntk: load weights %s: %s: %w", path, biasName(l), err)
		default:
			b, err := linalg.ReadNpyVector[T](p)
			done()
			if err != nil {
				return nil, fmt.Errorf("ntk: load weights %s: %s: %w", path, biasName(l), err)
			}
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
