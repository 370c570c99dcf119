package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// env is what a command reads and writes besides its arguments.
type env struct {
	stdout, stderr io.Writer
	isTerminal     bool // stderr is a terminal: progress bars instead of log lines
	// ctx is the run's context (set by runMain): cancelled by a signal,
	// for the phases that get no context argument (loading data).
	ctx context.Context
}

// errUsage marks errors caused by a bad command line (exit status 2).
var errUsage = errors.New("usage")

// usageError returns an error for a bad command line.
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// exitCode is 128 plus the signal's number, as a shell reports a process
// killed by it (130 for SIGINT, 143 for SIGTERM).
func (i interrupted) exitCode() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// signalContext returns a context cancelled, with an interrupted cause,
// by the first of sigs; later signals get their default action again (a
// second Ctrl-C kills a run that does not stop).
func signalContext(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			cancel(interrupted{s})
		case <-ctx.Done():
		}
		signal.Stop(ch)
	}()
	return ctx, func() { cancel(nil) }
}

// exitStatus prints err as the command's failure and returns the exit
// status: 0, 2 for a bad command line, 130/143 when interrupted, else 1.
func exitStatus(ctx context.Context, e *env, name string, err error) int {
	var in interrupted
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(context.Cause(ctx), &in) && ctx.Err() != nil:
		fmt.Fprintf(e.stderr, "ntksvm %s: interrupted\n", name)
		return in.exitCode()
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(e.stderr, "ntksvm %s: interrupted\n", name)
		return 130
	case errors.Is(err, errUsage):
		fmt.Fprintf(e.stderr, "ntksvm %s: %v\n", name, err)
		return 2
	default:
		fmt.Fprintf(e.stderr, "ntksvm %s: %v\n", name, err)
		return 1
	}
}

// configError is usageError for an error from an experiment package's
// Preset or Validate, without that package's "…: bad configuration"
// prefix (sentinel), which the command's own prefix makes redundant.
func configError(err, sentinel error) error {
	return usageError("%s", strings.TrimPrefix(err.Error(), sentinel.Error()+": "))
}

// newFlagSet returns a flag set for command name whose errors are returned,
// not printed and exited on, and whose usage goes to e.stderr.
func newFlagSet(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet("ntksvm "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: ntksvm %s %s\n\nFlags:\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs and rejects stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
