package complexity

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fzipp/gocyclo"
)

// limit is the highest cyclomatic complexity a function may have.
const limit = 15

// exempt are the trees, relative to the module root, whose code is not
// krender's own: benchmark and maintenance programs, and the generator of
// the synthetic fleet the benchmarks render.
var exempt = []string{"hack", "internal/testing/fleetgen"}

func TestNoFunctionOverLimit(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var stats gocyclo.Stats
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if skipDir(rel, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		// gocyclo leaves out a function marked //gocyclo:ignore; here the
		// mark itself fails, so the limit has no way around it.
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//gocyclo:ignore") {
					t.Errorf("%s: //gocyclo:ignore would exempt a function from the limit of %d: split the function instead", fset.Position(c.Pos()), limit)
				}
			}
		}
		files++
		stats = gocyclo.AnalyzeASTFile(f, fset, stats)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 || len(stats) == 0 {
		t.Fatalf("no Go functions found under %s", root)
	}
	for _, s := range stats.SortAndFilter(-1, limit) {
		pos := s.Pos
		if rel, err := filepath.Rel(root, pos.Filename); err == nil {
			pos.Filename = filepath.ToSlash(rel)
		}
		t.Errorf("%s: %s.%s has cyclomatic complexity %d, over %d: split it into functions whose names say why",
			pos, s.PkgName, s.FuncName, s.Complexity, limit)
	}
}

// skipDir reports whether the directory rel (name base) holds no code of
// krender's that the limit applies to.
func skipDir(rel, base string) bool {
	if rel != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "vendor") {
		return true
	}
	for _, e := range exempt {
		if rel == e {
			return true
		}
	}
	return false
}

// moduleRoot is the directory of krender's go.mod, above this package's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
