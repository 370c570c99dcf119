package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/ntksvm/ntksvm/cmd/internal/present/progress"
	"github.com/ntksvm/ntksvm/mnist"
)

func runDataFetch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "data fetch", "mnist [--mnist-dir DIR] [--mirror URL]...")
	dirFlag := fs.String("mnist-dir", "", "directory to store MNIST in (default $"+mnist.EnvDir+", else the user cache directory)")
	alias(fs, e, "mnist", "mnist-dir")
	var mirrors []string
	fs.Func("mirror", "base `URL` to download from, tried in order; repeatable (default: "+strings.Join(mnist.Mirrors, ", ")+")",
		func(s string) error {
			if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
				return fmt.Errorf("%q is not an http(s) URL", s)
			}
			mirrors = append(mirrors, s)
			return nil
		})
	if err := parseFetchArgs(fs, args); err != nil {
		return err
	}
	dir, src, err := mnist.Locate(*dirFlag)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fetching MNIST into %s (from %s)\n", dir, src)
	var cur *progress.Bar
	finish := func() {
		if cur != nil {
			cur.Done()
			cur = nil
		}
	}
	err = mnist.Fetch(ctx, dir, mnist.FetchOptions{
		Mirrors: mirrors,
		Progress: func(f mnist.File, url string, done, total int64) {
			if done == 0 {
				finish()
				cur = progress.New(e.stderr, e.isTerminal, f.Name()+".gz", total).Bytes() // the log lines name the mirror
			}
			cur.Set(done)
			if done == total {
				finish()
			}
		},
		Log: func(msg string) {
			finish()
			fmt.Fprintln(e.stderr, msg)
		},
	})
	finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "MNIST is in %s; all four files verified\n", dir)
	if src == mnist.SourceFlag {
		fmt.Fprintf(e.stdout, "set %s=%s, or pass --mnist-dir %s, to use it\n", mnist.EnvDir, dir, dir)
	}
	return nil
}

// parseFetchArgs parses the arguments of "data fetch", accepting both
// "fetch mnist --flags" and "fetch --flags mnist".
func parseFetchArgs(fs *flag.FlagSet, args []string) error {
	named := len(args) > 0 && args[0] == "mnist"
	if named {
		args = args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError("%v", err)
	}
	rest := fs.Args()
	if !named {
		switch {
		case len(rest) == 0:
			return usageError("data fetch needs the dataset name: ntksvm data fetch mnist")
		case rest[0] != "mnist":
			return usageError("unknown dataset %q: only mnist can be fetched", rest[0])
		}
		rest = rest[1:]
	}
	if len(rest) > 0 {
		return usageError("unexpected argument %q", rest[0])
	}
	return nil
}
