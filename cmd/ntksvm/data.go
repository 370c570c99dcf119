package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ntksvm/ntksvm/cmd/internal/progress"
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
	res := readMNISTFiles(dir)
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

// mnistFile is one MNIST file as data info found it.
type mnistFile struct {
	path string
	im   *mnist.Images
	lb   *mnist.Labels
	err  error
}

// readMNISTFiles reads the four files concurrently, in mnist.Files order.
func readMNISTFiles(dir string) []mnistFile {
	res := make([]mnistFile, len(mnist.Files))
	var wg sync.WaitGroup
	for i, f := range mnist.Files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &res[i]
			if r.path, r.err = mnist.Find(dir, f); r.err != nil {
				return
			}
			if f == mnist.TrainImages || f == mnist.TestImages {
				r.im, r.err = mnist.ReadImages(r.path)
			} else {
				r.lb, r.err = mnist.ReadLabels(r.path)
			}
		}()
	}
	wg.Wait()
	return res
}

// reportMNISTFiles prints each file, good or bad, and returns the problems
// and whether a file is missing.
func reportMNISTFiles(w io.Writer, res []mnistFile) (problems []string, missing bool) {
	for i, f := range mnist.Files {
		r := res[i]
		var nf *mnist.NotFoundError
		switch {
		case errors.As(r.err, &nf):
			missing = true
			fmt.Fprintf(w, "%-13s missing (looked for %s)\n", f, strings.Join(f.Candidates(), ", "))
			continue
		case r.err != nil:
			fmt.Fprintf(w, "%-13s %s\n%14sERROR: %v\n", f, r.path, "", r.err)
			problems = append(problems, r.err.Error())
			continue
		}
		var info *mnist.FileInfo
		var what string
		if r.im != nil {
			info, what = &r.im.Info, fmt.Sprintf("%d images of %d×%d", r.im.Count, r.im.Rows, r.im.Cols)
		} else {
			info, what = &r.lb.Info, fmt.Sprintf("%d labels", len(r.lb.Values))
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
func reportMNISTSplits(w io.Writer, res []mnistFile) (problems []string) {
	var sets [2]*mnist.Set
	for k, s := range []mnist.Split{mnist.Train, mnist.Test} {
		im, lb := res[2*k].im, res[2*k+1].lb
		if im == nil || lb == nil {
			continue
		}
		if im.Count != len(lb.Values) {
			p := fmt.Sprintf("%s: %s holds %d images but %s holds %d labels", s, im.Info.Path, im.Count, lb.Info.Path, len(lb.Values))
			fmt.Fprintln(w, "ERROR:", p)
			problems = append(problems, p)
			continue
		}
		sets[k] = &mnist.Set{Split: s, Images: im, Labels: lb}
		var parts []string
		for d, n := range sets[k].Counts() {
			parts = append(parts, fmt.Sprintf("%d:%d", d, n))
		}
		fmt.Fprintf(w, "%-5s %6d examples; per class %s\n", s, sets[k].Len(), strings.Join(parts, " "))
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
