package filesys

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/gosrc"
)

// fileCalls are the functions that touch files, or read the working
// directory, by package: outside cmd and Dir, krender goes through a
// FileSystem instead (Getwd and RealPath for filepath.Abs and
// EvalSymlinks; userfs.Abs on any fs.FS). All of io/ioutil is refused.
var fileCalls = map[string]map[string]bool{
	"os": {
		"Open": true, "OpenFile": true, "OpenRoot": true, "OpenInRoot": true, "DirFS": true, "CopyFS": true,
		"ReadFile": true, "WriteFile": true, "Create": true, "CreateTemp": true, "MkdirTemp": true,
		"Mkdir": true, "MkdirAll": true, "Remove": true, "RemoveAll": true, "Rename": true,
		"Stat": true, "Lstat": true, "ReadDir": true, "Readlink": true, "Symlink": true, "Link": true,
		"Getwd": true, "Chdir": true, "Chmod": true, "Chown": true, "Lchown": true, "Chtimes": true, "Truncate": true,
	},
	"path/filepath": {"Abs": true, "EvalSymlinks": true, "Walk": true, "WalkDir": true, "Glob": true},
	"io/ioutil":     nil,
}

// allowed are the folders whose code may call os for files: the command
// line, the benchmark program, Dir itself, and test support.
var allowed = []string{"cmd/", "hack/", "files/filesys/os.go", "internal/testing/", "e2e/"}

// rawCalls lists "file:line: os.X" for each call of a fileCalls function in
// src (any import name of the package).
func rawCalls(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := fileCalls[p]; !ok {
			continue
		}
		name := path.Base(p)
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
		if p, ok := names[x.Name]; ok && (p == "io/ioutil" || fileCalls[p][sel.Sel.Name]) {
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
	fp "path/filepath"
)
func f() {
	os.ReadFile("a")
	sys.Getwd()
	ioutil.ReadAll(nil)
	os.Exit(1)
	_ = os.Stdout
	fp.Abs("a")
	fp.EvalSymlinks("a")
	fp.Join("a", "b")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rawCalls(fset, f), "\n")
	want := "p.go:9:2: os.ReadFile\np.go:10:2: os.Getwd\np.go:11:2: io/ioutil.ReadAll\np.go:14:2: path/filepath.Abs\np.go:15:2: path/filepath.EvalSymlinks"
	if got != want {
		t.Fatalf("rawCalls found\n%s\nwant\n%s", got, want)
	}
}

// TestNoRawFileCalls holds krender to one way of touching files: code
// outside cmd, hack, test support and Dir calls no os function on files.
func TestNoRawFileCalls(t *testing.T) {
	tr := gosrc.Read(t, parser.SkipObjectResolution, func(rel string, test bool) bool {
		return !test && !isAllowed(rel)
	})
	for _, f := range tr.Files {
		for _, c := range rawCalls(tr.Fset, f.AST) {
			t.Errorf("%s: call it through a filesys.FileSystem (files/filesys), the one way krender touches files", strings.TrimPrefix(c, tr.Root+string(filepath.Separator)))
		}
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
