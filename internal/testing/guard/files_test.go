package guard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fileCalls are the functions that touch files, or read the working
// directory, by package: outside the mains and Dir, krender goes through a
// FileSystem instead (Getwd and RealPath for filepath.Abs and
// EvalSymlinks; userfs.Abs on any fs.FS). All of io/ioutil is refused;
// syscall's calls are os's underneath.
var fileCalls = map[string]map[string]bool{
	"os": {
		"Open": true, "OpenFile": true, "OpenRoot": true, "OpenInRoot": true, "DirFS": true, "CopyFS": true,
		"ReadFile": true, "WriteFile": true, "Create": true, "CreateTemp": true, "MkdirTemp": true,
		"Mkdir": true, "MkdirAll": true, "Remove": true, "RemoveAll": true, "Rename": true,
		"Stat": true, "Lstat": true, "ReadDir": true, "Readlink": true, "Symlink": true, "Link": true,
		"Getwd": true, "Chdir": true, "Chmod": true, "Chown": true, "Lchown": true, "Chtimes": true, "Truncate": true,
	},
	"syscall": {
		"Open": true, "Openat": true, "Creat": true, "Mkdir": true, "Mkdirat": true, "Unlink": true, "Unlinkat": true,
		"Rmdir": true, "Rename": true, "Renameat": true, "Stat": true, "Lstat": true, "Fstatat": true, "Getwd": true,
		"Chdir": true, "Readlink": true, "Symlink": true, "Link": true, "Chmod": true, "Chown": true, "Truncate": true,
		"ReadDirent": true, "Getdents": true, "Mknod": true, "Utimes": true, "UtimesNano": true,
	},
	"path/filepath": {"Abs": true, "EvalSymlinks": true, "Walk": true, "WalkDir": true, "Glob": true},
	"io/ioutil":     nil,
}

// allowed are the files and folders whose code may call os for files: the
// mains, the benchmark program, Dir itself, and test support.
var allowed = []string{"cmd/krender/", "cmd/krender-check/", "hack/", "files/filesys/os.go", "internal/testing/", "e2e/"}

// excepted are the calls a file outside allowed makes on purpose: the
// hand-over looks for krender-check beside its own executable, a path
// os.Executable gives (its links followed) and no user types.
var excepted = map[string][]string{"cmd/internal/handover/run.go": {"path/filepath.EvalSymlinks", "os.Stat"}}

// rawCalls lists "file:line:col: os.X" for each use in f (the file rel) of a
// fileCalls function, under any import name, or of a dot import of their
// packages, but those excepted for rel.
func rawCalls(fset *token.FileSet, f *ast.File, rel string) []string {
	var found []string
	for _, u := range usesOf(f, func(p string) bool { _, ok := fileCalls[p]; return ok }) {
		if u.name != "." && u.path != "io/ioutil" && !fileCalls[u.path][u.name] || slices.Contains(excepted[rel], u.String()) {
			continue
		}
		found = append(found, fset.Position(u.pos).String()+": "+u.String())
	}
	return found
}

func TestRawCallsFound(t *testing.T) {
	src := `package p
import (
	"os"
	sys "os"
	"io/ioutil"
	fp "path/filepath"
	"syscall"
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
	syscall.Open("a", 0, 0)
	_ = syscall.EPERM
	os.Stat("a")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rawCalls(fset, f, "action/p.go"), "\n")
	want := "p.go:10:2: os.ReadFile\np.go:11:2: os.Getwd\np.go:12:2: io/ioutil.ReadAll\np.go:15:2: path/filepath.Abs\np.go:16:2: path/filepath.EvalSymlinks\np.go:18:2: syscall.Open\np.go:20:2: os.Stat"
	if got != want {
		t.Fatalf("rawCalls found\n%s\nwant\n%s", got, want)
	}
	if got := rawCalls(fset, f, "cmd/internal/handover/run.go"); slices.Contains(got, "p.go:20:2: os.Stat") || len(got) != 5 {
		t.Errorf("in handover/run.go, where os.Stat and filepath.EvalSymlinks are excepted, rawCalls found %q", got)
	}
}

// TestRawCallsPlanted: the holes a file could slip through are found where
// the rule walks: a dot import, a renamed one, syscall beneath os, and the
// command line outside the mains.
func TestRawCallsPlanted(t *testing.T) {
	for _, c := range []struct{ rel, src string }{
		{"cmd/internal/cli/x.go", `import "os"; var b, _ = os.ReadFile("p")`},
		{"cmd/internal/handover/run.go", `import "os"; var b, _ = os.ReadFile("p")`},
		{"cmd/internal/cli/delegate.go", `import "os"; var fi, _ = os.Stat("p")`},
		{"action/x.go", `import . "os"; var b, _ = ReadFile("p")`},
		{"render/x.go", `import o "os"; var b, _ = o.ReadFile("p")`},
		{"action/x.go", `import "syscall"; var fd, _ = syscall.Open("p", 0, 0)`},
	} {
		if !isAllowed(c.rel) && len(plant(t, c.rel, c.src, rawCalls)) > 0 {
			continue
		}
		t.Errorf("%s: %s: not found", c.rel, c.src)
	}
	for _, rel := range []string{"cmd/krender/main.go", "files/filesys/os.go", "hack/bench/main.go"} {
		if !isAllowed(rel) {
			t.Errorf("%s: the rule refuses it os's file calls", rel)
		}
	}
}

// plant parses src (a file's body after its package clause) as the file
// rel, and returns what rule finds in it.
func plant(t *testing.T, rel, src string, rule func(*token.FileSet, *ast.File, string) []string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, "package x\n"+src+"\n", parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return rule(fset, f, rel)
}

// TestNoRawFileCalls holds krender to one way of touching files: code
// outside the mains, hack, test support and Dir calls no os function on
// files.
func TestNoRawFileCalls(t *testing.T) {
	tr := Read(t, parser.SkipObjectResolution, func(rel string, test bool) bool {
		return !test && !isAllowed(rel)
	})
	for _, f := range tr.Files {
		for _, c := range rawCalls(tr.Fset, f.AST, f.Rel) {
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
