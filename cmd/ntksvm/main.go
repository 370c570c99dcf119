// Command ntksvm reproduces the experiments of "On the Equivalence between
// Neural Network and Support Vector Machine" (Chen, Huang, Nguyen, Weng,
// NeurIPS 2021) and benchmarks the kernels they run on.
//
// Usage:
//
//	ntksvm <command> [flags]
//
// Run "ntksvm help" for the list of commands and "ntksvm <command> -h" for
// the flags of one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"

	"github.com/ntksvm/ntksvm/asm"
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, isTerminal: isTerminal(os.Stderr)}
	os.Exit(runMain(ctx, e, os.Args[1:]))
}

// runMain runs the command line args and returns the exit status.
func runMain(ctx context.Context, e *env, args []string) int {
	if err := asm.Check(); err != nil {
		fmt.Fprintln(e.stderr, "ntksvm:", err)
		return 2
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
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
	err := c.run(ctx, e, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(e.stderr, "ntksvm %s: %v\n", c.name, err)
		return 2
	default:
		fmt.Fprintf(e.stderr, "ntksvm %s: %v\n", c.name, err)
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
}

func kernelNames() []string {
	var s []string
	for _, k := range asm.Available() {
		s = append(s, k.Name())
	}
	return s
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
