package deps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// allowed lists, for every package of this module (by its path inside the
// module), the packages of the module and the external modules it may
// import. Standard-library imports are not restricted. Upper-case keys name
// sets of packages usable in other entries. It is a statement of the
// layering (see the package doc): change it with the design, never to make
// a build pass.
var allowed = map[string][]string{
	// Helpers below everything: the standard library only, or each other.
	"internal/atomicfile": {"internal/testhold"},
	"internal/rng":        {},
	"internal/checkpoint": {"internal/atomicfile"},
	"internal/deps":       {},
	"internal/membudget":  {},
	"internal/outpath":    {"internal/atomicfile"},
	"internal/dirlock":    {},
	"internal/frame":      {},
	"internal/testhold":   {},
	"INTERNAL":            {"internal/atomicfile", "internal/checkpoint", "internal/dirlock", "internal/frame", "internal/membudget", "internal/outpath", "internal/rng", "internal/testhold"},

	// SIMD kernels: no matrices.
	"asm": {"INTERNAL", "github.com/klauspost/cpuid/v2"},

	// Linear algebra: no networks, machines, certificates, data sets or
	// files; array files (.npy, .npz, mmap) are a package of their own.
	"linalg":     {"internal/rng", "asm", "github.com/klauspost/cpuid/v2", "golang.org/x/sys/unix"},
	"linalg/npy": {"INTERNAL", "linalg", "golang.org/x/sys/unix"},

	// Data.
	"mnist":       {"INTERNAL", "linalg"},
	"svm/dataset": {"INTERNAL", "linalg", "linalg/npy", "mnist"},

	// Kernels: no training.
	"ntk": {"INTERNAL", "asm", "linalg", "linalg/npy"},

	// The training loop (Driver, Stepper, BatchStream, checkpoints): no
	// model, no kernel, no matrix, no certificate; trainers plug into it.
	"svm/train": {"INTERNAL"},

	// Kernel machines with their exact and subgradient solvers, the network
	// trainer, and the extraction of Theorem 4.1 with the bound of Appendix
	// B, each above the one before: no certificates.
	"svm":          {"INTERNAL", "asm", "linalg", "ntk", "svm/train"},
	"svm/network":  {"INTERNAL", "linalg", "ntk", "svm", "svm/train"},
	"svm/extract":  {"INTERNAL", "linalg", "ntk", "svm", "svm/network", "svm/train"},
	"svm/falkon":   {"INTERNAL", "linalg", "ntk"},
	"svm/ondemand": {"INTERNAL", "linalg", "ntk"},
	// Kernel regression on all points by preconditioned SGD over blocks
	// of kernel rows.
	"svm/eigenpro": {"INTERNAL", "linalg", "ntk"},
	// Probabilities from decision values (Platt, pairwise coupling):
	// numbers in, numbers out.
	"svm/calibrate": {},
	// The multi-class machines and their model selection choose between
	// the dense Gram and the fits at scale (on-demand rows, Falkon,
	// EigenPro).
	"svm/classify": {"INTERNAL", "asm", "linalg", "ntk", "svm", "svm/calibrate", "svm/dataset", "svm/eigenpro", "svm/falkon", "svm/ondemand"},
	// Regression on a user's data, beside the classifier: its grid and
	// selection rule are classify's.
	"svm/regress": {"INTERNAL", "linalg", "ntk", "svm", "svm/classify", "svm/dataset"},

	// Certificates: matrices and kernels, not machine types; SIMD only
	// through linalg.
	"ibp": {"INTERNAL", "linalg", "ntk"},
	// The certificates of the multi-class machines: their margins as
	// kernel machines for ibp.
	"svm/classify/certify": {"INTERNAL", "linalg", "ntk", "ibp", "svm", "svm/classify"},

	"LIBRARY": {"asm", "ibp", "linalg", "linalg/npy", "mnist", "ntk", "svm", "svm/calibrate", "svm/classify", "svm/classify/certify", "svm/dataset", "svm/eigenpro", "svm/extract", "svm/falkon",
		"svm/network", "svm/ondemand", "svm/regress", "svm/train"},

	// Presentation: no model package.
	"cmd/internal/present/output":   {"INTERNAL"},
	"cmd/internal/present/plot":     {"INTERNAL"},
	"cmd/internal/present/progress": {"INTERNAL"},
	"cmd/internal/present/report":   {"INTERNAL"},
	"PRESENTATION":                  {"cmd/internal/present/output", "cmd/internal/present/plot", "cmd/internal/present/progress", "cmd/internal/present/report"},

	// Experiments and the command: they wire files to models.
	"cmd/internal/experiment/benchdata": {"INTERNAL", "PRESENTATION", "LIBRARY"},
	"cmd/internal/experiment/bench":     {"INTERNAL", "PRESENTATION", "LIBRARY", "cmd/internal/experiment/benchdata", "github.com/klauspost/cpuid/v2"}, // tables name the CPU
	"cmd/internal/experiment":           {"INTERNAL", "PRESENTATION", "linalg"},                                                                        // the skeleton every experiment shares
	"cmd/internal/experiment/equiv":     {"INTERNAL", "PRESENTATION", "LIBRARY", "cmd/internal/experiment"},
	"cmd/internal/experiment/genbound":  {"INTERNAL", "PRESENTATION", "LIBRARY", "cmd/internal/experiment"},
	"cmd/internal/tiles":                {"INTERNAL", "LIBRARY", "github.com/klauspost/cpuid/v2"}, // records name the CPU and its caches
	"cmd/internal/experiment/reproduce": {"INTERNAL", "PRESENTATION", "LIBRARY", "cmd/internal/experiment/benchdata", "cmd/internal/experiment/equiv", "cmd/internal/experiment/genbound"},
	"cmd/ntksvm": {
		"INTERNAL", "PRESENTATION", "LIBRARY",
		"cmd/internal/experiment", "cmd/internal/experiment/bench", "cmd/internal/experiment/benchdata", "cmd/internal/experiment/equiv", "cmd/internal/experiment/genbound", "cmd/internal/experiment/reproduce", "cmd/internal/tiles",
		"github.com/klauspost/cpuid/v2", "golang.org/x/sys/unix",
	},
}

// configs are the build configurations whose imports are checked: imports
// behind build tags differ between them.
var configs = []struct {
	name string
	env  []string
	args []string
}{
	{"host", nil, nil},
	{"linux/amd64 purego", []string{"GOOS=linux", "GOARCH=amd64"}, []string{"-tags=purego"}},
	{"linux/arm64", []string{"GOOS=linux", "GOARCH=arm64"}, nil},
	{"darwin/arm64", []string{"GOOS=darwin", "GOARCH=arm64"}, nil},
	{"windows/amd64", []string{"GOOS=windows", "GOARCH=amd64"}, nil},
}

// listed is the part of `go list -json` the test reads.
type listed struct {
	ImportPath string
	Imports    []string
	Error      *struct{ Err string }
	Dir        string   // TestStages
	GoFiles    []string // TestStages
}

func TestDependencies(t *testing.T) {
	if err := checkTable(allowed); err != nil {
		t.Fatal(err)
	}
	module, root := goListModule(t)
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"list", "-e", "-json=ImportPath,Imports,Error"}, c.args...)
			pkgs := goList(t, root, c.env, append(args, "./...")...)
			if len(pkgs) == 0 {
				t.Fatal("go list found no packages")
			}
			for _, p := range pkgs {
				if p.Error != nil {
					t.Errorf("%s: %s", p.ImportPath, p.Error.Err) // and its imports are checked too
				}
				for _, msg := range violations(module, p.ImportPath, p.Imports, allowed) {
					t.Error(msg)
				}
			}
		})
	}
}

// violations returns one message per import of pkg (a full import path in
// module) that the table does not allow, or a single message if pkg is not
// in the table.
func violations(module, pkg string, imports []string, table map[string][]string) []string {
	rel, ok := relative(module, pkg)
	if !ok {
		return []string{fmt.Sprintf("%s is outside module %s", pkg, module)}
	}
	if _, ok := table[rel]; !ok || isAlias(rel) {
		return []string{fmt.Sprintf("package %s is not in the dependency table: add it to allowed in internal/deps/deps_test.go with the imports it may use (in the lowest layer that has them)", rel)}
	}
	ok2 := expand(table, rel)
	var msgs []string
	for _, imp := range imports {
		name, ours := relative(module, imp)
		if !ours {
			if isStd(imp) {
				continue
			}
			name = imp
		}
		if !ok2[name] {
			msgs = append(msgs, fmt.Sprintf("forbidden import: %s imports %s, which its entry in internal/deps/deps_test.go does not allow (allowed: %s)", rel, name, strings.Join(table[rel], ", ")))
		}
	}
	return msgs
}

// expand returns the set of imports key may use, with sets resolved.
func expand(table map[string][]string, key string) map[string]bool {
	set := map[string]bool{}
	var add func(string)
	add = func(name string) {
		for _, n := range table[name] {
			if isAlias(n) {
				add(n)
				continue
			}
			set[n] = true
		}
	}
	add(key)
	return set
}

// checkTable reports an entry that names neither a package of the table,
// a set, nor an external module path.
func checkTable(table map[string][]string) error {
	var errs []error
	for key, deps := range table {
		for _, d := range deps {
			_, known := table[d]
			if !known && !strings.Contains(strings.SplitN(d, "/", 2)[0], ".") {
				errs = append(errs, fmt.Errorf("dependency table: %s lists %q, which is neither a package of the table, a set, nor an external module path", key, d))
			}
			if d == key {
				errs = append(errs, fmt.Errorf("dependency table: %s lists itself", key))
			}
		}
	}
	return errors.Join(errs...)
}

func isAlias(name string) bool {
	return name == strings.ToUpper(name) && !strings.ContainsAny(name, "./")
}

// isStd reports whether path is a standard-library import path: its first
// element has no dot.
func isStd(path string) bool { return !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") }

func relative(module, path string) (string, bool) {
	if path == module {
		return ".", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// goTool returns the go command; go test puts its own first on PATH.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the packages: %v", err)
	}
	return p
}

func goListModule(t *testing.T) (path, dir string) {
	t.Helper()
	out, err := exec.Command(goTool(t), "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	path, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok {
		t.Fatalf("go list -m: unexpected output %q", out)
	}
	return path, dir
}

func goList(t *testing.T, dir string, env []string, args ...string) []listed {
	t.Helper()
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CGO_ENABLED=0"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestViolations checks the checker on a small table.
func TestViolations(t *testing.T) {
	const m = "example.com/m"
	table := map[string][]string{
		"low":  {},
		"LOW":  {"low"},
		"mid":  {"LOW", "example.org/ext"},
		"high": {"mid", "LOW"},
	}
	tests := []struct {
		name    string
		pkg     string
		imports []string
		want    []string // substrings, one per message
	}{
		{"allowed", m + "/high", []string{"fmt", m + "/mid", m + "/low"}, nil},
		{"through a set", m + "/mid", []string{m + "/low", "example.org/ext"}, nil},
		{"upward edge", m + "/low", []string{m + "/mid"}, []string{"low imports mid"}},
		{"external", m + "/high", []string{"example.org/ext"}, []string{"high imports example.org/ext"}},
		{"unknown package", m + "/new", []string{"fmt"}, []string{"package new is not in the dependency table"}},
		{"set is no package", m + "/LOW", nil, []string{"package LOW is not in the dependency table"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations(m, tt.pkg, tt.imports, table)
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d messages containing %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("message %q does not contain %q", got[i], w)
				}
			}
		})
	}
	if err := checkTable(map[string][]string{"a": {"b"}}); err == nil {
		t.Error("checkTable accepted an entry naming an unknown package")
	}
	if err := checkTable(table); err != nil {
		t.Errorf("checkTable: %v", err)
	}
}

// TestPresentationNoModel: the table lets no presentation package (under
// cmd/internal/present/) import a model package, directly or through a
// set, so that the rule holds for every presentation package added later.
func TestPresentationNoModel(t *testing.T) {
	if bad := modelImports(allowed, "cmd/internal/present/"); len(bad) > 0 {
		t.Errorf("presentation may import model packages: %s", strings.Join(bad, "; "))
	}
	// The check itself: a table that lets a plot import svm fails it.
	table := map[string][]string{"cmd/internal/present/plot": {"svm"}, "cmd/internal/present/output": {"INTERNAL"}, "INTERNAL": {}}
	if bad := modelImports(table, "cmd/internal/present/"); len(bad) != 1 {
		t.Errorf("a plot allowed svm: %v", bad)
	}
}

// modelImports returns, for every package of table under prefix, the model
// packages (svm and its subpackages, ntk, ibp) its entry allows.
func modelImports(table map[string][]string, prefix string) []string {
	var bad []string
	for pkg := range table {
		if !strings.HasPrefix(pkg, prefix) || isAlias(pkg) {
			continue
		}
		for imp := range expand(table, pkg) {
			if imp == "svm" || strings.HasPrefix(imp, "svm/") || imp == "ntk" || imp == "ibp" {
				bad = append(bad, pkg+" → "+imp)
			}
		}
	}
	return bad
}
