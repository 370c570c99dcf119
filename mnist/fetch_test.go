package mnist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeCanonical makes four small generated IDX files the "canonical" MNIST
// for the duration of the test and returns their gzip bytes by URL path.
func fakeCanonical(t *testing.T) map[string][]byte {
	t.Helper()
	saved := canonical
	t.Cleanup(func() { canonical = saved })
	files := map[string][]byte{}
	for _, f := range Files {
		var raw []byte
		if f == TrainImages || f == TestImages {
			raw = idxBytes(8, []uint32{3, 2, 2}, seq(12 + int(f))[f:])
		} else {
			raw = idxBytes(8, []uint32{3}, []byte{byte(f), 1, 0})
		}
		sum := sha256.Sum256(raw)
		canonical[f].sha256 = hex.EncodeToString(sum[:])
		files["/"+f.Name()+".gz"] = gz(raw)
	}
	return files
}

// mirror serves files with the given behaviour and counts requests.
type mirror struct {
	files map[string][]byte
	mode  string // "good", "404", "corrupt" (other content), "interrupt" (connection cut half-way), "stall" (stops sending half-way)
	hits  atomic.Int32
}

func (m *mirror) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.hits.Add(1)
	b, ok := m.files[r.URL.Path]
	if !ok || m.mode == "404" {
		http.NotFound(w, r)
		return
	}
	switch m.mode {
	case "corrupt":
		b = gz(idxBytes(8, []uint32{1}, []byte{5}))
	case "stall":
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	case "interrupt":
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b[:len(b)/2])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // cuts the connection
	}
	w.Write(b)
}

func startMirror(t *testing.T, files map[string][]byte, mode string) (*mirror, string) {
	m := &mirror{files: files, mode: mode}
	s := httptest.NewServer(m)
	t.Cleanup(s.Close)
	return m, s.URL + "/"
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return n
}

var allGz = []string{"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"}

func TestFetch(t *testing.T) {
	files := fakeCanonical(t)
	tests := []struct {
		name    string
		modes   []string // one mirror per mode, tried in order
		wantErr string   // "" means success
	}{
		{name: "one good mirror", modes: []string{"good"}},
		{name: "first mirror down", modes: []string{"404", "good"}},
		{name: "first mirror corrupt", modes: []string{"corrupt", "good"}},
		{name: "first mirror interrupted", modes: []string{"interrupt", "good"}},
		{name: "first mirror stalls", modes: []string{"stall", "good"}},
		{name: "only stalls", modes: []string{"stall"}, wantErr: "stalled: no data for 300ms"},
		{name: "all down", modes: []string{"404", "404"}, wantErr: "404"},
		{name: "only corrupt", modes: []string{"corrupt"}, wantErr: "checksum mismatch"},
		{name: "only interrupted", modes: []string{"interrupt"}, wantErr: "interrupted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var urls []string
			var mirrors []*mirror
			for _, m := range tc.modes {
				mm, u := startMirror(t, files, m)
				mirrors = append(mirrors, mm)
				urls = append(urls, u)
			}
			dir := t.TempDir()
			var logs []string
			var stall time.Duration // the default minute, unless a mirror stalls
			if slices.Contains(tc.modes, "stall") {
				stall = 300 * time.Millisecond
			}
			err := Fetch(context.Background(), dir, FetchOptions{Mirrors: urls, StallTimeout: stall,
				Log: func(s string) { logs = append(logs, s) }})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), urls[0]) {
					t.Fatalf("error %v, want one naming %s and containing %q", err, urls[0], tc.wantErr)
				}
				if n := dirNames(t, dir); len(n) != 0 {
					t.Errorf("failed download left files: %v", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := dirNames(t, dir); !slices.Equal(n, allGz) {
				t.Errorf("directory holds %v, want %v", n, allGz)
			}
			tr, te, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*Set{tr, te} {
				if err := s.Verify(); err != nil {
					t.Error(err)
				}
			}
			// A failing first mirror is tried once; the mirror that worked
			// comes first for the remaining files.
			if len(tc.modes) > 1 && (mirrors[0].hits.Load() != 1 || mirrors[1].hits.Load() != 4 || len(logs) != 5) {
				t.Errorf("mirrors hit %d and %d times, %d log lines (want 1, 4, 5): %q", mirrors[0].hits.Load(), mirrors[1].hits.Load(), len(logs), logs)
			}
		})
	}
}

func TestFetchExisting(t *testing.T) {
	files := fakeCanonical(t)
	m, url := startMirror(t, files, "good")
	dir := t.TempDir()
	// One file is already there, raw under the dotted name.
	raw, err := Read(strings.NewReader(string(files["/t10k-labels-idx1-ubyte.gz"])), -1)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "t10k-labels.idx1-ubyte", idxBytes(8, []uint32{uint32(len(raw.Data))}, raw.Data))
	var progress [][2]int64
	err = Fetch(context.Background(), dir, FetchOptions{Mirrors: []string{url}, Progress: func(f File, u string, done, total int64) {
		if f == TrainImages {
			progress = append(progress, [2]int64{done, total})
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if m.hits.Load() != 3 {
		t.Errorf("%d requests, want 3 (one file was present)", m.hits.Load())
	}
	n := int64(len(files["/train-images-idx3-ubyte.gz"]))
	if len(progress) < 2 || progress[0] != [2]int64{0, n} || progress[len(progress)-1] != [2]int64{n, n} {
		t.Errorf("progress %v, want from 0 to %d of %d", progress, n, n)
	}

	// A file with other content under a canonical name is never replaced.
	bad := t.TempDir()
	p := writeFile(t, bad, "train-images-idx3-ubyte.gz", gz(idxBytes(8, []uint32{1, 1, 1}, []byte{1})))
	err = Fetch(context.Background(), bad, FetchOptions{Mirrors: []string{url}})
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("non-canonical file in place: %v", err)
	}
}

func TestFetchCanceled(t *testing.T) {
	files := fakeCanonical(t)
	_, url := startMirror(t, files, "good")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if err := Fetch(ctx, dir, FetchOptions{Mirrors: []string{url}}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if n := dirNames(t, dir); len(n) != 0 {
		t.Errorf("canceled fetch left %v", n)
	}
}

// TestFetchReal serves the real MNIST files from $NTKSVM_MNIST_DIR through a
// local mirror, so the published checksums themselves are exercised.
func TestFetchReal(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 57 MB twice")
	}
	src := RealDataDirForTest(t)
	s := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer s.Close()
	for _, f := range Files {
		if _, err := os.Stat(src + "/" + f.Name() + ".gz"); err != nil {
			t.Skipf("%s does not hold the .gz files", src)
		}
	}
	dir := t.TempDir()
	if err := Fetch(context.Background(), dir, FetchOptions{Mirrors: []string{s.URL}}); err != nil {
		t.Fatal(err)
	}
	if n := dirNames(t, dir); !slices.Equal(n, allGz) {
		t.Errorf("directory holds %v, want %v", n, allGz)
	}
}
