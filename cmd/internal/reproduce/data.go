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
		return "", fmt.Errorf("%w: %s", ErrNoData, where)
	}
	if logf != nil {
		logf("%s; downloading it into %s", where, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%w: %s; cannot create %s: %v", ErrNoData, where, dir, err)
	}
	if err := mnist.Fetch(ctx, dir, opt); err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return "", fmt.Errorf("%w: %s; the download failed: %v; set %s=DIR or pass --mnist-dir DIR with the four files, or run \"ntksvm data fetch mnist\" when online",
			ErrNoData, where, err, mnist.EnvDir)
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

// lookedAt says where the MNIST files were looked for: the flag, the
// environment variable and the default cache directory, and which were
// missing in the directory used.
func lookedAt(flagDir, dir string, src mnist.Source, missing []mnist.File) string {
	var names []string
	for _, f := range missing {
		names = append(names, strings.Join(f.Candidates(), " or "))
	}
	flagText := "not given"
	if flagDir != "" {
		flagText = flagDir
	}
	envText := "not set"
	if v := os.Getenv(mnist.EnvDir); v != "" {
		envText = v
	}
	cache := "none (no user cache directory)"
	if c, err := os.UserCacheDir(); err == nil {
		cache = c + string(os.PathSeparator) + "ntksvm" + string(os.PathSeparator) + "mnist"
	}
	return fmt.Sprintf("MNIST not found in %s (chosen by %s; looked at --mnist-dir: %s, $%s: %s, default cache directory: %s): missing %s",
		dir, src, flagText, mnist.EnvDir, envText, cache, strings.Join(names, "; "))
}
