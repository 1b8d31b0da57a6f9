package rule

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"testing"

	"github.com/krender/krender/internal/testing/guard"
)

// TestTableHoldsEveryDeclaredID: every id model/ruleid declares has one row
// of the table, and every row's id is declared there, so no rule a stage
// notes is missing from the profile schema's list or from check.disable.
func TestTableHoldsEveryDeclaredID(t *testing.T) {
	declared := declaredIDs(t, "model/ruleid")
	if len(declared) < 20 {
		t.Fatalf("read %d ids from model/ruleid: too few to hold the table to", len(declared))
	}
	ids := IDs()
	for _, id := range declared {
		rows := 0
		for _, r := range ids {
			if r == id {
				rows++
			}
		}
		if rows != 1 {
			t.Errorf("model/ruleid declares %q, which %d rows of the table give", id, rows)
		}
	}
	for _, id := range ids {
		if !slices.Contains(declared, id) {
			t.Errorf("the table's rule %q is not declared in model/ruleid", id)
		}
	}
}

// declaredIDs are the string constants the package in folder rel (from the
// module root) declares.
func declaredIDs(t *testing.T, rel string) []string {
	t.Helper()
	var ids []string
	for _, f := range guard.Package(t, rel) {
		for _, d := range f.AST.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: a rule id is a string literal", f.Rel)
					}
					id, _ := strconv.Unquote(lit.Value)
					ids = append(ids, id)
				}
			}
		}
	}
	return ids
}
