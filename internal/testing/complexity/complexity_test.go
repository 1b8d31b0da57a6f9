package complexity

import (
	"go/ast"
	"go/parser"
	"strings"
	"testing"

	"github.com/fzipp/gocyclo"

	"github.com/krender/krender/internal/testing/gosrc"
)

// limit is the highest cyclomatic complexity a function may have.
const limit = 15

// maxLines is the most lines a function may span, from func to its closing
// brace: past a screen a function's steps no longer read at once.
const maxLines = 70

// exempt are the trees, relative to the module root, whose code is not
// krender's own: benchmark and maintenance programs, and the generator of
// the synthetic fleet the benchmarks render.
var exempt = []string{"hack", "internal/testing/fleetgen"}

// krendersOwn is the module's non-test Go code outside exempt, parsed with
// comments.
func krendersOwn(t *testing.T) *gosrc.Tree {
	return gosrc.Read(t, parser.ParseComments, func(rel string, test bool) bool {
		return !test && !gosrc.Under(rel, exempt...)
	})
}

func TestNoFunctionOverLimit(t *testing.T) {
	tr := krendersOwn(t)
	var stats gocyclo.Stats
	for _, f := range tr.Files {
		// gocyclo leaves out a function marked //gocyclo:ignore; here the
		// mark itself fails, so the limit has no way around it.
		for _, cg := range f.AST.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//gocyclo:ignore") {
					t.Errorf("%s: //gocyclo:ignore would exempt a function from the limit of %d: split the function instead", tr.Position(c.Pos()), limit)
				}
			}
		}
		stats = gocyclo.AnalyzeASTFile(f.AST, tr.Fset, stats)
	}
	if len(stats) == 0 {
		t.Fatalf("no Go functions found under %s", tr.Root)
	}
	for _, s := range stats.SortAndFilter(-1, limit) {
		pos := s.Pos
		pos.Filename = tr.Rel(pos.Filename)
		t.Errorf("%s: %s.%s has cyclomatic complexity %d, over %d: split it into functions whose names say why",
			pos, s.PkgName, s.FuncName, s.Complexity, limit)
	}
}

// TestNoFunctionOverLines: generated tables (zz_*) are data, not steps,
// and are left out.
func TestNoFunctionOverLines(t *testing.T) {
	tr := krendersOwn(t)
	funcs := 0
	for _, f := range tr.Files {
		if strings.HasPrefix(f.Rel[strings.LastIndex(f.Rel, "/")+1:], "zz_") {
			continue
		}
		for _, d := range f.AST.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			funcs++
			start, end := tr.Position(fn.Pos()), tr.Position(fn.End())
			if n := end.Line - start.Line + 1; n > maxLines {
				t.Errorf("%s: %s spans %d lines, over %d: split it into functions whose names say why", start, fn.Name.Name, n, maxLines)
			}
		}
	}
	if funcs == 0 {
		t.Fatalf("no Go functions found under %s", tr.Root)
	}
}
