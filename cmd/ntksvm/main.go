// Command ntksvm reproduces the experiments of "On the Equivalence between
// Neural Network and Support Vector Machine" (Chen, Huang, Nguyen, Weng,
// NeurIPS 2021) and benchmarks the kernels they run on.
//
// Usage:
//
//	ntksvm <command> [flags]
//
// Run "ntksvm help" for the list of commands and "ntksvm help <command>"
// (or "ntksvm <command> -h") for the flags of one.
//
// SIGINT (Ctrl-C), SIGTERM and SIGHUP stop a run at the next check of its
// context (within about a second in every long phase: loading data,
// computing, writing): the command commits no output, removes its
// temporary files, prints "interrupted" and exits 130 (SIGINT), 143
// (SIGTERM) or 129 (SIGHUP), 128 plus the signal's number as a shell
// reports it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/linalg"
)

// command is one subcommand of ntksvm.
type command struct {
	name    string
	summary string // one line for "ntksvm help"
	// run executes the command with the arguments after its name.
	run func(ctx context.Context, env *env, args []string) error
}

// env is what a command reads and writes besides its arguments.
type env struct {
	stdout, stderr io.Writer
	isTerminal     bool // stderr is a terminal: progress bars instead of log lines
	// ctx is the run's context (set by runMain): cancelled by a signal,
	// for the phases that get no context argument (loading data).
	ctx context.Context
}

// commands holds every subcommand; each lives in its own file and adds
// itself with register.
var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("ntksvm: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks errors caused by a bad command line (exit status 2).
var errUsage = errors.New("usage")

// usageError returns an error for a bad command line.
func usageError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

func main() {
	ctx, stop := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, isTerminal: isTerminal(os.Stderr)}
	os.Exit(runMain(ctx, e, os.Args[1:]))
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

// runMain runs the command line args and returns the exit status.
func runMain(ctx context.Context, e *env, args []string) int {
	e.ctx = ctx
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		return runHelp(ctx, e, args)
	}
	if err := asm.Check(); err != nil {
		fmt.Fprintln(e.stderr, "ntksvm:", err)
		return 2
	}
	if args[0] == "-version" || args[0] == "--version" || args[0] == "version" {
		fmt.Fprintf(e.stdout, "ntksvm (kernels: %s)\n", asm.Implementation())
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "ntksvm: unknown command %q; run \"ntksvm help\"\n", args[0])
		return 2
	}
	if avail, ok := availableMemory(); ok {
		// No reader allocates an array its file declares beyond this.
		defer linalg.SetReadLimit(linalg.SetReadLimit(int64(min(avail, math.MaxInt64))))
	}
	rest := args[1:]
	if len(rest) == 1 && rest[0] == "help" {
		rest = []string{"-h"} // "ntksvm CMD help" is "ntksvm CMD -h"
	}
	return exitStatus(ctx, e, c.name, c.run(ctx, e, rest))
}

// runHelp prints the command list, or with "help CMD" that command's help.
func runHelp(ctx context.Context, e *env, args []string) int {
	if len(args) >= 2 && args[0] == "help" {
		c, ok := commands[args[1]]
		if !ok {
			fmt.Fprintf(e.stderr, "ntksvm: unknown command %q; run \"ntksvm help\"\n", args[1])
			return 2
		}
		return exitStatus(ctx, e, c.name, c.run(ctx, e, append(args[2:], "-h")))
	}
	printHelp(e.stdout)
	if len(args) == 0 {
		return 2
	}
	return 0
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

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "ntksvm: neural networks and their kernel machines (Chen et al., NeurIPS 2021)")
	fmt.Fprintln(w, "\nUsage: ntksvm <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-14s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nKernels: %s (override with NTKSVM_SIMD=%s)\n",
		asm.Implementation(), strings.Join(kernelNames(), "|"))
	if err := asm.Check(); err != nil {
		fmt.Fprintf(w, "Warning: %v\n", err)
	}
	fmt.Fprintln(w, "\nRun \"ntksvm help <command>\" for the flags of one.")
}

func kernelNames() []string {
	var s []string
	for _, k := range asm.Available() {
		s = append(s, k.Name())
	}
	return s
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
