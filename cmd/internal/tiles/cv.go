package tiles

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ntksvm/ntksvm/internal/atomicfile"
	"github.com/ntksvm/ntksvm/svm/classify"
)

// Cross-validation as array tasks ("ntksvm cv --task i/N --out DIR"): a
// task directory holds
//
//	manifest.json    the plan: the cross-validation's fingerprint
//	                 (classify.CVSpec: data SHA-256, grid, folds, seed, …),
//	                 the number of tasks and each task's cells
//	task-0003.json   task 3's results (classify.CVCellResult), with the
//	                 manifest's SHA-256 and the SHA-256 of the results
//
// written atomically, as the tiles of a kernel are: a task whose file is
// there and verifies does nothing, and "ntksvm cv --collect DIR" combines
// the results once every task's file is there.

// CVFormat names the layout of a cross-validation task directory.
const CVFormat = "ntksvm-cv-tasks/1"

// CVManifest is the plan of a cross-validation task directory.
type CVManifest struct {
	Format string          `json:"format"`
	CV     classify.CVSpec `json:"cv"`
	Tasks  int             `json:"tasks"`
	Cells  [][2]int        `json:"cells"` // task i evaluates cells [Cells[i][0], Cells[i][1])
}

// CVTask is what a finished task writes.
type CVTask struct {
	Format   string                  `json:"format"`
	Manifest string                  `json:"manifest_sha256"`
	Index    int                     `json:"index"`
	Cells    [2]int                  `json:"cells"`
	SHA256   string                  `json:"results_sha256"` // of the JSON encoding of Results
	Host     string                  `json:"host"`
	Seconds  float64                 `json:"seconds"`
	Results  []classify.CVCellResult `json:"results"`
}

// NewCVManifest returns the plan of tasks tasks of the cross-validation p.
func NewCVManifest(p *classify.CVPlan, tasks int) (*CVManifest, error) {
	if tasks < 1 || tasks > len(p.Cells) {
		return nil, fmt.Errorf("%d tasks for %d cells of cross-validation: want 1…%d", tasks, len(p.Cells), len(p.Cells))
	}
	m := &CVManifest{Format: CVFormat, CV: p.Spec, Tasks: tasks}
	for i := range tasks {
		lo, hi := p.Task(i, tasks)
		m.Cells = append(m.Cells, [2]int{lo, hi})
	}
	return m, nil
}

func (m *CVManifest) encode() []byte {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic("tiles: cross-validation manifest does not encode: " + err.Error()) // plain fields, finite values
	}
	return append(b, '\n')
}

// ID returns the SHA-256 of the manifest's file content, which every task
// file carries.
func (m *CVManifest) ID() string {
	s := sha256.Sum256(m.encode())
	return hex.EncodeToString(s[:])
}

// TaskName returns the file name of task i's results.
func TaskName(i int) string { return fmt.Sprintf("task-%04d.json", i) }

// PrepareCV creates dir if needed and writes m as its manifest, or checks
// that the manifest already there is m.
func PrepareCV(dir string, m *CVManifest) error {
	old, path, err := prepareManifest(dir, "task directory", m.encode())
	if err != nil || old == nil {
		return err
	}
	var there CVManifest
	if err := json.Unmarshal(old, &there); err != nil || there.Format != CVFormat {
		return fmt.Errorf("%s is not a cross-validation task manifest; use an empty directory", path)
	}
	return fmt.Errorf("%s holds the tasks of another cross-validation: %s; use another directory", dir, CVDiff(&there, m))
}

// LoadCV reads the manifest of the task directory dir.
func LoadCV(dir string) (*CVManifest, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s: not a task directory (ntksvm cv --task i/N --out %s writes one)", dir, ManifestName, dir)
	}
	if err != nil {
		return nil, err
	}
	var m CVManifest
	if err := json.Unmarshal(b, &m); err != nil || m.Format != CVFormat {
		return nil, fmt.Errorf("%s: not a cross-validation task manifest (format %q, want %q)", path, m.Format, CVFormat)
	}
	if !bytes.Equal(b, m.encode()) {
		return nil, fmt.Errorf("%s: not as ntksvm writes it (edited?)", path)
	}
	return &m, nil
}

// CVDiff describes how the manifest there differs from want, or returns
// "" when they are the same plan.
func CVDiff(there, want *CVManifest) string {
	a, b := &there.CV, &want.CV
	short := func(s string) string { return s[:min(len(s), 12)] + "…" }
	switch {
	case a.Data != b.Data || a.N != b.N || a.D != b.D || a.Classes != b.Classes:
		return fmt.Sprintf("data %d×%d, %d classes, SHA-256 %s there; %d×%d, %d classes, SHA-256 %s here",
			a.N, a.D, a.Classes, short(a.Data), b.N, b.D, b.Classes, short(b.Data))
	case a.Folds != b.Folds || a.Repeats != b.Repeats || a.Seed != b.Seed || a.FoldOf != b.FoldOf:
		return fmt.Sprintf("%d folds × %d repeats, seed %d there; %d folds × %d repeats, seed %d here",
			a.Folds, a.Repeats, a.Seed, b.Folds, b.Repeats, b.Seed)
	case !a.Equal(b):
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return fmt.Sprintf("options %s there, %s here", ja, jb)
	case there.Tasks != want.Tasks:
		return fmt.Sprintf("%d tasks there, %d here", there.Tasks, want.Tasks)
	case !bytes.Equal(there.encode(), want.encode()):
		return "the task ranges differ"
	}
	return ""
}

// resultsSHA256 returns the SHA-256 of the JSON encoding of r.
func resultsSHA256(r []classify.CVCellResult) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// WriteCVTask writes the results of task i of the plan m into dir,
// atomically.
func WriteCVTask(dir string, m *CVManifest, i int, results []classify.CVCellResult, seconds float64) error {
	sum, err := resultsSHA256(results)
	if err != nil {
		return fmt.Errorf("task %d: %w", i, err)
	}
	host, _ := os.Hostname()
	t := CVTask{Format: CVFormat, Manifest: m.ID(), Index: i, Cells: m.Cells[i], SHA256: sum, Host: host, Seconds: seconds, Results: results}
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("task %d: %w", i, err)
	}
	return atomicfile.WriteFile(filepath.Join(dir, TaskName(i)), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// VerifyCVTask checks task i of the plan m in dir: its file is there,
// complete, of this manifest and this task, and holds a result for each of
// its cells, in order. It returns the task, or a *TaskError.
func VerifyCVTask(dir string, m *CVManifest, i int) (*CVTask, error) {
	name := TaskName(i)
	fail := func(format string, a ...any) (*CVTask, error) {
		return nil, &TaskError{Index: i, Err: fmt.Errorf(format, a...)}
	}
	cells := fmt.Sprintf("cells %d…%d", m.Cells[i][0], m.Cells[i][1]-1)
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return fail("%s (%s) is missing; run task %d/%d", name, cells, i, m.Tasks)
	}
	if err != nil {
		return fail("%v", err)
	}
	var t CVTask
	if err := json.Unmarshal(b, &t); err != nil {
		return fail("%s is truncated or not a task file (%v)", name, err)
	}
	if t.Format != CVFormat {
		return fail("%s is not a task file (format %q)", name, t.Format)
	}
	if t.Manifest != m.ID() {
		return fail("%s is a task of another cross-validation (manifest SHA-256 %.12s…, this directory's %.12s…)", name, t.Manifest, m.ID())
	}
	if t.Index != i || t.Cells != m.Cells[i] {
		return fail("%s records task %d, cells %d…%d, not this one", name, t.Index, t.Cells[0], t.Cells[1]-1)
	}
	if sum, err := resultsSHA256(t.Results); err != nil || sum != t.SHA256 {
		return fail("%s: its results do not match their SHA-256 (changed since they were written)", name)
	}
	if len(t.Results) != t.Cells[1]-t.Cells[0] {
		return fail("%s holds %d results for %d cells", name, len(t.Results), t.Cells[1]-t.Cells[0])
	}
	for k, r := range t.Results {
		if r.Cell != t.Cells[0]+k {
			return fail("%s: result %d is of cell %d, want %d", name, k, r.Cell, t.Cells[0]+k)
		}
	}
	return &t, nil
}

// TaskError is a task file that is missing, incomplete or not the plan's;
// its message names the task and its file.
type TaskError struct {
	Index int
	Err   error
}

// Error names the task and says what is wrong with it.
func (e *TaskError) Error() string { return fmt.Sprintf("task %d: %v", e.Index, e.Err) }

// Unwrap returns the underlying error.
func (e *TaskError) Unwrap() error { return e.Err }

// CollectCV verifies every task of m in dir and returns all their
// results, or an error listing every task that fails (each a *TaskError),
// and the tasks' time summed.
func CollectCV(dir string, m *CVManifest) ([]classify.CVCellResult, float64, error) {
	var all []classify.CVCellResult
	var errs []error
	seconds := 0.0
	for i := range m.Tasks {
		t, err := VerifyCVTask(dir, m, i)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, t.Results...)
		seconds += t.Seconds
	}
	if len(errs) > 0 {
		return nil, 0, fmt.Errorf("%s: %d of %d tasks are not ready:\n%w", dir, len(errs), m.Tasks, errors.Join(errs...))
	}
	return all, seconds, nil
}
