package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/mnist"
)

const dataUsage = `Usage:
  ntksvm data info [--mnist-dir DIR]       show the MNIST files found, their sizes, class counts and checksums
  ntksvm data info FILE [--label COL]      rows, features, classes, missing values and constant columns of a
                                           CSV, ARFF, LIBSVM or X.npy,labels file
  ntksvm data fetch mnist [--mnist-dir DIR] [--mirror URL]...
                                           download MNIST, verify it and store it in DIR

DIR defaults to $` + mnist.EnvDir + `, else the user cache directory (ntksvm/mnist in it).
Run "ntksvm data info -h" or "ntksvm data fetch -h" for the flags.`

func runData(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, dataUsage)
		return usageError("data needs a subcommand: info or fetch")
	}
	switch args[0] {
	case "info":
		return runDataInfo(e, args[1:])
	case "fetch":
		return runDataFetch(ctx, e, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(e.stderr, dataUsage)
		return flag.ErrHelp
	}
	return usageError("unknown data subcommand %q: want info or fetch", args[0])
}

func runDataInfo(e *env, args []string) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return runFileInfo(e, args)
	}
	fs := newFlagSet(e, "data info", "[--mnist-dir DIR]")
	var dirFlag string
	fs.StringVar(&dirFlag, "mnist-dir", "", "MNIST `directory` (default $"+mnist.EnvDir+", else the user cache directory)")
	alias(fs, e, "mnist", "mnist-dir")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dir, src, err := mnist.Locate(dirFlag)
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "MNIST directory: %s (from %s)\n", dir, src)
	res := mnist.Inspect(dir)
	problems, missing := reportMNISTFiles(w, res)
	problems = append(problems, reportMNISTSplits(w, res)...)
	switch {
	case missing:
		return fmt.Errorf("MNIST is incomplete in %s (from %s); to provide it, set %s=DIR, pass --mnist-dir DIR, or run \"ntksvm data fetch mnist\"",
			dir, src, mnist.EnvDir)
	case len(problems) > 0:
		return fmt.Errorf("%d problem(s): %s", len(problems), strings.Join(problems, "; "))
	}
	fmt.Fprintln(w, "all four files are the canonical MNIST")
	return nil
}

// reportMNISTFiles prints each file, good or bad, and returns the problems
// and whether a file is missing.
func reportMNISTFiles(w io.Writer, res []mnist.FileCheck) (problems []string, missing bool) {
	for _, r := range res {
		f := r.File
		var nf *mnist.NotFoundError
		switch {
		case errors.As(r.Err, &nf):
			missing = true
			fmt.Fprintf(w, "%-13s missing (looked for %s)\n", f, strings.Join(f.Candidates(), ", "))
			continue
		case r.Err != nil:
			fmt.Fprintf(w, "%-13s %s\n%14sERROR: %v\n", f, r.Path, "", r.Err)
			problems = append(problems, r.Err.Error())
			continue
		}
		var info *mnist.FileInfo
		var what string
		if r.Images != nil {
			info, what = &r.Images.Info, fmt.Sprintf("%d images of %d×%d", r.Images.Count, r.Images.Rows, r.Images.Cols)
		} else {
			info, what = &r.Labels.Info, fmt.Sprintf("%d labels", len(r.Labels.Values))
		}
		format := "raw"
		if info.Gzip {
			format = "gzip"
		}
		fmt.Fprintf(w, "%-13s %s\n%14s%s, %s, %s\n%14s%s; content sha256 %x\n",
			f, info.Path, "", format, progress.ByteCount(info.Size), what, "", checksumText(info), info.SHA256)
		if p := info.Problem(); p != "" {
			problems = append(problems, p)
		}
	}
	return problems, missing
}

// reportMNISTSplits prints the class counts of each split whose files
// were read, and returns the problems found.
func reportMNISTSplits(w io.Writer, res []mnist.FileCheck) (problems []string) {
	sets, errs := mnist.InspectSplits(res)
	for k, s := range sets {
		if errs[k] != nil {
			fmt.Fprintln(w, "ERROR:", errs[k])
			problems = append(problems, errs[k].Error())
			continue
		}
		if s == nil {
			continue
		}
		var parts []string
		for d, n := range s.Counts() {
			parts = append(parts, fmt.Sprintf("%d:%d", d, n))
		}
		fmt.Fprintf(w, "%-5s %6d examples; per class %s\n", s.Split, s.Len(), strings.Join(parts, " "))
	}
	if sets[0] != nil && sets[1] != nil {
		ctr, cte := sets[0].Counts(), sets[1].Counts()
		fmt.Fprintf(w, "paper task 0 vs 1: %d train, %d test\n", ctr[0]+ctr[1], cte[0]+cte[1])
	}
	return problems
}

// checksumText describes a file's checksum status for data info.
func checksumText(info *mnist.FileInfo) string {
	if info.Checksum == mnist.ChecksumMismatch && info.IsCanonical {
		return fmt.Sprintf("%v (its content is the canonical %s)", info.Checksum, info.Content)
	}
	if info.Checksum == mnist.ChecksumOK {
		return "checksum OK (canonical MNIST)"
	}
	return info.Checksum.String()
}
