package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/cmd/internal/tiles"
	"github.com/ntksvm/ntksvm/internal/membudget"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/ntk"
	"github.com/ntksvm/ntksvm/svm"
	"github.com/ntksvm/ntksvm/svm/dataset"
)

// "ntksvm kernel --tile i/N --out DIR" computes one block of a kernel as a
// job-array task; "ntksvm kernel --collect DIR --out K.npy" checks the
// blocks and writes the whole kernel, bit for bit what "ntksvm kernel"
// writes in one process. "ntksvm train --tiles DIR" fits on them.

// tileFlags are the flags of "ntksvm kernel" that split a kernel into
// tiles.
type tileFlags struct{ tile, collect string }

func (t *tileFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&t.tile, "tile", "", "compute tile `i/N` of the kernel (0 ≤ i < N; auto/N takes i from $SLURM_ARRAY_TASK_ID "+
		"or $JOB_COMPLETION_INDEX) into the directory --out; a tile already there and verified is left as it is")
	fs.StringVar(&t.collect, "collect", "", "check every tile in `DIR` (against --data and the kernel flags when given) "+
		"and write the whole kernel to --out K.npy")
}

// on reports whether a tile flag is given.
func (t *tileFlags) on() bool { return t.tile != "" || t.collect != "" }

// runKernelTiles runs "ntksvm kernel" with --tile or --collect; set holds
// the flags given on the command line.
func runKernelTiles(ctx context.Context, e *env, d *dataFlags, k *kernelFlags, t *tileFlags, test, out, memCap string, set map[string]bool) error {
	if t.tile != "" && t.collect != "" {
		return usageError("--tile and --collect: give one (the tasks, then the collect step)")
	}
	if out == "" {
		return usageError("--out is required (the tile directory with --tile, K.npy with --collect)")
	}
	if t.collect != "" {
		return collectTiles(e, d, k, t.collect, test, out, memCap, set)
	}
	i, n, err := tiles.ParseTile(t.tile, os.Getenv)
	if err != nil {
		return usageError("--tile %v", err)
	}
	m, x, z, err := tilePlan(e, d, k, test, n)
	if err != nil {
		return err
	}
	if err := tiles.Prepare(out, m); err != nil {
		return err
	}
	if m.Kernel.Float32 {
		return computeTile[float32](ctx, e, out, m, i, x, z)
	}
	return computeTile[float64](ctx, e, out, m, i, x, z)
}

// tilePlan checks the data and kernel flags, loads the inputs and returns
// the plan of n tiles of their kernel.
func tilePlan(e *env, d *dataFlags, k *kernelFlags, test string, n int) (*tiles.Manifest, *dataset.Dataset, *dataset.Dataset, error) {
	if err := d.check("--data", d.data); err != nil {
		return nil, nil, nil, err
	}
	spec, err := k.spec()
	if err != nil {
		return nil, nil, nil, err
	}
	d.test = test
	x, z, err := d.openPair(e)
	if err != nil {
		return nil, nil, nil, err
	}
	train := tiles.Data{N: x.X.Rows, D: x.X.Cols, SHA256: svm.InputsSHA256(x.X)}
	var zd *tiles.Data
	if z != nil {
		zd = &tiles.Data{N: z.X.Rows, D: z.X.Cols, SHA256: svm.InputsSHA256(z.X)}
	}
	m, err := tiles.NewManifest(spec, train, zd, n)
	if err != nil {
		return nil, nil, nil, usageError("--tile: %v", err)
	}
	return m, x, z, nil
}

func computeTile[T linalg.Float](ctx context.Context, e *env, dir string, m *tiles.Manifest, i int, xs, zs *dataset.Dataset) error {
	x := linalg.Convert[T](xs.X)
	var z *linalg.Matrix[T]
	if zs != nil {
		zm := linalg.Convert[T](zs.X)
		z = &zm
	}
	b := m.Blocks[i]
	what := fmt.Sprintf("tile %d/%d of %s %s: rows %d…%d × columns 0…%d", i, m.Tiles, strings.ToUpper(m.Kernel.Kind.String()),
		m.What(), b.Rows[0], b.Rows[1]-1, b.Cols-1)
	if _, err := tiles.Verify(dir, m, i); err == nil {
		fmt.Fprintf(e.stdout, "%s: already in %s and verified; nothing to do\n", what, dir)
		return nil
	}
	pr := progress.New(e.stderr, e.isTerminal, fmt.Sprintf("tile %d/%d rows", i, m.Tiles), int64(b.Rows[1]-b.Rows[0]))
	res, err := tiles.Compute(ctx, dir, m, i, x, z, ntk.Options{Progress: func(d, _ int) { pr.Set(int64(d)) }})
	pr.Done()
	if err != nil {
		return err
	}
	if res.Skipped { // finished by another run of this task meanwhile
		fmt.Fprintf(e.stdout, "%s: already in %s and verified; nothing to do\n", what, dir)
		return nil
	}
	fmt.Fprintf(e.stdout, "%s: computed in %.2f s, written and checksummed in %.2f s (%d bytes, %s)\n",
		what, res.Compute.Seconds(), res.Write.Seconds(), res.Record.Bytes, res.Record.File)
	return nil
}

// collectTiles runs "ntksvm kernel --collect DIR --out K.npy".
func collectTiles(e *env, d *dataFlags, k *kernelFlags, dir, test, out, memCap string, set map[string]bool) error {
	if !strings.HasSuffix(out, ".npy") {
		return usageError("--out %q: want a .npy file name", out)
	}
	if err := checkOutputs(outPath("--out", out), append(inputs("--data", d.data), inputs("--test", test)...)...); err != nil {
		return err
	}
	capBytes, err := membudget.ParseSize(memCap)
	if err != nil {
		return usageError("--mem-cap: %v", err)
	}
	m, err := tiles.Load(dir)
	if err != nil {
		return err
	}
	if err := checkCollectAgainst(e, d, k, dir, test, m, set); err != nil {
		return err
	}
	var s tiles.Summary
	if m.Kernel.Float32 {
		s, err = tiles.Collect[float32](dir, m, out, capBytes)
	} else {
		s, err = tiles.Collect[float64](dir, m, out, capBytes)
	}
	if err != nil {
		return err
	}
	if len(s.Kernels) > 1 {
		fmt.Fprintf(e.stderr, "warning: the tiles were computed with different SIMD kernel sets or cache sizes (%s): the kernel equals a "+
			"single-process one to rounding, not bit for bit (run the tasks on one kind of node, or set NTKSVM_SIMD alike)\n", strings.Join(s.Kernels, "; "))
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d×%d %s %s from %d verified tiles (%d bytes; the tasks took %.1f s in all)\n",
		out, m.Rows(), m.Train.N, m.Kernel, m.What(), s.Tiles, s.Bytes, s.Seconds)
	return nil
}

// checkCollectAgainst checks the plan m of dir against --data, --test and
// the kernel flags when --data is given.
func checkCollectAgainst(e *env, d *dataFlags, k *kernelFlags, dir, test string, m *tiles.Manifest, set map[string]bool) error {
	if d.data == "" {
		for _, f := range []string{"kernel", "depth", "sigma-w", "sigma-b", "precision", "test", "first"} {
			if set[f] {
				return usageError("--%s with --collect needs --data: the tiles are checked against both, or against neither", f)
			}
		}
		return nil
	}
	want, _, _, err := tilePlan(e, d, k, test, m.Tiles)
	if err != nil {
		return err
	}
	if diff := tiles.Diff(m, want); diff != "" {
		return fmt.Errorf("%s holds the tiles of another computation: %s", dir, diff)
	}
	return nil
}

// gramFromTiles fills gram with the training Gram assembled from the tile
// directory dir, whose plan must be this kernel of the training inputs
// ref names.
func gramFromTiles[T linalg.Float](e *env, dir string, spec ntk.Spec, ref svm.TrainRef, gram linalg.Matrix[T]) error {
	m, err := tiles.Load(dir)
	if err != nil {
		return fmt.Errorf("--tiles: %w", err)
	}
	want, err := tiles.NewManifest(spec, tiles.Data{N: ref.N, D: ref.D, SHA256: ref.SHA256}, nil, m.Tiles)
	if err != nil {
		return fmt.Errorf("--tiles: %w", err)
	}
	if diff := tiles.Diff(m, want); diff != "" {
		return fmt.Errorf("--tiles %s holds the tiles of another computation: %s", dir, diff)
	}
	s, err := tiles.Assemble(dir, m, gram)
	if err != nil {
		return fmt.Errorf("--tiles: %w", err)
	}
	fmt.Fprintf(e.stderr, "Gram: %d×%d %s from %d verified tiles in %s\n", gram.Rows, gram.Cols, spec.Type(), s.Tiles, dir)
	return nil
}
