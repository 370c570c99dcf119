package reproduce

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Runner runs entries in order and saves each one as it finishes.
type Runner struct {
	Entries []*Entry
	Out     string // the output directory DIR; created if missing
	// Resume loads the entries already finished in Out (at the same scale),
	// all of them before the first one runs, instead of running them again.
	Resume bool
	Env    *Env
	// Machine is written into the report's header.
	Machine Machine
	// Started fires before an entry runs (resumed is true for one loaded
	// from Out), Finished after it is saved. Either may be nil.
	Started  func(e *Entry, resumed bool)
	Finished func(r *Result, resumed bool)
}

// Run is the outcome of a Runner: the results in entry order.
type Run struct {
	Machine Machine   `json:"machine"`
	Scale   Scale     `json:"scale"`
	Results []*Result `json:"results"`
	// Resumed names the experiments loaded from an earlier run.
	Resumed []string `json:"resumed,omitempty"`
	// Failed maps an experiment to its error.
	Failed  map[string]string `json:"failed,omitempty"`
	Wall    float64           `json:"wall_seconds"` // this run's wall time
	Started time.Time         `json:"started"`
	// Unfinished lists, while the run goes on or after it was interrupted,
	// the selected experiments that have no result yet.
	Unfinished []Unfinished `json:"unfinished,omitempty"`
}

// Unfinished is a selected experiment without a result yet.
type Unfinished struct {
	Name  string `json:"name"`
	State string `json:"state"` // "running since 08:00:29 UTC", "waiting" or "interrupted"
}

// setUnfinished lists the entries from entries[i] on that have no result
// in done as unfinished: the first of them in state first, the others
// waiting.
func (run *Run) setUnfinished(entries []*Entry, done []*Result, i int, first string) {
	run.Unfinished = run.Unfinished[:0]
	for k := i; k < len(entries); k++ {
		if done[k] != nil {
			continue
		}
		st := "waiting"
		if len(run.Unfinished) == 0 {
			st = first
		}
		run.Unfinished = append(run.Unfinished, Unfinished{entries[k].Name, st})
	}
}

// setResults sets run.Results to the results in done, in entry order.
func (run *Run) setResults(done []*Result) {
	run.Results = run.Results[:0]
	for _, r := range done {
		if r != nil {
			run.Results = append(run.Results, r)
		}
	}
}

// ErrInterrupted is returned, wrapping the context's error, when the run
// was cancelled; the experiment then running is not saved.
var ErrInterrupted = errors.New("interrupted")

// Run runs every entry. An entry that fails is recorded in Run.Failed and
// the next one runs; the returned error then names every failure. A
// cancelled context stops the run at once with an error wrapping
// ErrInterrupted and the context's error. After each experiment the
// report, report.html and results.json in Out are rewritten.
func (rn *Runner) Run(ctx context.Context) (*Run, error) {
	if rn.Env == nil {
		return nil, errors.New("reproduce: Runner without Env")
	}
	if err := os.MkdirAll(rn.Out, 0o755); err != nil {
		return nil, err
	}
	run := &Run{Machine: rn.Machine, Scale: rn.Env.Scale, Started: time.Now().UTC()}
	start := time.Now()
	// With Resume, every experiment an earlier run finished is loaded
	// first, so the reports written while the others run show them all.
	done := make([]*Result, len(rn.Entries))
	for i, e := range rn.Entries {
		r, err := rn.loadDone(e, filepath.Join(rn.Out, e.Name))
		if err != nil {
			return run, err
		}
		if r != nil {
			done[i] = r
			run.Resumed = append(run.Resumed, e.Name)
		}
	}
	run.setResults(done)
	var failures []error
	interrupted := func(i int, err error) (*Run, error) {
		run.setUnfinished(rn.Entries, done, i, "interrupted")
		run.Wall = time.Since(start).Seconds()
		if werr := WriteReport(rn.Out, run); werr != nil {
			err = fmt.Errorf("%w (report not written: %w)", err, werr)
		}
		return run, err
	}
	for i, e := range rn.Entries {
		if done[i] != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return interrupted(i, fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx)))
		}
		if rn.Started != nil {
			rn.Started(e, false)
		}
		// The report says what is running while it runs (Fig. 1 at the
		// paper's scale takes hours).
		run.setUnfinished(rn.Entries, done, i, "running since "+time.Now().UTC().Format("2006-01-02 15:04:05 UTC"))
		run.Wall = time.Since(start).Seconds()
		if err := WriteReport(rn.Out, run); err != nil {
			return run, err
		}
		r, err := rn.runOne(ctx, e, filepath.Join(rn.Out, e.Name))
		if err != nil {
			if ctx.Err() != nil {
				return interrupted(i, fmt.Errorf("%w during %s: %w", ErrInterrupted, e.Name, context.Cause(ctx)))
			}
			if run.Failed == nil {
				run.Failed = map[string]string{}
			}
			run.Failed[e.Name] = err.Error()
			failures = append(failures, fmt.Errorf("%s: %w", e.Name, err))
			continue
		}
		done[i] = r
		run.setResults(done)
		run.Wall = time.Since(start).Seconds()
		if err := WriteReport(rn.Out, run); err != nil {
			return run, err
		}
		if rn.Finished != nil {
			rn.Finished(r, false)
		}
	}
	run.Unfinished = nil
	run.Wall = time.Since(start).Seconds()
	if err := WriteReport(rn.Out, run); err != nil {
		return run, err
	}
	return run, errors.Join(failures...)
}

// loadDone returns e's result saved in dir by an earlier run at the same
// scale when resuming, or nil to run it (an unreadable result is run again).
func (rn *Runner) loadDone(e *Entry, dir string) (*Result, error) {
	if !rn.Resume {
		return nil, nil
	}
	r, err := LoadResult(dir)
	switch {
	case err == nil && r.Name == e.Name && r.Scale == rn.Env.Scale:
		if rn.Started != nil {
			rn.Started(e, true)
		}
		if err := r.Judge(); err != nil {
			return nil, err
		}
		if rn.Finished != nil {
			rn.Finished(r, true)
		}
		return r, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		rn.Env.logf("%s: the saved result cannot be read (%v); running it again", e.Name, err)
	}
	return nil, nil
}

// runOne runs e with its own directory and saves its result there.
func (rn *Runner) runOne(ctx context.Context, e *Entry, dir string) (*Result, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rn.Env.Dir, rn.Env.Resume = dir, rn.Resume
	t0 := time.Now()
	r, err := e.Run(ctx, rn.Env)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, errors.New("entry returned no result")
	}
	r.Name, r.Title, r.Scale = e.Name, e.Title, rn.Env.Scale
	if r.Paper == "" {
		r.Paper = e.Paper
	}
	r.Wall = max(r.Wall, time.Since(t0).Seconds())
	r.Finished = time.Now().UTC()
	if err := r.Judge(); err != nil {
		return nil, err
	}
	if err := r.Save(dir); err != nil {
		return nil, err
	}
	return r, nil
}

// Estimate is one entry's expected wall time.
type Estimate struct {
	Name string
	Time time.Duration // 0 with Err set
	Err  error         // the entry has no estimate, or timing it failed
	Done bool          // already finished in the output directory (resume)
}

// Estimates times a first step of every entry (Entry.Estimate) and returns
// the expected wall time of each; with Resume the finished ones are marked
// Done and not timed.
func (rn *Runner) Estimates(ctx context.Context) ([]Estimate, error) {
	var es []Estimate
	for _, e := range rn.Entries {
		if err := ctx.Err(); err != nil {
			return es, fmt.Errorf("%w: %w", ErrInterrupted, context.Cause(ctx))
		}
		est := Estimate{Name: e.Name}
		if rn.Resume {
			if r, err := LoadResult(filepath.Join(rn.Out, e.Name)); err == nil && r.Scale == rn.Env.Scale {
				est.Done = true
				es = append(es, est)
				continue
			}
		}
		if e.Estimate == nil {
			est.Err = errors.New("no estimate")
		} else {
			est.Time, est.Err = rn.estimate(ctx, e)
		}
		es = append(es, est)
	}
	return es, nil
}

// estimate runs e's Estimate with a scratch directory as Env.Dir, removed
// afterwards.
func (rn *Runner) estimate(ctx context.Context, e *Entry) (time.Duration, error) {
	if err := os.MkdirAll(rn.Out, 0o755); err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp(rn.Out, ".estimate-"+e.Name+"-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	rn.Env.Dir, rn.Env.Resume, rn.Env.Prev = dir, false, ""
	if rn.Resume {
		rn.Env.Prev = filepath.Join(rn.Out, e.Name)
	}
	defer func() { rn.Env.Prev = "" }()
	return e.Estimate(ctx, rn.Env)
}
