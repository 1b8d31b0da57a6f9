package yqexpr

import (
	"testing"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

// FuzzPlan holds the fast path (evaluating a planned expression on the cut
// down view) to yqlib's evaluation on the whole object, for any object and
// any expression that gets a plan: the same match, the same nodes.
func FuzzPlan(f *testing.F) {
	docs := []string{
		"kind: Deployment\nmetadata: {name: web, labels: {app: web}}\nspec:\n  template:\n    spec:\n      hostAliases: [{ip: 1.2.3.4}]\n      containers: [{name: app}]\n",
		"kind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n",
		"kind: Job\nbase: &b {kind: Job, x: 1}\nmerged: {<<: *b, name: x}\nother: *b\n",
		"kind: [a]\nspec: null\nmetadata: {name: {a: b}}\n",
	}
	exprs := []string{`.kind == "Deployment"`, `.metadata.labels.app == "web" or .kind == "Service"`, `.spec.template.spec.hostAliases`,
		`select(.kind == "Job") | .merged.kind`, `.spec | select(.template.spec.hostAliases)`, `.metadata | .name != "x" and .name == "web"`,
		`.other.x`, `.kind == null`, `.spec.ports`}
	for i, d := range docs {
		for j, x := range exprs {
			f.Add(d, x, (i+j)%2 == 0)
		}
	}
	f.Fuzz(func(t *testing.T, doc, expr string, selector bool) {
		if len(doc) > 4096 || len(expr) > 200 {
			return
		}
		objs, err := manifest.Parse(manifest.NewSource("d.yaml", []byte(doc)))
		if err != nil || len(objs) == 0 {
			return
		}
		var e *Expr
		if selector {
			e, err = Selector(expr, filepos.Pos{})
		} else {
			e, err = Compile(expr, filepos.Pos{})
		}
		if err != nil || e.plan == nil {
			return
		}
		whole := &Expr{Text: e.Text, node: e.node} // no plan: yqlib on the whole object
		for _, o := range objs {
			if selector {
				got, err1 := e.Match(o.Node)
				want, err2 := whole.Match(o.Node)
				if got != want || (err1 == nil) != (err2 == nil) {
					t.Fatalf("%s on\n%s: view says %v (%v), whole object %v (%v)", expr, doc, got, err1, want, err2)
				}
				continue
			}
			got, err1 := e.Nodes(o.Node)
			want, err2 := whole.Nodes(o.Node)
			if (err1 == nil) != (err2 == nil) || len(got) != len(want) {
				t.Fatalf("%s on\n%s: view gives %d nodes (%v), whole object %d (%v)", expr, doc, len(got), err1, len(want), err2)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s on\n%s: result %d is another node", expr, doc, i)
				}
			}
		}
	})
}
