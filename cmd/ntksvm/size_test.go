package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command stays a thin layer over the packages: a file of it that
// outgrows maxFileLines, or a function maxFuncLines, holds logic that
// belongs in a package (cmd/internal/… or the library) or in a file of its
// own.
const (
	maxFileLines = 250
	maxFuncLines = 60
)

// TestCommandSize checks the non-test files of this package against
// maxFileLines and their functions (from "func" to the closing brace)
// against maxFuncLines.
func TestCommandSize(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > maxFileLines {
			t.Errorf("%s: %d lines, want ≤ %d: move logic into a package or split the file by job", name, n, maxFileLines)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: func %s: %d lines, want ≤ %d", name, fd.Name.Name, n, maxFuncLines)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
