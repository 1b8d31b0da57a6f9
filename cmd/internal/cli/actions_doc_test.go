package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/krender/krender/internal/testing/guard"
)

// cobrasOwn is the action cell of a command cobra brings (help,
// completion): it has no action of krender's, nor have its subcommands.
const cobrasOwn = "cobra's own"

// actionRow is a row of docs/architecture.md's command table:
// "| `check` | `action.Check` |".
var actionRow = regexp.MustCompile("(?m)^\\| `([a-z ]+)` \\| (`([a-z/]+)\\.([A-Z][A-Za-z]*)`|" + cobrasOwn + ") \\|$")

// TestArchitectureNamesEveryAction: docs/architecture.md's table "command
// → action" has a row for every command of the tree and no other, and each
// row names a type that exists: `type NAME struct` in the named package's
// Go files, whose Run keeps the one contract of actions (runContract). A
// command added, or an action renamed, fails here until the table says so.
func TestArchitectureNamesEveryAction(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // command path below krender → [dir, type], or nil for cobra's own
	for _, m := range actionRow.FindAllStringSubmatch(string(doc), -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("architecture.md: two rows for %q", m[1])
		}
		rows[m[1]] = nil
		if m[2] != cobrasOwn {
			rows[m[1]] = []string{m[3], m[4]}
		}
	}
	h := &host{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, fsys: inTree("../../.."),
		env: noEnv, mask: &masker{}}
	seen := map[string]bool{}
	var walk func(c *cobra.Command, cobras bool)
	walk = func(c *cobra.Command, cobras bool) {
		for _, sub := range c.Commands() {
			name := strings.TrimPrefix(sub.CommandPath(), "krender ")
			row, ok := rows[name]
			seen[name] = true
			if !ok && !cobras {
				t.Errorf("%q is missing from architecture.md's table of commands and their actions", sub.CommandPath())
			}
			walk(sub, cobras || ok && row == nil)
		}
	}
	walk(newRoot(h), false)
	if len(seen) < 8 {
		t.Fatalf("only %d commands found", len(seen))
	}
	for name, row := range rows {
		if !seen[name] {
			t.Errorf("architecture.md names %q, which is no command", name)
		}
		if row == nil {
			continue
		}
		files := guard.Package(t, row[0])
		if !declaresStruct(files, row[1]) {
			t.Errorf("architecture.md: %q's action %s.%s: no `type %s struct` in %s", name, row[0], row[1], row[1], row[0])
		}
		if why := runContract(files, row[1]); why != "" {
			t.Errorf("%q's action %s.%s breaks the actions' contract, Run(ctx context.Context) (Result, error): %s", name, row[0], row[1], why)
		}
	}
}

// declaresStruct says whether one of files declares `type name struct`.
func declaresStruct(files []guard.File, name string) bool {
	for _, f := range files {
		for _, d := range f.AST.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.Name == name {
					if _, ok := ts.Type.(*ast.StructType); ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// runContract says why the action type typeName of a package's files
// breaks the one contract of actions, `Run(ctx context.Context) (R,
// error)` with R a type of the action's own package (its Result), or
// returns "".
func runContract(files []guard.File, typeName string) string {
	for _, f := range files {
		for _, d := range f.AST.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "Run" || fn.Recv == nil || receiverName(fn.Recv.List[0].Type) != typeName {
				continue
			}
			return contractBreach(fn.Type)
		}
	}
	return "it has no Run method"
}

// contractBreach checks one Run's signature.
func contractBreach(ft *ast.FuncType) string {
	params, results := ft.Params.List, []*ast.Field(nil)
	if ft.Results != nil {
		results = ft.Results.List
	}
	if len(params) != 1 || len(params[0].Names) > 1 || types.ExprString(params[0].Type) != "context.Context" {
		return "Run takes " + fieldList(params) + ", not (ctx context.Context)"
	}
	if len(results) != 2 || len(results[0].Names) > 1 || types.ExprString(results[1].Type) != "error" {
		return "Run returns " + fieldList(results) + ", not (Result, error)"
	}
	r := results[0].Type
	if star, ok := r.(*ast.StarExpr); ok {
		r = star.X
	}
	if id, ok := r.(*ast.Ident); !ok || !id.IsExported() {
		return "Run returns " + types.ExprString(results[0].Type) + ", not a result type of the action's package"
	}
	return ""
}

func receiverName(e ast.Expr) string {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func fieldList(fields []*ast.Field) string {
	var s []string
	for _, f := range fields {
		s = append(s, types.ExprString(f.Type))
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// TestRunContractRefusesOtherShapes plants the signatures actions had
// before the one contract, and others, and sees each refused; the
// contract's own shapes pass.
func TestRunContractRefusesOtherShapes(t *testing.T) {
	for src, ok := range map[string]bool{
		"func (c *Check) Run(ctx context.Context) (CheckResult, error)":          true,
		"func (d *Diff) Run(ctx context.Context) (*Result, error)":               true,
		"func (c *Check) Run() ([]check.Finding, error)":                         false,
		"func (v *Version) Run() string":                                         false,
		"func (c *Collect) Run(ctx context.Context, stdout io.Writer) error":     false,
		"func (f *Fn) Run(ctx context.Context) ([]filepos.Note, error)":          false,
		"func (s *Schema) Run(ctx context.Context) ([]byte, error)":              false,
		"func (t *Tenants) Run(ctx context.Context) (*[]string, error)":          false,
		"func (r *Render) Run(ctx context.Context) (result, error)":              false,
		"func (r *Render) Run(ctx context.Context) (*RenderResult, bool)":        false,
		"func (r *Render) Run(ctx, other context.Context) (RenderResult, error)": false,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+src+" { panic(0) }\n", 0)
		if err != nil {
			t.Fatal(err)
		}
		why := contractBreach(f.Decls[0].(*ast.FuncDecl).Type)
		if (why == "") != ok {
			t.Errorf("%s: %q; want accepted %v", src, why, ok)
		}
	}
}
