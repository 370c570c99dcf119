package reproduce

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/internal/checkpoint"
	"github.com/ntksvm/ntksvm/svm/train"
)

// Table 2's networks take up to hours each at the paper's scale, so each
// width keeps its own state in the entry's directory: a checkpoint of its
// training (nn<width>-e<epochs>.ckpt, written when interrupted and about
// every t2CheckpointPeriod) and, once certified, its rows and notes
// (nn<width>-e<epochs>.json). A resuming run (Env.Resume) takes a finished
// width from its JSON and continues an unfinished one from its checkpoint;
// a fresh run deletes both.

// t2CheckpointPeriod is the wall time between two checkpoints of a
// network's training.
const t2CheckpointPeriod = 10 * time.Minute

// t2WidthResult is what a finished width leaves for a resumed run: its rows,
// its notes and its mean full-test radius (for the ratio rows).
type t2WidthResult struct {
	Rows  []Row    `json:"rows"`
	Notes []string `json:"notes"`
	Full  float64  `json:"full_mean_radius"`
}

func t2StatePath(dir string, width, epochs int, ext string) string {
	return filepath.Join(dir, fmt.Sprintf("nn%d-e%d.%s", width, epochs, ext))
}

// removeT2State deletes the widths' checkpoints and results a previous run
// left in dir.
func removeT2State(dir string) error {
	return output.RemoveMatching(dir, "nn*-e*.ckpt", "nn*-e*.json")
}

// loadT2Width returns the saved result of a width finished by an earlier
// run, or nil when there is none (or it cannot be read: then the width is
// run again).
func loadT2Width(env *Env, width, epochs int) *t2WidthResult {
	if !env.Resume {
		return nil
	}
	path := t2StatePath(env.Dir, width, epochs, "json")
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			env.logf("  NN width %d: %v; training it again", width, err)
		}
		return nil
	}
	var r t2WidthResult
	if err := json.Unmarshal(b, &r); err != nil {
		env.logf("  NN width %d: %s cannot be read (%v); training it again", width, path, err)
		return nil
	}
	env.logf("  NN width %d: finished in an earlier run, loaded from %s", width, path)
	return &r
}

// saveT2Width writes a finished width's result atomically and deletes its
// training checkpoint.
func saveT2Width(env *Env, width, epochs int, r *t2WidthResult) error {
	err := atomicfile.WriteFile(t2StatePath(env.Dir, width, epochs, "json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
	if err != nil {
		return err
	}
	if err := os.Remove(t2StatePath(env.Dir, width, epochs, "ckpt")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// checkpointT2 makes d keep a checkpoint of a width's training in env.Dir,
// written when ctx ends and otherwise at most every t2CheckpointPeriod, and
// when resuming loads the one an earlier run left. It returns the step the
// training continues from (0 for a fresh start) and the function that
// writes a checkpoint handed to the Driver's Recorder (nil without a
// directory), to be asked every step: it writes by time.
func checkpointT2(ctx context.Context, env *Env, d *train.Driver, width, epochs int) (int, func(step int, save func(io.Writer) error) error, error) {
	if env.Dir == "" {
		return 0, nil, nil // no place to keep it
	}
	path := t2StatePath(env.Dir, width, epochs, "ckpt")
	write := checkpoint.File(path)
	last := time.Now()
	save := func(step int, save func(io.Writer) error) error {
		if ctx.Err() == nil && time.Since(last) < t2CheckpointPeriod {
			return nil
		}
		last = time.Now()
		return write(step, save)
	}
	if !env.Resume {
		return 0, save, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return 0, save, nil
	}
	if err := checkpoint.Load(path, d.LoadState); err != nil {
		return 0, nil, err
	}
	step := d.Stats().Steps
	env.logf("  NN width %d: continuing from the checkpoint in %s at step %d", width, path, step)
	return step, save, nil
}
