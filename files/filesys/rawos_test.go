package filesys

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fileCalls are the functions of package os that touch files: outside cmd
// and Dir, krender goes through a FileSystem instead.
var fileCalls = map[string]bool{
	"Open": true, "OpenFile": true, "OpenRoot": true, "OpenInRoot": true, "DirFS": true, "CopyFS": true,
	"ReadFile": true, "WriteFile": true, "Create": true, "CreateTemp": true, "MkdirTemp": true,
	"Mkdir": true, "MkdirAll": true, "Remove": true, "RemoveAll": true, "Rename": true,
	"Stat": true, "Lstat": true, "ReadDir": true, "Readlink": true, "Symlink": true, "Link": true,
	"Getwd": true, "Chdir": true, "Chmod": true, "Chown": true, "Lchown": true, "Chtimes": true, "Truncate": true,
}

// allowed are the folders whose code may call os for files: the command
// line, the benchmark program, Dir itself, and test support.
var allowed = []string{"cmd/", "hack/", "files/filesys/os.go", "internal/testing/", "e2e/"}

// rawCalls lists "file:line: os.X" for each call of a fileCalls function in
// src (any import name of os, io/ioutil whole).
func rawCalls(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p != "os" && p != "io/ioutil" {
			continue
		}
		name := filepath.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if p := names[x.Name]; p == "io/ioutil" || p == "os" && fileCalls[sel.Sel.Name] {
			found = append(found, fset.Position(sel.Pos()).String()+": "+p+"."+sel.Sel.Name)
		}
		return true
	})
	return found
}

func TestRawCallsFound(t *testing.T) {
	src := `package p
import (
	"os"
	sys "os"
	"io/ioutil"
)
func f() {
	os.ReadFile("a")
	sys.Getwd()
	ioutil.ReadAll(nil)
	os.Exit(1)
	_ = os.Stdout
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rawCalls(fset, f), "\n")
	want := "p.go:8:2: os.ReadFile\np.go:9:2: os.Getwd\np.go:10:2: io/ioutil.ReadAll"
	if got != want {
		t.Fatalf("rawCalls found\n%s\nwant\n%s", got, want)
	}
}

// TestNoRawFileCalls holds krender to one way of touching files: code
// outside cmd, hack, test support and Dir calls no os function on files.
func TestNoRawFileCalls(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root %s: %v", root, err)
	}
	fset := token.NewFileSet()
	scanned := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || isAllowed(rel+"/")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || isAllowed(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		scanned++
		for _, c := range rawCalls(fset, f) {
			t.Errorf("%s: call it through a filesys.FileSystem (files/filesys), the one way krender touches files", strings.TrimPrefix(c, root+string(filepath.Separator)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned == 0 {
		t.Fatalf("found no Go file under %s", root)
	}
}

func isAllowed(rel string) bool {
	for _, a := range allowed {
		if strings.HasPrefix(rel, a) {
			return true
		}
	}
	return false
}
