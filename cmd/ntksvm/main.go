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
// computing, writing): the command commits no output (but the checkpoint
// of "cv --checkpoint"), removes its temporary files, prints
// "interrupted" and exits 130 (SIGINT), 143
// (SIGTERM) or 129 (SIGHUP), 128 plus the signal's number as a shell
// reports it.
//
// Every command is listed in this file (commands, and the targets of
// "ntksvm bench" in benchmarks); a new command is a run function in its own
// file and one line here.
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"syscall"

	"github.com/ntksvm/ntksvm/asm"
	"github.com/ntksvm/ntksvm/cmd/internal/experiment/bench"
	"github.com/ntksvm/ntksvm/linalg/npy"
)

// command is one subcommand of ntksvm, or one target of "ntksvm bench".
type command struct {
	name    string
	summary string // one line for "ntksvm help" ("ntksvm bench -h")
	// run executes the command with the arguments after its name.
	run func(ctx context.Context, env *env, args []string) error
}

// commands are the subcommands, in the order "ntksvm help" lists them.
var commands = []*command{
	{"bench", "benchmark the kernels (relu, micro, gemm, ntk, train, …); no argument runs the kernel benchmarks", runBench},
	{"certify", "robustness certificates (paper Tables 2, 3): NTK kernel machines and IBP for networks", runCertify},
	{"cpu", "show the CPU, its caches and the kernels chosen for it", runCPU},
	{"cv", "fit a multi-class NTK machine to your own data (CSV, ARFF, LIBSVM, .npy), choosing depth and C by cross-validation", runCV},
	{"data", "find, check and download MNIST: data info, data fetch mnist", runData},
	{"equiv", "train a network and its NTK kernel machine side by side (paper Figs. 1, A.1); width sweeps", runEquiv},
	{"export-libsvm", "write a data set, or its NTK Gram as a precomputed kernel, in LIBSVM format", runExportLIBSVM},
	{"genbound", "train a network, extract its kernel machine along training and bound its test loss (paper Fig. B.2)", runGenbound},
	{"kernel", "write the infinite-width NTK/NNGP Gram K(X,X) or cross kernel K(Z,X) to a .npy file", runKernel},
	{"predict", "apply a trained kernel machine to data; print accuracy and loss when labels are known", runPredict},
	{"reproduce", "run the paper's experiments, the paper's numbers beside ours, as report.md/report.html", runReproduce},
	{"train", "train a kernel machine of paper Table 1 (svm, svm2, svr, krr, logistic) on the NTK", runTrain},
	{"version", "print the module version, the VCS revision it was built from and the kernel set", runVersion},
}

// benchmarks are the targets of "ntksvm bench <name>", in the order
// "ntksvm bench -h" lists them; defaultBenches run without a name.
var benchmarks = []*command{
	{"datasets", "the cross-validated NTK classifier on every dataset of a folder (CSV + NAME.splits.json)", runBenchDatasets},
	{"gemm", "linalg GEMM and Gram GFLOP/s on the paper's shapes or a square sweep, against the measured peak", benchRunner[bench.Gemm]("gemm")},
	{"micro", "GEMM micro-kernel GFLOP/s in cache per kernel set, against the measured FMA peak", benchRunner[bench.Micro]("micro")},
	{"ntk", "NTK Gram matrix (GEMM + arc-cosine recursion) against the bare Gram GEMM of the same run", benchRunner[bench.Ntk]("ntk")},
	{"relu", "out-of-place ReLU bandwidth per kernel set, against copy() of the same size", benchRunner[bench.Relu]("relu")},
	{"svm", "kernel-machine step K·α (GB/s vs. memory read baseline) and exact SVM solve time on an n×n Gram", benchRunner[bench.Svm]("svm")},
	{"train", "one training step (forward, backward, update) of the Fig. 1 network (L=2, m=10000, n=128) against its GEMMs run bare", benchRunner[bench.Train]("train")},
}

// defaultBenches run when "ntksvm bench" gets no benchmark name (or only
// flags, which are passed to each).
var defaultBenches = []string{"relu", "micro"}

// lookup returns the command of list named name, or nil.
func lookup(list []*command, name string) *command {
	for _, c := range list {
		if c.name == name {
			return c
		}
	}
	return nil
}

func main() {
	ctx, stop := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, isTerminal: isTerminal(os.Stderr)}
	os.Exit(runMain(ctx, e, os.Args[1:]))
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
	if args[0] == "-version" || args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...)
	}
	c := lookup(commands, args[0])
	if c == nil {
		fmt.Fprintf(e.stderr, "ntksvm: unknown command %q; run \"ntksvm help\"\n", args[0])
		return 2
	}
	limitToAddressSpace()
	if avail, ok := availableMemory(); ok {
		// No reader allocates an array its file declares beyond this.
		defer npy.SetReadLimit(npy.SetReadLimit(int64(min(avail, math.MaxInt64))))
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
		c := lookup(commands, args[1])
		if c == nil {
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

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "ntksvm: neural networks and their kernel machines (Chen et al., NeurIPS 2021)")
	fmt.Fprintln(w, "\nUsage: ntksvm <command> [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-14s %s\n", c.name, c.summary)
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
