package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ntksvm/ntksvm/internal/checkpoint"
	"github.com/ntksvm/ntksvm/internal/testhold"
	"github.com/ntksvm/ntksvm/svm/classify"
)

// checkpointEvery is the least time between two writes of the
// checkpoint while a fit at scale runs: the first state is written at
// once, later ones when this much time has passed since the last write
// (and the latest on an interrupt or an error).
const checkpointEvery = 30 * time.Second

// checkpointFlags are "ntksvm cv"'s --checkpoint and --resume: the
// progress of a fit at scale kept in a file and continued from it.
type checkpointFlags struct {
	path   string
	resume bool
	state  *classify.ScaleState // read from path (--resume)
	last   *classify.ScaleState // the fit's latest state
	saved  *classify.ScaleState // the state path holds
	when   time.Time            // when path was last written
	ctx    context.Context      // the command's, for the test hook of save
}

func (k *checkpointFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&k.path, "checkpoint", "", "keep the progress of a fit at scale (past --mem) in `FILE`: written after the first "+
		"finished sub-problem, CG iteration or EigenPro epoch, then at most every 30 s, and on Ctrl-C; removed once the fit is done and the model written")
	fs.BoolVar(&k.resume, "resume", false, "continue the fit at scale from --checkpoint FILE (same data and flags but --threads; "+
		"without --mem, with the interrupted run's budget); a checkpoint of another fit is refused, naming what differs")
}

// load checks the flags and, with --resume, reads the checkpoint, before
// any data is read; a checkpoint is not overwritten without --resume.
func (k *checkpointFlags) load(tasks bool) error {
	switch {
	case k.path == "" && k.resume:
		return usageError("--resume needs --checkpoint FILE")
	case k.path == "":
		return nil
	case tasks:
		return usageError("--checkpoint: an array task or --collect does not fit at scale")
	}
	_, err := os.Stat(k.path)
	switch {
	case !k.resume && err == nil:
		return usageError("--checkpoint %s exists: add --resume to continue from it, or remove it", k.path)
	case k.resume && errors.Is(err, os.ErrNotExist):
		return usageError("--resume: no checkpoint %s", k.path)
	case !k.resume:
		return nil
	}
	return checkpoint.Load(k.path, func(r io.Reader) (err error) {
		k.state, err = classify.ReadScaleState(r)
		return err
	})
}

// budget returns the memory budget of the fit resumed, or 0.
func (k *checkpointFlags) budget() int64 {
	if k.state == nil {
		return 0
	}
	return k.state.Spec.Budget
}

// wire hands the checkpoint to the fit o plans (route) and says what is
// resumed.
func (k *checkpointFlags) wire(e *env, o *classify.Options, route classify.Route) {
	if k.path == "" {
		return
	}
	if route == classify.RouteDense && k.state == nil {
		fmt.Fprintf(e.stderr, "--checkpoint: the fit runs on the dense Gram, which is not checkpointed\n")
		return
	}
	o.Checkpoint = k.save
	k.ctx = e.ctx
	if k.state != nil {
		o.Resume = k.state
		k.saved = k.state
		fmt.Fprintf(e.stderr, "resuming: %s (%s)\n", describeState(k.state), k.path)
	}
}

// describeState says how far the fit of s got.
func describeState(s *classify.ScaleState) string {
	switch s.Route() {
	case classify.RouteFalkon:
		return fmt.Sprintf("Falkon at CG iteration %d", s.Done)
	case classify.RouteEigenPro:
		return fmt.Sprintf("EigenPro after epoch %d of %d", s.Done, s.Total)
	}
	return fmt.Sprintf("%d of %d sub-problems done", s.Done, s.Total)
}

// save is the fit's Checkpoint: it keeps the state and writes it when
// due. A test can hold the process once the first is written (testhold's
// phase "checkpoint").
func (k *checkpointFlags) save(s *classify.ScaleState) error {
	k.last = s
	if !k.when.IsZero() && time.Since(k.when) < checkpointEvery {
		return nil
	}
	if err := k.write(); err != nil {
		return err
	}
	testhold.Context(k.ctx, "checkpoint").Err()
	return nil
}

// write writes the latest state atomically. It is not abandoned on an
// interrupt: the state is small and is what the interrupt keeps.
func (k *checkpointFlags) write() error {
	if err := checkpoint.FileContext(context.Background(), k.path)(k.last.Done, k.last.Save); err != nil {
		return err
	}
	k.saved, k.when = k.last, time.Now()
	return nil
}

// stopped writes the latest state after the fit stopped on err, if it
// was not written yet, and says how to continue.
func (k *checkpointFlags) stopped(e *env, err error) error {
	if k.last == nil {
		return err
	}
	if k.saved != k.last {
		if werr := k.write(); werr != nil {
			return fmt.Errorf("%w (and the checkpoint: %v)", err, werr)
		}
	}
	fmt.Fprintf(e.stderr, "checkpoint %s: %s; continue with --resume\n", k.path, describeState(k.saved))
	return err
}

// done removes the checkpoint of a finished fit.
func (k *checkpointFlags) done(e *env) {
	if k.saved == nil {
		return
	}
	if err := os.Remove(k.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(e.stderr, "warning: the checkpoint %s of the finished fit stays: %v\n", k.path, err)
		return
	}
	fmt.Fprintf(e.stderr, "removed the checkpoint %s: the fit is done\n", k.path)
}
