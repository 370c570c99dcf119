package tiles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/linalg/npy"
	"github.com/ntksvm/ntksvm/ntk"
)

// Result is what Compute did.
type Result struct {
	Block   Block
	Skipped bool // the block was already there and verified
	Record  *Record
	Compute time.Duration // computing the block's values
	Write   time.Duration // writing and checksumming the .npy and its record
}

// Compute makes sure block i of the plan m is in dir: if its files exist
// and verify it does nothing; otherwise it computes the block from the
// inputs x (and z for a cross kernel) and writes the .npy and its record,
// each atomically. T must be m's element type, and the inputs those m
// names (Prepare and the caller's hashes check that). o.Progress reports
// rows of the block.
func Compute[T linalg.Float](ctx context.Context, dir string, m *Manifest, i int, x linalg.Matrix[T], z *linalg.Matrix[T], o ntk.Options) (*Result, error) {
	if i < 0 || i >= len(m.Blocks) {
		return nil, fmt.Errorf("tile %d of %d: no such tile", i, len(m.Blocks))
	}
	b := m.Blocks[i]
	if rec, err := Verify(dir, m, i); err == nil {
		return &Result{Block: b, Skipped: true, Record: rec}, nil
	}
	if (m.Test == nil) != (z == nil) || x.Rows != m.Train.N || (z != nil && z.Rows != m.Test.N) {
		return nil, fmt.Errorf("tiles: inputs of the wrong shape for %s", dir) // the caller's wiring
	}
	t0 := time.Now()
	k := linalg.New[T](b.Rows[1]-b.Rows[0], b.Cols)
	var err error
	if z == nil {
		err = ntk.FillGramRows(ctx, m.Kernel, x, o, b.Rows[0], b.Rows[1], k)
	} else {
		err = ntk.FillCross(ctx, m.Kernel, z.Slice(b.Rows[0], b.Rows[1], 0, z.Cols), x, o, k)
	}
	if err != nil {
		return nil, err
	}
	res := &Result{Block: b, Compute: time.Since(t0)}
	t1 := time.Now()
	if res.Record, err = write(ctx, dir, m, b, k); err != nil {
		return nil, err
	}
	res.Record.Seconds = time.Since(t0).Seconds()
	if err := writeRecord(dir, res.Record); err != nil {
		return nil, err
	}
	res.Write = time.Since(t1)
	return res, nil
}

// write writes block b's values k as its .npy file, atomically, and
// returns its record (without the time).
func write[T linalg.Float](ctx context.Context, dir string, m *Manifest, b Block, k linalg.Matrix[T]) (*Record, error) {
	h := sha256.New()
	var n int64
	err := atomicfile.WriteFile(filepath.Join(dir, b.File), func(w io.Writer) error {
		cw := &countWriter{w: io.MultiWriter(w, h)}
		var out io.Writer = cw
		if marker := os.Getenv(HoldEnv); marker != "" {
			var zero T
			half := int64(k.Rows) * int64(k.Cols) * int64(unsafe.Sizeof(zero)) / 2
			out = &holdWriter{w: cw, at: max(half, 1), hold: holdHere(ctx, marker)}
		}
		err := npy.WriteTo(out, k)
		n = cw.n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tile %d: %w", b.Index, err)
	}
	host, _ := os.Hostname()
	return &Record{Format: Format, Manifest: m.ID(), Index: b.Index, Rows: b.Rows, Cols: b.Cols, File: b.File,
		Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil)), Kernels: asm.Implementation(), Caches: caches(), CPU: cpuid.CPU.BrandName,
		Host: host}, nil
}

// writeRecord writes r beside its block, atomically: from then on the
// block counts as done.
func writeRecord(dir string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, recordName(r.Index)), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// caches describes the cache sizes that linalg's GEMM blocking is derived
// from: with the kernel set, what makes two machines' products bit for bit
// the same.
func caches() string {
	c := &cpuid.CPU.Cache
	return fmt.Sprintf("L1d %d, L2 %d, L3 %d bytes", c.L1D, c.L2, c.L3)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
