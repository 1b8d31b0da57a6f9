// Package guard holds the whole tree to krender's rules, one test each:
// imports run down the layer table and docs/architecture.md prints it
// (imports_test.go, layertable_test.go); the environment and the collector
// only in the mains (process_test.go); files only through files/filesys,
// and no program run below the command line (files_test.go); packages held
// to fewer imports than their layer allows (fewer_test.go); the size of
// every hand-written function (complexity_test.go); every `go test` command
// the documentation gives selects a test (doccmd_test.go). Each rule has a
// test that plants a violation and sees it found.
//
// Read is the one walk of krender's own Go sources that the rules share, so
// every rule skips the same folders and none reads a file another misses.
package guard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// Module is the module path whose go.mod marks the root.
const Module = "github.com/krender/krender"

// A File is one parsed source file.
type File struct {
	Rel  string // slash-separated, from the module root
	Test bool   // a _test.go file
	AST  *ast.File
}

// Tree is the module's Go files that a rule reads, parsed into one FileSet.
type Tree struct {
	Root  string
	Fset  *token.FileSet
	Files []File
}

// Read parses, with mode, every Go file of the module that keep accepts
// (nil: all), leaving out folders that hold no code of krender's: testdata, vendor, and names
// starting with "." or "_". A walk that keeps no file fails the test: a rule
// held over nothing holds nothing.
func Read(t testing.TB, mode parser.Mode, keep func(rel string, test bool) bool) *Tree {
	t.Helper()
	tr := &Tree{Root: Root(t), Fset: token.NewFileSet()}
	err := filepath.WalkDir(tr.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != tr.Root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		rel := tr.Rel(p)
		test := strings.HasSuffix(rel, "_test.go")
		if !strings.HasSuffix(rel, ".go") || keep != nil && !keep(rel, test) {
			return nil
		}
		f, err := parser.ParseFile(tr.Fset, p, nil, mode)
		if err != nil {
			return err
		}
		tr.Files = append(tr.Files, File{Rel: rel, Test: test, AST: f})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Files) == 0 {
		t.Fatalf("found no Go file under %s to hold to the rule", tr.Root)
	}
	return tr
}

// Package parses the Go files, tests aside, of the one package in folder
// rel (slash-separated, from the module root): what a test that reads one
// package's declarations holds.
func Package(t testing.TB, rel string) []File {
	t.Helper()
	return Read(t, 0, func(r string, test bool) bool { return !test && path.Dir(r) == rel }).Files
}

func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// Rel is path p (absolute, under Root) from the module root, slash-separated.
func (tr *Tree) Rel(p string) string {
	rel, err := filepath.Rel(tr.Root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// Position is pos with its file named from the module root, as messages
// print it.
func (tr *Tree) Position(pos token.Pos) token.Position {
	p := tr.Fset.Position(pos)
	p.Filename = tr.Rel(p.Filename)
	return p
}

// Under reports whether rel lies in one of the folders dirs (slash paths
// from the module root) or is one of them.
func Under(rel string, dirs ...string) bool {
	for _, d := range dirs {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// Root is the directory of krender's go.mod, at or above the test's.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module "+Module+"\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of " + Module + " at or above the test's directory")
		}
		dir = parent
	}
}
