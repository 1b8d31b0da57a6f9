package guard

import (
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/krender/krender/internal/layers"
)

// TestImportsRunDown holds every package of the module to layers.Table: it imports
// only its own layer and those below, test support is imported by tests and
// hack alone, and every package stands in a row. It reads the sources
// itself, so no missing tool can make it pass unread.
func TestImportsRunDown(t *testing.T) {
	pkgs := readImports(t)
	if len(pkgs) < len(layers.Table) {
		t.Fatalf("read %d packages: the walk found too few to hold to the table", len(pkgs))
	}
	for _, dir := range sortedKeys(pkgs) {
		from, ok := layers.Of(dir)
		if !ok {
			t.Errorf("%s: no row of layers.Table places this package: add its folder where its imports say it stands", dir)
			continue
		}
		for _, imp := range pkgs[dir] {
			if msg := judge(dir, from, imp.path); msg != "" {
				t.Errorf("%s: %s", imp.pos, msg)
			}
		}
	}
}

// judge is why the import of path from dir (on layer from) breaks the
// table, or "".
func judge(dir string, from int, path string) string {
	to, ok := layers.Of(path)
	switch {
	case !ok:
		return "imports " + path + ", which no row of layers.Table places"
	case to == layers.TestSupport && from != layers.TestSupport && !strings.HasPrefix(dir, "hack/") && dir != "hack":
		return "imports " + path + ", test support, which only tests and hack may import"
	case to < from:
		return "imports " + path + " (" + layers.Table[to].Name + "), which stands above " + layers.Table[from].Name + ": imports run down"
	}
	return ""
}

// TestEveryRowHoldsAPackage: a row whose folders hold no package is a
// table that no longer matches the tree.
func TestEveryRowHoldsAPackage(t *testing.T) {
	pkgs := readImports(t)
	for _, l := range layers.Table {
		for _, f := range l.Folders {
			if !slices.ContainsFunc(sortedKeys(pkgs), func(d string) bool { return d == f || strings.HasPrefix(d, f+"/") }) {
				t.Errorf("layer %q names %s, which holds no package", l.Name, f)
			}
		}
	}
}

func TestJudge(t *testing.T) {
	at := func(dir string) int { i, _ := layers.Of(dir); return i }
	for _, c := range []struct {
		dir, imp string
		runsUp   bool
	}{
		{"model/profiles", Module + "/render/contenthash/refs", true},
		{"files/output", Module + "/render", false},
		{"render", Module + "/files/output", true},
		{"render/zones", Module + "/internal/testing/testtool", true},
		{"hack/bench", Module + "/internal/testing/fleetgen", false},
		{"lint/check", Module + "/action", true},
		{"action", Module + "/lint/check", false},
		{"model/manifest", Module + "/model/filepos", false},
	} {
		if got := judge(c.dir, at(c.dir), c.imp) != ""; got != c.runsUp {
			t.Errorf("judge(%s imports %s) breaks the table: %v, want %v", c.dir, c.imp, got, c.runsUp)
		}
	}
}

type imported struct {
	path string
	pos  token.Position
}

// readImports is, for each folder of the module that holds non-test Go
// files, the module's packages they import.
func readImports(t *testing.T) map[string][]imported {
	t.Helper()
	tr := Read(t, parser.ImportsOnly, func(_ string, test bool) bool { return !test })
	pkgs := map[string][]imported{}
	for _, f := range tr.Files {
		dir := path.Dir(f.Rel)
		if pkgs[dir] == nil {
			pkgs[dir] = []imported{}
		}
		for _, s := range f.AST.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			if p == Module || strings.HasPrefix(p, Module+"/") {
				pkgs[dir] = append(pkgs[dir], imported{p, tr.Position(s.Pos())})
			}
		}
	}
	return pkgs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
