package reproduce

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ntksvm/ntksvm/mnist"
)

// Scale is the size at which the experiments run.
type Scale string

// The scales.
const (
	// Quick reduces widths, steps or point counts so that every entry
	// together finishes in minutes on two cores; each reduction is stated
	// beside the row it affects.
	Quick Scale = "quick"
	// Paper runs the paper's sizes.
	Paper Scale = "paper"
)

// ParseScale parses "quick" or "paper".
func ParseScale(s string) (Scale, error) {
	switch Scale(s) {
	case Quick, Paper:
		return Scale(s), nil
	}
	return "", fmt.Errorf("unknown scale %q: want quick or paper", s)
}

// Entry is one experiment of the paper.
type Entry struct {
	Name  string // short name for --only: letters, digits and '-'
	Title string // e.g. "Table 3: robustness of kernel ridge regression"
	// Paper says what the paper reports, in a sentence.
	Paper string
	// MNIST says the entry reads the MNIST 0/1 task (Env.MNIST).
	MNIST bool
	// Run runs the experiment at env.Scale and returns its result; the
	// Runner fills in the name, title, scale and wall time. It must return
	// ctx's error promptly once ctx is done.
	Run func(ctx context.Context, env *Env) (*Result, error)
	// Estimate, if set, returns the expected wall time of Run at env.Scale
	// from a timed first step of its work (not a constant).
	Estimate func(ctx context.Context, env *Env) (time.Duration, error)
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]*$`)

// Registry is an ordered set of entries with unique names.
type Registry struct {
	entries []*Entry
}

// Add appends e. It returns an error for an invalid or duplicate name or a
// missing Run.
func (r *Registry) Add(e *Entry) error {
	if !nameRE.MatchString(e.Name) {
		return fmt.Errorf("reproduce: entry name %q: want letters, digits and '-'", e.Name)
	}
	if e.Run == nil {
		return fmt.Errorf("reproduce: entry %s has no Run", e.Name)
	}
	if r.Lookup(e.Name) != nil {
		return fmt.Errorf("reproduce: entry %s registered twice", e.Name)
	}
	r.entries = append(r.entries, e)
	return nil
}

// Entries returns the entries in registration order.
func (r *Registry) Entries() []*Entry { return append([]*Entry(nil), r.entries...) }

// Names returns the entry names in registration order.
func (r *Registry) Names() []string {
	s := make([]string, len(r.entries))
	for i, e := range r.entries {
		s[i] = e.Name
	}
	return s
}

// Lookup returns the entry called name, or nil.
func (r *Registry) Lookup(name string) *Entry {
	for _, e := range r.entries {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Select returns the entries named in only, a comma-separated list, in
// registration order; an empty list selects all. It returns an error naming
// every unknown name (with the known ones) and every name given twice.
func (r *Registry) Select(only string) ([]*Entry, error) {
	if strings.TrimSpace(only) == "" {
		return r.Entries(), nil
	}
	want := map[string]bool{}
	var unknown, twice []string
	for _, n := range strings.Split(only, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			unknown = append(unknown, `""`)
		case r.Lookup(n) == nil:
			unknown = append(unknown, n)
		case want[n]:
			twice = append(twice, n)
		}
		want[n] = true
	}
	var msgs []string
	if len(unknown) > 0 {
		known := r.Names()
		sort.Strings(known)
		msgs = append(msgs, fmt.Sprintf("unknown experiment %s; known: %s", strings.Join(unknown, ", "), strings.Join(known, ", ")))
	}
	if len(twice) > 0 {
		msgs = append(msgs, fmt.Sprintf("%s named more than once", strings.Join(twice, ", ")))
	}
	if len(msgs) > 0 {
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	var sel []*Entry
	for _, e := range r.entries {
		if want[e.Name] {
			sel = append(sel, e)
		}
	}
	return sel, nil
}

// Default is the registry of the paper's experiments, filled by this
// package's entry files.
var Default = &Registry{}

// register adds e to Default; a bad entry is a programmer error.
func register(e *Entry) {
	if err := Default.Add(e); err != nil {
		panic(err)
	}
}

// Env is what an entry's Run reads besides its context.
type Env struct {
	Scale   Scale
	Threads int    // worker threads of the numerics (informational)
	Dir     string // the experiment's own output directory, DIR/<name>
	// MNISTDir is the directory holding the MNIST files (see Locate).
	MNISTDir string
	// Logf, if set, receives progress lines.
	Logf func(format string, args ...any)
	// Table2 chooses the networks of entry table2.
	Table2 Table2Options
	// Resume is set by a resuming Runner: an entry that checkpoints inside
	// itself (fig1, figA1) continues from the checkpoints an interrupted
	// run left in Dir instead of starting afresh.
	Resume bool
	// Prev is, while a resuming Runner times an entry's Estimate, the
	// entry's directory from the earlier run ("" otherwise): an estimate
	// may leave out the work already done there.
	Prev string

	mu    sync.Mutex
	memo  map[string]any
	mnist *mnistData
}

type mnistData struct {
	train, test *mnist.Task[float64]
}

// logf writes a progress line if env has a Logf.
func (env *Env) logf(format string, args ...any) {
	if env.Logf != nil {
		env.Logf(format, args...)
	}
}

// MNIST returns the paper's task, digit 0 (−1) against digit 1 (+1), on the
// full training (12,665) and test (2,115) sets, loaded once per Env and
// shared by every entry; the files must be the canonical MNIST.
func (env *Env) MNIST() (train, test *mnist.Task[float64], err error) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.mnist == nil {
		tr, te, err := mnist.LoadBinary[float64](env.MNISTDir, 0, 1, mnist.Options{})
		if err != nil {
			return nil, nil, err
		}
		env.mnist = &mnistData{tr, te}
	}
	return env.mnist.train, env.mnist.test, nil
}

// Memo returns the value stored under key, computing it with make on the
// first call; entries share large intermediate results (the training Gram
// matrix) this way. An error is not stored.
func (env *Env) Memo(key string, make func() (any, error)) (any, error) {
	env.mu.Lock()
	v, ok := env.memo[key]
	env.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return nil, err
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.memo == nil {
		env.memo = map[string]any{}
	}
	env.memo[key] = v
	return v, nil
}

// Forget drops the value stored under key so its memory can be reclaimed.
func (env *Env) Forget(key string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	delete(env.memo, key)
}
