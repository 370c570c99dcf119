package reproduce

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ntksvm/ntksvm/mnist"
)

// ErrNoData is wrapped by FindMNIST's error when the MNIST files are
// neither found nor downloaded.
var ErrNoData = errors.New("MNIST not found")

// FindMNIST returns the directory holding the four MNIST files: flagDir (the
// --mnist-dir flag) if not empty, else $NTKSVM_MNIST_DIR, else the user cache directory
// (mnist.Locate). If files are missing it logs where it looked and, with
// fetch, downloads them there with their checksums verified (mnist.Fetch,
// as "ntksvm data fetch mnist" does). An error wraps ErrNoData and states
// every place looked at when the files are missing and not downloaded.
func FindMNIST(ctx context.Context, flagDir string, fetch bool, opt mnist.FetchOptions, logf func(string, ...any)) (string, error) {
	dir, src, err := mnist.Locate(flagDir)
	if err != nil {
		return "", err
	}
	missing := missingFiles(dir)
	if len(missing) == 0 {
		return dir, nil
	}
	where := lookedAt(flagDir, dir, src, missing)
	if !fetch {
		return "", fmt.Errorf("%w %s;\n  copy the four files there, or set %s=DIR or pass --mnist-dir DIR, or run \"ntksvm data fetch mnist\" when online",
			ErrNoData, where, mnist.EnvDir)
	}
	if logf != nil {
		logf("MNIST not found %s; downloading it into %s", where, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%w %s; cannot create %s to download it into: %v", ErrNoData, where, dir, err)
	}
	if err := mnist.Fetch(ctx, dir, opt); err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("%w %s;\n  the download failed: %v;\n  or pass --mnist-dir DIR", ErrNoData, where, err)
	}
	return dir, nil
}

// missingFiles lists the MNIST files not found in dir.
func missingFiles(dir string) []mnist.File {
	var m []mnist.File
	for _, f := range mnist.Files {
		if _, err := mnist.Find(dir, f); err != nil {
			m = append(m, f)
		}
	}
	return m
}

// lookedAt says where the MNIST files were looked for (the directory used
// and what chose it: the flag, the environment variable or the default
// cache directory) and which files were missing there.
func lookedAt(flagDir, dir string, src mnist.Source, missing []mnist.File) string {
	var names []string
	for _, f := range missing {
		names = append(names, f.Name())
	}
	chosen := "the default cache directory; --mnist-dir not given, $" + mnist.EnvDir + " not set"
	switch {
	case flagDir != "" && os.Getenv(mnist.EnvDir) != "":
		chosen = fmt.Sprintf("given by --mnist-dir, which overrides $%s=%s", mnist.EnvDir, os.Getenv(mnist.EnvDir))
	case flagDir != "":
		chosen = "given by --mnist-dir"
	case src == mnist.SourceEnv:
		chosen = "given by $" + mnist.EnvDir + ", --mnist-dir not given"
	}
	return fmt.Sprintf("in %s (%s): missing %s (each may also be gzipped, .gz)", dir, chosen, strings.Join(names, ", "))
}
