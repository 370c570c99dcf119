// Package checkpoint keeps a training checkpoint in one file: the sink a
// train.Driver's Recorder hands its checkpoint records to writes each
// checkpoint atomically over the last (internal/atomicfile), so an
// interrupt or a crash while writing leaves the previous checkpoint whole,
// and Load hands the file to a loader such as train.Driver.LoadState. The
// package knows nothing of what a checkpoint holds.
package checkpoint

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// File returns a checkpoint sink (step, and the function that writes the
// checkpoint, as a train.Record's Step and Save) that writes every checkpoint to path, replacing the previous one
// atomically. Errors name the path (the caller's name the step).
func File(path string) func(step int, write func(io.Writer) error) error {
	return FileContext(context.Background(), path)
}

// FileContext is File whose checkpoints are abandoned once ctx is done:
// the write stops at its next call (atomicfile.WriteFileContext), the
// previous checkpoint stays as it was, no temporary file is left, and the
// error wraps ctx's.
func FileContext(ctx context.Context, path string) func(step int, write func(io.Writer) error) error {
	return func(step int, write func(io.Writer) error) error {
		if err := atomicfile.WriteFileContext(ctx, path, false, func(w io.Writer) error {
			bw := bufio.NewWriterSize(w, 1<<20)
			if err := write(bw); err != nil {
				return err
			}
			return bw.Flush()
		}); err != nil {
			// The driver's error names the step; this one adds the file
			// unless the error already names it.
			if strings.Contains(err.Error(), path) {
				return err
			}
			return fmt.Errorf("writing the checkpoint %s: %w", path, err)
		}
		return nil
	}
}

// Load opens the checkpoint at path and hands it to load (e.g.
// train.Driver.LoadState). It fails, naming the path, if the file cannot be
// opened, if load fails, or if load leaves bytes of the file unread.
func Load(path string, load func(r io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	if err := load(br); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", path, err)
		}
		return fmt.Errorf("checkpoint %s: trailing bytes after the checkpoint", path)
	}
	return nil
}
