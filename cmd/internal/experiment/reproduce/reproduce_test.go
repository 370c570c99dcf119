package reproduce

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ntksvm/ntksvm/cmd/internal/experiment/equiv"
	"github.com/ntksvm/ntksvm/mnist"
)

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		paper string
		ours  float64
		tol   Tolerance
		want  Verdict
	}{
		{"2114", 2114, Exact(), Match},
		{"2114", 2113, Exact(), Differs},
		{"7.9733e-3", 7.97334e-3, Rel(0.02), Match},   // within half a unit of the last digit
		{"7.9733e-3", 7.975e-3, Rel(0.02), Within},    // 0.02 % off
		{"7.9733e-3", 8.2e-3, Rel(0.02), Differs},     // 2.8 % off
		{"0.026088", 0.0260881, Rel(0.005), Match},    // Table 3, λ = 1000
		{"3.30202e-5", 3.3007e-5, Rel(0.005), Within}, // Table 3, λ = 0
		{"3.30202e-5", 3.4e-5, Rel(0.005), Differs},
		{"0.912", 0.9433, Abs(0.04), Within},
		{"0.912", 0.96, Abs(0.04), Differs},
		{"3.16", 3.0, Band(2.5, 4), Within},
		{"3.16", 3.16, Band(2.5, 4), Match},
		{"3.16", 5, Band(2.5, 4), Differs},
		{"3.16", 3.16, Band(3.5, 4), Differs}, // the band is on ours alone
		{"1.5e-3", math.NaN(), Band(0, 1), Differs},
		{"1.5e-3", math.Inf(1), Rel(1), Differs},
	} {
		got, d, err := Judge(tc.paper, tc.ours, tc.tol)
		if err != nil || got != tc.want {
			t.Errorf("Judge(%s, %v, %v) = %v (diff %v), %v; want %v", tc.paper, tc.ours, tc.tol, got, d, err, tc.want)
		}
	}
	for _, bad := range []struct {
		paper string
		tol   Tolerance
	}{{"x", Exact()}, {"1e", Exact()}, {"1", Rel(-1)}, {"1", Band(2, 1)}, {"1", Tolerance{Kind: "odd"}}} {
		if _, _, err := Judge(bad.paper, 1, bad.tol); err == nil {
			t.Errorf("Judge(%q, %v): no error", bad.paper, bad.tol)
		}
	}
}

func TestParsePaperAndFormat(t *testing.T) {
	for _, tc := range []struct {
		s        string
		v, half  float64
		ours     float64
		wantOurs string
	}{
		{"7.9733e-3", 7.9733e-3, 0.5e-7, 7.97512e-3, "7.97512e-3"},
		{"0.001005", 0.001005, 0.5e-6, 0.00100551, "0.0010055"},
		{"2114", 2114, 0.5, 2113, "2113"},
		{"99.95", 99.95, 0.005, 99.9527, "99.953"},
	} {
		v, half, err := ParsePaper(tc.s)
		if err != nil || math.Abs(v-tc.v) > 1e-15 || math.Abs(half-tc.half) > 1e-12*tc.half {
			t.Errorf("ParsePaper(%q) = %v, %v, %v; want %v, %v", tc.s, v, half, err, tc.v, tc.half)
		}
		if got := FormatLike(tc.s, tc.ours); got != tc.wantOurs {
			t.Errorf("FormatLike(%q, %v) = %q, want %q", tc.s, tc.ours, got, tc.wantOurs)
		}
	}
}

// testSVG is a small valid SVG document.
const testSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="5"/></svg>`

// synthetic returns a registry of n entries e0, e1, …; entry block waits
// for its context to end (the first time it runs), and runs[i] counts the
// runs of entry i.
func synthetic(t *testing.T, n, block int, runs []int) *Registry {
	r := &Registry{}
	blocked := false
	for i := 0; i < n; i++ {
		err := r.Add(&Entry{Name: fmt.Sprintf("e%d", i), Title: fmt.Sprintf("Entry %d", i), Paper: "a number",
			Run: func(ctx context.Context, env *Env) (*Result, error) {
				runs[i]++
				if i == block && !blocked {
					blocked = true
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return &Result{
					Rows: []Row{
						{Quantity: "count", Paper: "2114", Ours: float64(2114 - i), Tol: Exact(), Reason: "synthetic"},
						{Quantity: "radius", Paper: "7.9733e-3", Ours: 7.975e-3, Tol: Rel(0.02), Reduction: "width 10³"},
						{Quantity: "missing", Paper: "1.5", Ours: math.NaN(), Tol: Abs(0.1)},
					},
					Figures: []Figure{{Name: "fig", Caption: "a figure", SVG: []byte(testSVG)}},
					Notes:   []string{"a note with <markup> & *stars*"},
				}, nil
			},
			Estimate: func(context.Context, *Env) (time.Duration, error) { return time.Second, nil },
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestResume interrupts the second of three experiments through its
// context, then resumes: the first is loaded, not re-run; the second and
// third run.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	runs := make([]int, 3)
	reg := synthetic(t, 3, 1, runs)
	ctx, cancel := context.WithCancel(context.Background())
	rn := &Runner{Entries: reg.Entries(), Out: dir, Env: &Env{Scale: Quick},
		Started: func(e *Entry, resumed bool) {
			if e.Name == "e1" {
				go func() { time.Sleep(10 * time.Millisecond); cancel() }()
			}
		}}
	run, err := rn.Run(ctx)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err %v", err)
	}
	if len(run.Results) != 1 || !reflect.DeepEqual(runs, []int{1, 1, 0}) {
		t.Fatalf("interrupted run: %d results, runs %v", len(run.Results), runs)
	}
	for name, want := range map[string]bool{"e0": true, "e1": false, "e2": false} {
		_, err := os.Stat(filepath.Join(dir, name, ResultFile))
		if (err == nil) != want {
			t.Errorf("%s/%s exists: %v, want %v", name, ResultFile, err == nil, want)
		}
	}

	if saved := readRun(t, dir); !reflect.DeepEqual(saved.Unfinished, []Unfinished{{"e1", "interrupted"}, {"e2", "waiting"}}) {
		t.Errorf("interrupted run's results.json lists unfinished %v", saved.Unfinished)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "report.md")); !strings.Contains(string(md), "| e1 | interrupted | e1/ |") || !strings.Contains(string(md), "| wall time of this run up to this report |") {
		t.Errorf("interrupted run's report.md does not list e1 as interrupted, or gives its wall time as the whole run's:\n%s", md)
	}

	rn = &Runner{Entries: reg.Entries(), Out: dir, Env: &Env{Scale: Quick}, Resume: true}
	run, err = rn.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if saved := readRun(t, dir); len(saved.Unfinished) != 0 {
		t.Errorf("finished run's results.json lists unfinished %v", saved.Unfinished)
	}
	if !reflect.DeepEqual(runs, []int{1, 2, 1}) || !reflect.DeepEqual(run.Resumed, []string{"e0"}) || len(run.Results) != 3 {
		t.Errorf("resumed run: runs %v, resumed %v, %d results", runs, run.Resumed, len(run.Results))
	}
	if run.Results[0].Rows[1].Verdict != Within || run.Results[0].Rows[2].Verdict != Differs || !math.IsNaN(run.Results[0].Rows[2].Ours) {
		t.Errorf("loaded rows lost their verdicts or NaN: %+v", run.Results[0].Rows)
	}

	// Another scale does not count as done.
	rn = &Runner{Entries: reg.Entries()[:1], Out: dir, Env: &Env{Scale: Paper}, Resume: true}
	if _, err := rn.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if runs[0] != 2 {
		t.Errorf("a quick result resumed a paper run: runs %v", runs)
	}
}

// readRun reads DIR/results.json.
func readRun(t *testing.T, dir string) *Run {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := ReadRun(f)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestReportWhileRunning: while an experiment runs, the report names it as
// running and the ones after it as waiting; when resuming, it already
// holds every experiment an earlier run finished, also those after it.
func TestReportWhileRunning(t *testing.T) {
	dir := t.TempDir()
	var seen *Run
	reg := &Registry{}
	for _, name := range []string{"a", "b", "c"} {
		if err := reg.Add(&Entry{Name: name, Title: name, Paper: "1",
			Run: func(_ context.Context, env *Env) (*Result, error) {
				if name == "b" {
					seen = readRun(t, filepath.Dir(env.Dir))
				}
				return &Result{Rows: []Row{{Quantity: "x", Paper: "1", Ours: 1, Tol: Exact()}}}, nil
			}}); err != nil {
			t.Fatal(err)
		}
	}
	rn := &Runner{Entries: reg.Entries(), Out: dir, Env: &Env{Scale: Quick}}
	if _, err := rn.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if u := seen.Unfinished; len(u) != 2 || u[0].Name != "b" || !strings.HasPrefix(u[0].State, "running since ") || u[1] != (Unfinished{"c", "waiting"}) {
		t.Errorf("while b ran, results.json listed unfinished %v", u)
	}
	if len(seen.Results) != 1 || seen.Results[0].Name != "a" {
		t.Errorf("while b ran, results.json held %d results, want a's", len(seen.Results))
	}

	// b's result lost: a resumed run reruns b, and while it runs the
	// report shows a and c, in order, and only b unfinished.
	if err := os.Remove(filepath.Join(dir, "b", ResultFile)); err != nil {
		t.Fatal(err)
	}
	rn = &Runner{Entries: reg.Entries(), Out: dir, Env: &Env{Scale: Quick}, Resume: true}
	run, err := rn.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if u := seen.Unfinished; len(u) != 1 || u[0].Name != "b" || !strings.HasPrefix(u[0].State, "running since ") {
		t.Errorf("while b ran again, results.json listed unfinished %v, want b alone", u)
	}
	var names []string
	for _, r := range seen.Results {
		names = append(names, r.Name)
	}
	if !reflect.DeepEqual(names, []string{"a", "c"}) || !reflect.DeepEqual(seen.Resumed, []string{"a", "c"}) {
		t.Errorf("while b ran again, results.json held %v (resumed %v), want a and c", names, seen.Resumed)
	}
	names = names[:0]
	for _, r := range run.Results {
		names = append(names, r.Name)
	}
	if !reflect.DeepEqual(names, []string{"a", "b", "c"}) {
		t.Errorf("resumed run's results %v, want a, b, c in entry order", names)
	}
}

// TestReportFiles: every SVG that report.md links exists and parses as
// XML, report.html inlines them without external resources, and
// results.json round-trips.
func TestReportFiles(t *testing.T) {
	dir := t.TempDir()
	runs := make([]int, 2)
	rn := &Runner{Entries: synthetic(t, 2, -1, runs).Entries(), Out: dir, Env: &Env{Scale: Quick}, Machine: ThisMachine()}
	run, err := rn.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\(([^)]+\.svg)\)`).FindAllStringSubmatch(string(md), -1)
	if len(links) != 2 {
		t.Fatalf("report.md links %d SVGs, want 2:\n%s", len(links), md)
	}
	for _, l := range links {
		b, err := os.ReadFile(filepath.Join(dir, l[1]))
		if err != nil {
			t.Errorf("linked %s: %v", l[1], err)
			continue
		}
		if err := CheckSVG(b); err != nil {
			t.Errorf("%s: %v", l[1], err)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(html), "<svg"); n < 2 || strings.Contains(string(html), "src=\"http") {
		t.Errorf("report.html: %d inline SVGs or external resources", n)
	}
	for _, want := range []string{"7.9733e−3", "within tolerance", "width 10³", ThisMachine().Kernels} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	back := readRun(t, dir)
	for _, r := range run.Results {
		for i := range r.Figures {
			r.Figures[i].SVG = nil // not in results.json
		}
	}
	for _, r := range back.Results {
		for i := range r.Rows {
			for _, p := range []*float64{&r.Rows[i].Ours, &r.Rows[i].Diff} {
				if math.IsNaN(*p) {
					*p = -999 // NaN ≠ NaN; compare as a marker
				}
			}
		}
	}
	for _, r := range run.Results {
		for i := range r.Rows {
			for _, p := range []*float64{&r.Rows[i].Ours, &r.Rows[i].Diff} {
				if math.IsNaN(*p) {
					*p = -999
				}
			}
		}
	}
	if !reflect.DeepEqual(back.Results, run.Results) || back.Machine != run.Machine {
		t.Errorf("results.json does not round-trip:\n%+v\n%+v", back.Results[0], run.Results[0])
	}

	var out bytes.Buffer
	if err := WriteSummary(&out, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"differs: synthetic", "match", "total wall time"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestSelect(t *testing.T) {
	reg := synthetic(t, 3, -1, make([]int, 3))
	for _, tc := range []struct {
		only string
		want []string
		err  string
	}{
		{"", []string{"e0", "e1", "e2"}, ""},
		{"e2,e0", []string{"e0", "e2"}, ""},
		{" e1 ", []string{"e1"}, ""},
		{"e1,bogus", nil, "unknown experiment bogus; known: e0, e1, e2"},
		{"e1,e1", nil, "e1 named more than once"},
		{"e1,bogus,e1", nil, "unknown experiment bogus; known: e0, e1, e2; e1 named more than once"},
		{"e1,", nil, `""`},
	} {
		sel, err := reg.Select(tc.only)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Select(%q): err %v, want %q", tc.only, err, tc.err)
			}
			continue
		}
		var names []string
		for _, e := range sel {
			names = append(names, e.Name)
		}
		if err != nil || !reflect.DeepEqual(names, tc.want) {
			t.Errorf("Select(%q) = %v, %v; want %v", tc.only, names, err, tc.want)
		}
	}
	if err := reg.Add(&Entry{Name: "e0", Run: reg.Entries()[0].Run}); err == nil {
		t.Error("duplicate name accepted")
	}
	if err := reg.Add(&Entry{Name: "a b", Run: reg.Entries()[0].Run}); err == nil {
		t.Error("bad name accepted")
	}
	if err := reg.Add(&Entry{Name: "norun"}); err == nil {
		t.Error("entry without Run accepted")
	}
}

// TestDefaultEntries: every registered entry has a title, a statement of
// the paper, and an estimate for --paper.
func TestDefaultEntries(t *testing.T) {
	for _, e := range Default.Entries() {
		if e.Title == "" || e.Paper == "" || e.Estimate == nil {
			t.Errorf("entry %s: title %q, paper %q, estimate %v", e.Name, e.Title, e.Paper, e.Estimate != nil)
		}
	}
}

func TestEstimates(t *testing.T) {
	dir := t.TempDir()
	runs := make([]int, 2)
	reg := synthetic(t, 2, -1, runs)
	rn := &Runner{Entries: reg.Entries()[:1], Out: dir, Env: &Env{Scale: Paper}}
	if _, err := rn.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	rn = &Runner{Entries: reg.Entries(), Out: dir, Env: &Env{Scale: Paper}, Resume: true}
	es, err := rn.Estimates(context.Background())
	if err != nil || len(es) != 2 || !es[0].Done || es[1].Done || es[1].Time != time.Second {
		t.Errorf("Estimates = %+v, %v", es, err)
	}
}

func TestFindMNISTOffline(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	_, err := FindMNIST(context.Background(), dir, false, mnist.FetchOptions{}, nil)
	if !errors.Is(err, ErrNoData) {
		t.Fatalf("err %v, want ErrNoData", err)
	}
	for _, want := range []string{dir, "--mnist-dir", "NTKSVM_MNIST_DIR", "given by --mnist-dir", "train-images-idx3-ubyte", "t10k-labels-idx1-ubyte", "ntksvm data fetch mnist"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestCPUModel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cpuinfo")
	if err := os.WriteFile(p, []byte("processor\t: 0\nmodel name\t: Test CPU @ 3.0GHz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cpuModel(p); got != "Test CPU @ 3.0GHz" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := cpuModel(filepath.Join(t.TempDir(), "none")); got != "unknown" {
		t.Errorf("cpuModel(missing) = %q", got)
	}
}

// TestResumeReachesEntries checks that a resuming Runner tells the entry
// it runs to continue from its own checkpoints, and that neither a fresh
// run nor an estimate does; a resuming estimate is shown the earlier run's
// directory instead.
func TestResumeReachesEntries(t *testing.T) {
	var seen []bool
	var prev []string
	e := &Entry{Name: "e", Title: "t", Paper: "p",
		Run: func(_ context.Context, env *Env) (*Result, error) {
			seen = append(seen, env.Resume)
			return nil, errors.New("stop")
		},
		Estimate: func(_ context.Context, env *Env) (time.Duration, error) {
			seen = append(seen, env.Resume)
			prev = append(prev, env.Prev)
			return time.Second, nil
		},
	}
	dir := t.TempDir()
	for _, resume := range []bool{false, true} {
		rn := &Runner{Entries: []*Entry{e}, Out: dir, Env: &Env{Scale: Paper}, Resume: resume}
		if _, err := rn.Estimates(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := rn.Run(context.Background()); err == nil {
			t.Fatal("the failing entry's error was not returned")
		}
	}
	if want := []bool{false, false, false, true}; !reflect.DeepEqual(seen, want) {
		t.Errorf("Env.Resume seen by estimate, run, estimate, run: %v, want %v", seen, want)
	}
	if want := []string{"", filepath.Join(dir, "e")}; !reflect.DeepEqual(prev, want) {
		t.Errorf("Env.Prev seen by the estimates of a fresh and a resuming run: %q, want %q", prev, want)
	}
}

// TestSameConfig checks that equiv's checkpoints are continued only under
// exactly the configuration that wrote them.
func TestSameConfig(t *testing.T) {
	cfg, err := equiv.Preset("fig1", true)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if equiv.SameConfig(dir, cfg) {
		t.Error("a directory without config.json was taken as the same run")
	}
	if err := equiv.WriteConfig(dir, cfg); err != nil {
		t.Fatal(err)
	}
	if !equiv.SameConfig(dir, cfg) {
		t.Error("the configuration just written was not recognised")
	}
	other := cfg
	other.MaxSteps++
	if equiv.SameConfig(dir, other) {
		t.Error("a run with other settings would continue these checkpoints")
	}
	paper, err := equiv.Preset("fig1", false)
	if err != nil {
		t.Fatal(err)
	}
	if equiv.SameConfig(dir, paper) {
		t.Error("a paper-scale run would continue quick checkpoints")
	}
}

// TestWallOfResumedEntry: an entry that reports the time of all its
// sessions keeps it; one that reports none gets this session's.
func TestWallOfResumedEntry(t *testing.T) {
	reg := &Registry{}
	for name, wall := range map[string]float64{"long": 36000, "fresh": 0} {
		if err := reg.Add(&Entry{Name: name, Title: name, Paper: "1",
			Run: func(context.Context, *Env) (*Result, error) {
				return &Result{Wall: wall, Rows: []Row{{Quantity: "x", Paper: "1", Ours: 1, Tol: Exact()}}}, nil
			}}); err != nil {
			t.Fatal(err)
		}
	}
	run, err := (&Runner{Entries: reg.Entries(), Out: t.TempDir(), Env: &Env{Scale: Quick}}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range run.Results {
		if (r.Name == "long" && r.Wall != 36000) || (r.Name == "fresh" && !(r.Wall > 0 && r.Wall < 60)) {
			t.Errorf("%s: wall %g s", r.Name, r.Wall)
		}
	}
}
