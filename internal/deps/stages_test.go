package deps

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stages are the Makefile's package lists that a kind of package must be
// on, and the targets of make test that run them.
var stages = []struct {
	variable string   // the Makefile variable
	targets  []string // the targets whose recipes must use it
	why      string   // what puts a package on the list
	needs    func(pkgUses) (string, bool)
}{
	{"RACEPKGS", []string{"test-race"}, "starts goroutines", func(u pkgUses) (string, bool) { return u.goroutine, u.goroutine != "" }},
	{"ASMPKGS", []string{"test-impls", "test-arm64"}, "calls the asm kernels", func(u pkgUses) (string, bool) { return u.kernel, u.kernel != "" }},
}

// asmQueries are the exported names of asm that choose or describe the
// kernel set without running a kernel: a package that uses only these
// runs the same code under every set.
var asmQueries = []string{"Active", "Available", "Check", "Implementation", "Kernels", "Lookup"}

// pkgUses says where (file:line) a package first starts a goroutine and
// first calls an asm kernel, or "" for never.
type pkgUses struct {
	goroutine, kernel string
}

// scanFile adds to u what the Go source file path does: a go statement or
// time.AfterFunc (its function runs in a goroutine of its own) and a call
// of an asm kernel (a name of package asmPath other than asmQueries).
func scanFile(fset *token.FileSet, path string, src any, asmPath string, u *pkgUses) error {
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	names := map[string]string{} // local name → import path
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		names[name] = p
	}
	at := func(n ast.Node) string {
		pos := fset.Position(n.Pos())
		return fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			if u.goroutine == "" {
				u.goroutine = at(n) + " (go statement)"
			}
		case *ast.SelectorExpr:
			x, ok := n.X.(*ast.Ident)
			if !ok {
				break
			}
			switch names[x.Name] {
			case "time":
				if n.Sel.Name == "AfterFunc" && u.goroutine == "" {
					u.goroutine = at(n) + " (time.AfterFunc)"
				}
			case asmPath:
				if !slices.Contains(asmQueries, n.Sel.Name) && u.kernel == "" {
					u.kernel = at(n) + " (asm." + n.Sel.Name + ")"
				}
			}
		}
		return true
	})
	return nil
}

// makeVariables returns the variables of the Makefile at path (NAME :=
// or = VALUE, with continued lines) and the recipe of each target.
func makeVariables(path string) (vars, recipes map[string]string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	vars, recipes = map[string]string{}, map[string]string{}
	assign := regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*[:?]?=\s*(.*)$`)
	rule := regexp.MustCompile(`^([A-Za-z0-9_.-]+):([^=]|$)`)
	target := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "\t") && target != "":
			recipes[target] += line + "\n"
			continue
		case assign.MatchString(line):
			m := assign.FindStringSubmatch(line)
			v := m[2]
			for strings.HasSuffix(v, "\\") && sc.Scan() {
				v = strings.TrimSuffix(v, "\\") + " " + sc.Text()
			}
			vars[m[1]] = v
		case rule.MatchString(line):
			target = rule.FindStringSubmatch(line)[1]
			continue
		}
		target = ""
	}
	return vars, recipes, sc.Err()
}

// TestStages: every package that starts goroutines is on the race
// stage's list (RACEPKGS), every package that calls an asm kernel on the
// list the kernel-set and arm64 stages run (ASMPKGS), every entry of both
// lists is a package, and the stages' recipes use the lists. The sources
// are read as the host and linux/arm64 build them.
func TestStages(t *testing.T) {
	module, root := goListModule(t)
	vars, recipes, err := makeVariables(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	uses := map[string]*pkgUses{} // by "./" path inside the module
	fset := token.NewFileSet()
	for _, env := range [][]string{nil, {"GOOS=linux", "GOARCH=arm64"}} {
		for _, p := range goList(t, root, env, "list", "-e", "-json=ImportPath,Dir,GoFiles", "./...") {
			rel, ok := relative(module, p.ImportPath)
			if p.ImportPath == module {
				rel, ok = ".", true
			}
			if !ok {
				continue
			}
			key := "./" + rel
			if uses[key] == nil {
				uses[key] = &pkgUses{}
			}
			for _, name := range p.GoFiles {
				if err := scanFile(fset, filepath.Join(p.Dir, name), nil, module+"/asm", uses[key]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if uses["./asm"] == nil {
		t.Fatal("go list does not list ./asm")
	}
	uses["./asm"].kernel = "the kernels themselves"
	for _, s := range stages {
		v, ok := vars[s.variable]
		if !ok {
			t.Errorf("the Makefile has no %s", s.variable)
			continue
		}
		listed := strings.Fields(v)
		for _, target := range s.targets {
			if !strings.Contains(recipes[target], "$("+s.variable+")") {
				t.Errorf("the recipe of %s does not use $(%s)", target, s.variable)
			}
		}
		for _, l := range listed {
			if uses[l] == nil {
				t.Errorf("%s lists %s, which is not a package of the module", s.variable, l)
			}
		}
		for pkg, u := range uses {
			if where, needs := s.needs(*u); needs && !slices.Contains(listed, pkg) {
				t.Errorf("%s %s (%s) but is not in the Makefile's %s (stages %s)", pkg, s.why, where, s.variable, strings.Join(s.targets, ", "))
			}
		}
	}
}

// TestScanFile checks what scanFile finds on small sources.
func TestScanFile(t *testing.T) {
	const asmPath = "example.com/m/asm"
	for _, tc := range []struct {
		name, src string
		want      pkgUses
	}{
		{"nothing", "package p\nfunc f() {}\n", pkgUses{}},
		{"go statement", "package p\nfunc f() {\n\tgo f()\n}\n", pkgUses{goroutine: "p.go:3 (go statement)"}},
		{"AfterFunc", "package p\nimport \"time\"\nvar t = time.AfterFunc(0, nil)\n", pkgUses{goroutine: "p.go:3 (time.AfterFunc)"}},
		{"another AfterFunc", "package p\nimport time \"example.com/clock\"\nvar t = time.AfterFunc(0, nil)\n", pkgUses{}},
		{"kernel", "package p\nimport \"example.com/m/asm\"\nfunc f(x []float64) { asm.ReLU64(x, x) }\n", pkgUses{kernel: "p.go:3 (asm.ReLU64)"}},
		{"renamed", "package p\nimport k \"example.com/m/asm\"\nvar f = k.Dot64\n", pkgUses{kernel: "p.go:3 (asm.Dot64)"}},
		{"queries only", "package p\nimport \"example.com/m/asm\"\nvar s = asm.Implementation() + asm.Active().Name()\n", pkgUses{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var u pkgUses
			if err := scanFile(token.NewFileSet(), "p.go", tc.src, asmPath, &u); err != nil {
				t.Fatal(err)
			}
			if u != tc.want {
				t.Errorf("got %+v, want %+v", u, tc.want)
			}
		})
	}
}
