package guard

import (
	"go/ast"
	"go/token"
	"path"
	"strconv"
)

// A use is one reference in a file to a package-level name of an imported
// package: path.Name, at pos. Name "." is a dot import of the package.
type use struct {
	path, name string
	pos        token.Pos
	sel        *ast.SelectorExpr // nil for a dot import
}

// usesOf lists the uses in f of the packages watch says it guards, however
// f names their import: by the package's own name or another (sys "os").
// A dot import (import . "os") of one is a use named ".": its names would
// read as f's own and pass every rule unseen, so each guard refuses it.
func usesOf(f *ast.File, watch func(path string) bool) []use {
	names := map[string]string{}
	var uses []use
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if !watch(p) {
			continue
		}
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			uses = append(uses, use{path: p, name: ".", pos: imp.Pos()})
			continue
		}
		names[name] = p
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Obj == nil {
			if p, ok := names[x.Name]; ok {
				uses = append(uses, use{path: p, name: sel.Sel.Name, pos: sel.Pos(), sel: sel})
			}
		}
		return true
	})
	return uses
}

// String is how messages name u: "os.ReadFile", or `import . "os"`.
func (u use) String() string {
	if u.name == "." {
		return `import . "` + u.path + `"`
	}
	return u.path + "." + u.name
}
