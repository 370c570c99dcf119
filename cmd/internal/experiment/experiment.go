// Package experiment is the skeleton every experiment of ntksvm shares
// (equiv, genbound, and the ones to come): the options that are not the
// experiment itself, its configuration errors, the checks made before any
// work, the data as used, the head of its summary.json and the
// configuration a resumed run reads back.
//
// An experiment package declares its configuration type with a Validate
// method and a sentinel for its configuration errors (Errorf wraps it),
// and its Run does, in order: parse the configuration, Use the data, Start
// (memory and output checks, output directory), then the work, writing a
// summary whose JSON begins with its configuration and a Header. A new
// experiment goes in a package of its own beside equiv and genbound; the
// command that runs it goes in cmd/ntksvm.
package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/present/output"
	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/linalg"
)

// Options are the parts of a run that are not the experiment itself.
type Options struct {
	// Out is the output directory (created if needed).
	Out string
	// Resume continues the run from the state saved in Out, for an
	// experiment that saves state (a run without state starts afresh).
	Resume bool
	// CheckpointEvery writes a checkpoint every that many steps, for an
	// experiment that saves state; 0 picks about every 10 minutes from the
	// timed first step, < 0 never (but still on cancellation).
	CheckpointEvery int
	// MemAvailable is the memory the run may use, in bytes (0: unknown, no
	// check).
	MemAvailable int64
	// Log receives the estimates and the result lines; nil discards them.
	Log io.Writer
	// Progress receives the progress bar (Terminal) or its plain lines;
	// nil discards it.
	Progress io.Writer
	Terminal bool
	// EstimateOnly stops after the timed first step and the estimate.
	EstimateOnly bool
	// NoQuickHint leaves out the note that offers a preset's quick setting
	// when its paper scale is long: for callers with reduced settings of
	// their own.
	NoQuickHint bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Errorf returns an error wrapping sentinel, an experiment's marker of
// configurations that cannot run, with the message "sentinel: message".
func Errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
}

// Start makes the checks of a run before any work and readies its outputs:
// the memory it needs (need bytes, broken down in detail) against
// opt.MemAvailable, with reduce saying what to reduce, and an output
// directory, which it creates; it fills in opt's nil writers and clock.
// Its errors wrap sentinel.
func Start(opt *Options, sentinel error, need int64, detail, reduce string) error {
	if opt.MemAvailable > 0 && need > opt.MemAvailable {
		return Errorf(sentinel, "this experiment needs about %.2f GiB (%s); %.2f GiB are available: reduce %s",
			GiB(need), detail, GiB(opt.MemAvailable), reduce)
	}
	if opt.Out == "" {
		return Errorf(sentinel, "no output directory")
	}
	return output.PrepareRun(opt.Out, &opt.Log, &opt.Progress, &opt.Now)
}

// GiB returns b bytes in GiB.
func GiB(b int64) float64 { return float64(b) / (1 << 30) }

// Used is the data as a run uses it: the first points of each split.
type Used struct {
	Name     string
	X, XTest linalg.Matrix[float64] // one point per row
	Y, YTest []float64
}

// Use keeps the first nTrain training and nTest test points of data (0:
// all); too many points, or no data, is a configuration error wrapping
// sentinel.
func Use(data *Data, nTrain, nTest int, sentinel error) (*Used, error) {
	sub, err := data.First(nTrain, nTest)
	if err != nil {
		return nil, Errorf(sentinel, "%v", err)
	}
	return &Used{Name: sub.Name, X: sub.X, Y: sub.Y, XTest: sub.XTest, YTest: sub.YTest}, nil
}

// Header is the head of every experiment's summary.json, after its
// configuration: the data as used, the threads, the status and the
// estimated wall time.
type Header struct {
	Data    string `json:"data"`
	NTrain  int    `json:"n_train"`
	NTest   int    `json:"n_test"`
	D       int    `json:"d"`
	Threads int    `json:"threads"`
	// Status is "complete", "estimate" (Options.EstimateOnly),
	// "interrupted", "failed: …", or "running: …" in outputs written
	// while the run goes on.
	Status string `json:"status"`
	// Estimate is the estimated wall time of the whole experiment, in
	// seconds, from the timed first step (0 when nothing was timed).
	Estimate float64 `json:"estimated_seconds"`
}

// NewHeader returns the header of a run on u with the current threads.
func NewHeader(u *Used) Header {
	return Header{Data: u.Name, NTrain: u.X.Rows, NTest: u.XTest.Rows, D: u.X.Cols, Threads: linalg.Threads()}
}

// ConfigFile is the file in the output directory that holds the
// configuration of the run, for a resumed run to read back.
const ConfigFile = "config.json"

// WriteConfig writes cfg to dir/config.json atomically.
func WriteConfig(dir string, cfg any) error {
	return atomicfile.WriteFile(filepath.Join(dir, ConfigFile), func(w io.Writer) error {
		return output.WriteJSON(w, cfg)
	})
}

// Config is what an experiment's configuration provides: a check of every
// value that does not depend on the data.
type Config interface {
	Validate() error
}

// ReadConfig reads dir/config.json into cfg and validates it; pkg names
// the experiment in the errors.
func ReadConfig(dir, pkg string, cfg Config) error {
	b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return fmt.Errorf("%s: cannot resume from %s: %w", pkg, dir, err)
	}
	if err := ParseConfig(b, cfg); err != nil {
		return fmt.Errorf("%s: %s/%s: %w", pkg, dir, ConfigFile, err)
	}
	return nil
}

// ParseConfig decodes the text of a config.json into cfg and validates it.
func ParseConfig(b []byte, cfg Config) error {
	if err := json.Unmarshal(b, cfg); err != nil {
		return err
	}
	return cfg.Validate()
}

// SameConfig reports whether dir/config.json holds a valid configuration
// equal to cfg as saved: a resumed run may continue only the state of the
// same experiment.
func SameConfig[C any, P interface {
	*C
	Config
}](dir string, cfg C) bool {
	var saved C
	return ReadConfig(dir, "", P(&saved)) == nil && EqualConfigs(saved, cfg)
}

// EqualConfigs reports whether two configurations are the same as saved
// (their JSON forms are equal).
func EqualConfigs(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
