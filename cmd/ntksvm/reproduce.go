package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/reproduce"
	"github.com/ntksvm/ntksvm/linalg"
	"github.com/ntksvm/ntksvm/mnist"
)

// reproduceOpts are the parsed flags of ntksvm reproduce.
type reproduceOpts struct {
	scale   reproduce.Scale
	entries []*reproduce.Entry
	out     string
	resume  bool
	mnist   string
	noFetch bool
	table2  reproduce.Table2Options
}

// dataError is a missing-data failure: exit status 2, printed as is.
type dataError struct{ err error }

func (d dataError) Error() string   { return d.err.Error() }
func (d dataError) Unwrap() []error { return []error{d.err, errUsage} }

func runReproduce(ctx context.Context, e *env, args []string) error {
	o, err := parseReproduce(e, args)
	if err != nil {
		return err
	}
	rn := &reproduce.Runner{
		Entries: o.entries, Out: o.out, Resume: o.resume, Machine: reproduce.ThisMachine(),
		Env: &reproduce.Env{Scale: o.scale, Threads: linalg.Threads(), Table2: o.table2,
			Logf: func(f string, a ...any) { fmt.Fprintf(e.stderr, f+"\n", a...) }},
	}
	release, err := lockOutDir(o.out)
	if err != nil {
		return err
	}
	defer release()
	if needsMNIST(o.entries) {
		dir, err := reproduce.FindMNIST(ctx, o.mnist, !o.noFetch, mnist.FetchOptions{Log: func(m string) { fmt.Fprintln(e.stderr, m) }}, rn.Env.Logf)
		if err != nil {
			if errors.Is(err, reproduce.ErrNoData) {
				return dataError{err}
			}
			return err
		}
		rn.Env.MNISTDir = dir
	}
	if o.scale == reproduce.Paper {
		if err := printEstimates(ctx, e, rn); err != nil {
			return err
		}
	}
	rn.Started = func(en *reproduce.Entry, resumed bool) {
		if resumed {
			fmt.Fprintf(e.stderr, "%s: done in an earlier run, loaded from %s\n", en.Name, filepath.Join(o.out, en.Name))
			return
		}
		fmt.Fprintf(e.stderr, "%s: %s ...\n", en.Name, en.Title)
	}
	rn.Finished = func(r *reproduce.Result, resumed bool) {
		if !resumed {
			fmt.Fprintf(e.stderr, "%s: done in %s, saved in %s\n", r.Name, time.Duration(r.Wall*float64(time.Second)).Round(time.Second), filepath.Join(o.out, r.Name))
		}
	}
	run, err := rn.Run(ctx)
	if run != nil && len(run.Results)+len(run.Failed) > 0 && !errors.Is(err, reproduce.ErrInterrupted) {
		fmt.Fprintln(e.stdout)
		if werr := reproduce.WriteSummary(e.stdout, run); werr != nil {
			return werr
		}
		fmt.Fprintf(e.stdout, "report: %s, %s, %s\n", filepath.Join(o.out, "report.md"), filepath.Join(o.out, "report.html"), filepath.Join(o.out, reproduce.ResultsFile))
	}
	if errors.Is(err, reproduce.ErrInterrupted) {
		fmt.Fprintf(e.stderr, "finished experiments are saved in %s, and fig1 and figA1 keep a checkpoint of their training; run again with --resume to continue\n", o.out)
		return fmt.Errorf("%w: %w", context.Canceled, err)
	}
	return err
}

// parseReproduce parses and checks every flag before any work is done.
func parseReproduce(e *env, args []string) (*reproduceOpts, error) {
	fs := newFlagSet(e, "reproduce", "[--quick|--paper] [--only NAME,...] [--out DIR] [--resume] [--mnist-dir DIR] [--no-fetch] [--table2-widths LIST] [--table2-width-1e6]")
	quick := fs.Bool("quick", false, "reduced widths, steps and point counts: minutes on two cores (the default)")
	paper := fs.Bool("paper", false, "the paper's scale (hours); prints an estimate per experiment first")
	only := fs.String("only", "", "comma-separated `experiments` to run, of: "+strings.Join(reproduce.Default.Names(), ", "))
	o := &reproduceOpts{}
	fs.StringVar(&o.out, "out", "ntksvm-reproduce", "output `directory`: DIR/<experiment>/, report.md, report.html, results.json")
	fs.BoolVar(&o.resume, "resume", false, "skip the experiments already finished in --out at the same scale")
	fs.StringVar(&o.mnist, "mnist-dir", "", "MNIST `directory` (default $"+mnist.EnvDir+", else the user cache directory)")
	alias(fs, e, "mnist", "mnist-dir")
	fs.BoolVar(&o.noFetch, "no-fetch", false, "do not download MNIST when it is missing")
	widths := fs.String("table2-widths", "", "comma-separated network `widths` of table2, of 1e3, 1e4, 1e5 (default 1e3 with --quick, all three with --paper)")
	w1e6 := fs.Bool("table2-width-1e6", false, "also train and certify table2's width-10⁶ network (about 14 GB; its expected time is printed before it starts)")
	memGiB := fs.Float64("table2-mem-gib", 0, "memory `GiB` one table2 network may take; a wider one is refused up front (default: the memory available now)")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	switch {
	case *quick && *paper:
		return nil, usageError("--quick and --paper exclude each other")
	case *paper:
		o.scale = reproduce.Paper
	default:
		o.scale = reproduce.Quick
	}
	if fi, err := os.Stat(o.out); o.out == "" || (err == nil && !fi.IsDir()) {
		return nil, usageError("--out %q: want a directory", o.out)
	}
	if err := o.setTable2(*widths, *w1e6, *memGiB); err != nil {
		return nil, err
	}
	var err error
	if o.entries, err = reproduce.Default.Select(*only); err != nil {
		return nil, usageError("--only: %v", err)
	}
	if len(o.entries) == 0 {
		return nil, errors.New("no experiments are registered in this build")
	}
	for _, en := range o.entries {
		if en.Name != "table2" {
			continue
		}
		if err := o.table2.Check(o.scale); err != nil {
			return nil, usageError("%v (--table2-mem-gib sets the bound)", err)
		}
	}
	return o, nil
}

// setTable2 sets table2's network widths and memory bound from the flags
// --table2-widths, --table2-width-1e6 and --table2-mem-gib (0: the memory
// available now).
func (o *reproduceOpts) setTable2(widths string, w1e6 bool, memGiB float64) error {
	if widths != "" {
		var err error
		if o.table2.Widths, err = reproduce.ParseTable2Widths(widths); err != nil {
			return usageError("--table2-widths: %v", err)
		}
		if slices.Contains(o.table2.Widths, 1000000) && !w1e6 {
			return usageError("--table2-widths: width 1e6 needs --table2-width-1e6")
		}
	}
	if w1e6 {
		o.table2 = o.table2.WithWidth1e6(o.scale)
	}
	if memGiB < 0 || math.IsNaN(memGiB) || math.IsInf(memGiB, 0) {
		return usageError("--table2-mem-gib %v: want a finite number ≥ 0", memGiB)
	}
	o.table2.MemCap = int64(memGiB * (1 << 30))
	if o.table2.MemCap == 0 {
		o.table2.MemCap = -1
		if avail, ok := availableMemory(); ok {
			o.table2.MemCap = int64(min(avail, math.MaxInt64))
		}
	}
	return nil
}

func needsMNIST(es []*reproduce.Entry) bool {
	for _, en := range es {
		if en.MNIST {
			return true
		}
	}
	return false
}

// printEstimates prints each experiment's estimated wall time and the
// total, from a timed first step of each.
func printEstimates(ctx context.Context, e *env, rn *reproduce.Runner) error {
	fmt.Fprintln(e.stdout, "estimated wall time at the paper's scale (timed first steps):")
	es, err := rn.Estimates(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", context.Canceled, err)
	}
	var total time.Duration
	for _, est := range es {
		switch {
		case est.Done:
			fmt.Fprintf(e.stdout, "  %-8s done (resume)\n", est.Name)
		case est.Err != nil:
			fmt.Fprintf(e.stdout, "  %-8s unknown (%v)\n", est.Name, est.Err)
		default:
			total += est.Time
			fmt.Fprintf(e.stdout, "  %-8s %s\n", est.Name, est.Time.Round(time.Second))
		}
	}
	fmt.Fprintf(e.stdout, "  %-8s %s\n", "total", total.Round(time.Second))
	return nil
}
