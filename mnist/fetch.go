package mnist

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
)

// Mirrors are the public locations Fetch downloads from, tried in order:
// the torchvision (ossci) mirror and Google's cvdf mirror. Each serves the
// four canonical files with a .gz suffix.
var Mirrors = []string{
	"https://ossci-datasets.s3.amazonaws.com/mnist/",
	"https://storage.googleapis.com/cvdf-datasets/mnist/",
}

// maxDownload bounds the size of one downloaded file (the largest canonical
// file is 9.9 MB compressed, 47 MB raw).
const maxDownload = 64 << 20

// FetchOptions configures Fetch. The zero value downloads from Mirrors with
// http.DefaultClient, silently.
type FetchOptions struct {
	// Mirrors are base URLs tried in order; the file name with .gz is
	// appended to each. Nil means the package's Mirrors.
	Mirrors []string
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// StallTimeout abandons a mirror that sends nothing for this long
	// (waiting for the response or in the middle of the body), so the next
	// one is tried; 0 means one minute.
	StallTimeout time.Duration
	// Progress, if not nil, is called while a file downloads with the bytes
	// received so far and the total (-1 if the server does not say); the
	// first call has done = 0, and a complete transfer ends with done = total.
	Progress func(f File, url string, done, total int64)
	// Log, if not nil, receives one line for each file found in place, each
	// file downloaded and each failed mirror.
	Log func(msg string)
}

// errStalled ends a download that stopped making progress.
var errStalled = errors.New("stalled: no data")

// Fetch makes sure dir (created if needed) holds the four canonical MNIST
// files. A file already there with the canonical content is kept; one with
// other content is an error (Fetch never overwrites data it did not write).
// A missing file is downloaded from each mirror in turn until one gives the
// canonical content (the last mirror that worked is tried first): the download goes to a temporary file in dir, its
// uncompressed content is checked against the published SHA-256, and only
// then is it renamed into place, so an interrupted or corrupt transfer
// leaves no file behind. The error lists every mirror's failure.
func Fetch(ctx context.Context, dir string, opt FetchOptions) error {
	if opt.Mirrors == nil {
		opt.Mirrors = Mirrors
	}
	if len(opt.Mirrors) == 0 {
		return errors.New("mnist: no mirrors to download from")
	}
	if opt.Client == nil {
		opt.Client = http.DefaultClient
	}
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			opt.Log(fmt.Sprintf(format, args...))
		}
	}
	mirrors := slices.Clone(opt.Mirrors)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("mnist: %w", err)
	}
	for _, f := range Files {
		if p, err := Find(dir, f); err == nil {
			got, err := ReadFile(p)
			if err != nil {
				return fmt.Errorf("mnist: %w; remove it to download the canonical file", err)
			}
			if got.SHA256 != Canonical(f) {
				return fmt.Errorf("mnist: %s: %w; remove it to download the canonical file", p, ErrChecksum)
			}
			logf("%s: present, checksum OK", p)
			continue
		} else if !errors.Is(err, ErrNotFound) {
			return err
		}
		var errs []string
		done := false
		for i, m := range mirrors {
			url := strings.TrimSuffix(m, "/") + "/" + f.Name() + ".gz"
			p, err := download(ctx, &opt, dir, f, url)
			if err == nil {
				logf("%s: downloaded from %s, checksum OK", p, url)
				done = true
				// Try the mirror that worked first for the next files.
				copy(mirrors[1:i+1], mirrors[:i])
				mirrors[0] = m
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			logf("%s: %v", url, err)
			errs = append(errs, fmt.Sprintf("%s: %v", url, err))
		}
		if !done {
			return fmt.Errorf("mnist: could not download %s from any mirror (%s); without network access, copy the four files into %s or set %s",
				f.Name(), strings.Join(errs, "; "), dir, EnvDir)
		}
	}
	return nil
}

// download fetches url into dir as file f, verifies its content and renames
// it into place; it returns the final path. On any failure the temporary
// file is removed.
func download(ctx context.Context, opt *FetchOptions, dir string, f File, url string) (path string, err error) {
	stall := opt.StallTimeout
	if stall <= 0 {
		stall = time.Minute
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(stall, func() { cancel(fmt.Errorf("%w for %v", errStalled, stall)) })
	defer watchdog.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := opt.Client.Do(req)
	if err != nil {
		if ue, ok := err.(*neturl.Error); ok {
			err = ue.Err // the caller names the URL
		}
		return "", stalledOr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %s", resp.Status)
	}
	if resp.ContentLength > maxDownload {
		return "", fmt.Errorf("%d bytes announced, more than any MNIST file", resp.ContentLength)
	}
	total := resp.ContentLength
	report := func(n int64) {
		watchdog.Reset(stall)
		if opt.Progress != nil {
			opt.Progress(f, url, n, total)
		}
	}
	report(0)
	// The content's first bytes name the file: a gzip stream (as Read
	// detects it) is stored with the .gz suffix. A failed read here shows
	// again in the copy below.
	body := bufio.NewReader(io.LimitReader(resp.Body, maxDownload+1))
	magic, _ := body.Peek(len(gzipMagic))
	gz := string(magic) == string(gzipMagic[:])
	path = filepath.Join(dir, f.Name())
	if gz {
		path += ".gz"
	}
	tmp, err := atomicfile.Create(path)
	if err != nil {
		return "", err
	}
	defer tmp.Abort()
	n, err := io.Copy(&progressWriter{w: tmp, report: report}, body)
	if err != nil {
		return "", fmt.Errorf("transfer interrupted after %d bytes: %w", n, stalledOr(ctx, err))
	}
	if n > maxDownload {
		return "", fmt.Errorf("more than %d bytes, more than any MNIST file", maxDownload)
	}
	if total >= 0 && n != total {
		return "", fmt.Errorf("transfer interrupted after %d of %d bytes", n, total)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	got, err := Read(tmp, n)
	if err != nil {
		return "", fmt.Errorf("downloaded file is not valid: %w", err)
	}
	if got.SHA256 != Canonical(f) {
		return "", fmt.Errorf("%w: content sha256 %x, want %x", ErrChecksum, got.SHA256, Canonical(f))
	}
	if got.Gzip != gz { // Read tests the same two bytes: a guard against the two drifting apart
		return "", fmt.Errorf("content read as gzip=%v, named for gzip=%v", got.Gzip, gz)
	}
	if err := tmp.Commit(); err != nil {
		return "", err
	}
	return path, nil
}

// stalledOr returns the stall error if the watchdog ended ctx, else err.
func stalledOr(ctx context.Context, err error) error {
	if c := context.Cause(ctx); errors.Is(c, errStalled) {
		return c
	}
	return err
}

// progressWriter counts the bytes written through it and reports them.
type progressWriter struct {
	w      io.Writer
	n      int64
	report func(n int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	k, err := p.w.Write(b)
	p.n += int64(k)
	p.report(p.n)
	return k, err
}
