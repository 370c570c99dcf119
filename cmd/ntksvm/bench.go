package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/bench"
)

// runBench runs "ntksvm bench [name] [flags]": one target of benchmarks, or
// defaultBenches with the same flags.
func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(e.stderr, "Usage: ntksvm bench [name] [flags]\n\nBenchmarks:")
		for _, b := range benchmarks {
			fmt.Fprintf(e.stderr, "  %-8s %s\n", b.name, b.summary)
		}
		fmt.Fprintf(e.stderr, "\nWithout a name it runs: %s. \"ntksvm bench NAME -h\" lists a benchmark's flags.\n",
			strings.Join(defaultBenches, ", "))
		return flag.ErrHelp
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		b := lookup(benchmarks, args[0])
		if b == nil {
			return usageError("unknown benchmark %q; run \"ntksvm bench -h\"", args[0])
		}
		return b.run(ctx, e, args[1:])
	}
	for _, n := range defaultBenches {
		b := lookup(benchmarks, n)
		if b == nil {
			return fmt.Errorf("benchmark %q is not built in", n)
		}
		if err := b.run(ctx, e, args); err != nil {
			return err
		}
	}
	return nil
}

// benchRunner returns the run function of "ntksvm bench name", whose
// measurement is a B: it parses the command line into a new B's flags and
// runs it.
func benchRunner[B any, PB interface {
	*B
	bench.Benchmark
}](name string) func(context.Context, *env, []string) error {
	return func(ctx context.Context, e *env, args []string) error {
		b := PB(new(B))
		fs := newFlagSet(e, "bench "+name, b.Usage())
		b.Flags(fs)
		if fs.Lookup("mnist-dir") != nil {
			alias(fs, e, "mnist", "mnist-dir")
		}
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		err := b.Run(ctx, bench.Env{Stdout: e.stdout, Stderr: e.stderr, IsTerminal: e.isTerminal, Available: availableMemory})
		if errors.Is(err, bench.ErrUsage) {
			return configError(err, bench.ErrUsage)
		}
		return err
	}
}
