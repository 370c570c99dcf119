package tiles

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// Summary describes the verified blocks of a tile directory.
type Summary struct {
	Tiles   int
	Bytes   int64    // of the block files
	Seconds float64  // the tasks' compute and write time, summed
	Kernels []string // the SIMD kernel sets and cache sizes that computed them, sorted
}

// summarize returns the Summary of verified records.
func summarize(recs []*Record) Summary {
	s := Summary{Tiles: len(recs)}
	for _, r := range recs {
		s.Bytes += r.Bytes
		s.Seconds += r.Seconds
		if k := r.Kernels + " (" + r.Caches + ")"; !slices.Contains(s.Kernels, k) {
			s.Kernels = append(s.Kernels, k)
		}
	}
	slices.Sort(s.Kernels)
	return s
}

// Assemble verifies every block of m in dir and writes the whole kernel
// into dst (m.Rows() × m.Train.N): for the Gram, the blocks' lower
// triangles mirrored onto the upper one, as ntk.FillGram mirrors them.
func Assemble[T linalg.Float](dir string, m *Manifest, dst linalg.Matrix[T]) (Summary, error) {
	recs, err := VerifyAll(dir, m)
	if err != nil {
		return Summary{}, err
	}
	if dst.Rows != m.Rows() || dst.Cols != m.Train.N {
		return Summary{}, fmt.Errorf("%w: tiles: %s is %d×%d, the destination %d×%d", linalg.ErrShape, m.What(), m.Rows(), m.Train.N, dst.Rows, dst.Cols)
	}
	blocks, err := open[T](dir, m)
	if err != nil {
		return Summary{}, err
	}
	defer closeAll(blocks)
	fill(m, blocks, dst, 0, dst.Rows)
	return summarize(recs), nil
}

// Collect verifies every block of m in dir and writes the whole kernel to
// path as a 2-D .npy file of T, atomically, holding at most memCap bytes of
// it in memory at once (memCap ≤ 0: no cap; the blocks are memory-mapped).
func Collect[T linalg.Float](dir string, m *Manifest, path string, memCap int64) (Summary, error) {
	recs, err := VerifyAll(dir, m)
	if err != nil {
		return Summary{}, err
	}
	blocks, err := open[T](dir, m)
	if err != nil {
		return Summary{}, err
	}
	defer closeAll(blocks)
	rows, n := m.Rows(), m.Train.N
	var zero T
	size := int64(npy.Float64.Size())
	if any(zero) == any(float32(0)) {
		size = int64(npy.Float32.Size())
	}
	step := rows
	if memCap > 0 {
		step = int(min(int64(rows), memCap/(int64(n)*size)))
		if step < 1 {
			return Summary{}, fmt.Errorf("memory cap %d B is below one row of the kernel (%d B)", memCap, int64(n)*size)
		}
	}
	dtype := npy.Float64
	if size == 4 {
		dtype = npy.Float32
	}
	w, err := npy.NewWriter[T](path, dtype, rows, n)
	if err != nil {
		return Summary{}, err
	}
	defer w.Discard()
	buf := linalg.New[T](min(step, rows), n)
	for a := 0; a < rows; a += step {
		b := min(a+step, rows)
		part := buf.Slice(0, b-a, 0, n)
		fill(m, blocks, part, a, b)
		if err := w.WriteRows(part); err != nil {
			return Summary{}, err
		}
	}
	return summarize(recs), w.Close()
}

// open memory-maps (or reads) every block of m.
func open[T linalg.Float](dir string, m *Manifest) ([]*npy.MappedMatrix[T], error) {
	var blocks []*npy.MappedMatrix[T]
	for _, b := range m.Blocks {
		mm, err := npy.OpenMmap[T](filepath.Join(dir, b.File))
		if err == nil && (mm.Rows != b.Rows[1]-b.Rows[0] || mm.Cols != b.Cols) {
			err = fmt.Errorf("%s is %d×%d, want %d×%d", b.File, mm.Rows, mm.Cols, b.Rows[1]-b.Rows[0], b.Cols)
			mm.Close()
		}
		if err != nil {
			closeAll(blocks)
			return nil, &BlockError{Index: b.Index, Err: err}
		}
		blocks = append(blocks, mm)
	}
	return blocks, nil
}

func closeAll[T linalg.Float](blocks []*npy.MappedMatrix[T]) {
	for _, b := range blocks {
		b.Close()
	}
}

// fill writes rows [a, b) of the whole kernel into dst (b−a rows). All the
// rows at once (a Gram's upper triangle then comes from linalg.MirrorLower,
// a copy in cache-sized tiles) or a band of them (its upper triangle read
// from the later blocks' columns).
func fill[T linalg.Float](m *Manifest, blocks []*npy.MappedMatrix[T], dst linalg.Matrix[T], a, b int) {
	whole := a == 0 && b == m.Rows()
	for t, blk := range m.Blocks {
		r0, r1 := blk.Rows[0], blk.Rows[1]
		src := blocks[t].Matrix
		// The block's own rows within [a, b).
		for i := max(a, r0); i < min(b, r1); i++ {
			if m.Test != nil {
				copy(dst.Row(i-a), src.Row(i-r0))
			} else {
				copy(dst.Row(i - a)[:i+1], src.Row(i - r0)[:i+1])
			}
		}
		if m.Test != nil || whole {
			continue
		}
		// The upper triangle of rows [a, b): K[i, j] = K[j, i] for the
		// block's rows j > i.
		for j := max(a+1, r0); j < r1; j++ {
			row := src.Row(j - r0)
			for i := a; i < min(b, j); i++ {
				dst.Data[(i-a)*dst.Stride+j] = row[i]
			}
		}
	}
	if m.Test == nil && whole {
		linalg.MirrorLower(dst, 0, b, 0, b)
	}
}
