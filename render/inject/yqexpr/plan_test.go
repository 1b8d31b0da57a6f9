package yqexpr

import (
	"testing"

	"github.com/krender/krender/model/filepos"
)

// Evaluating on the cut-down view must agree with evaluating on the whole
// document, for every expression a plan is made for.
func TestPlanAgreesWithWholeDocument(t *testing.T) {
	docs := []string{
		"kind: Deployment\nmetadata: {name: web, labels: {app: web}}\nspec:\n  template:\n    spec:\n      hostAliases: [{ip: 1.2.3.4}]\n      containers: [{name: app}]\n",
		"kind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n",
		"kind: Deployment\nspec: [a, b]\n",
		"kind: Deployment\nspec: null\nmetadata: {name: x}\n",
		"kind: Deployment\nmetadata: {name: web}\nspec: {template: {spec: {hostAliases: []}}}\nextra: {kind: Job}\n",
		"base: &b {kind: Job}\nmerged: {<<: *b, name: x}\nkind: Job\n",
	}
	exprs := []struct {
		text     string
		selector bool
	}{
		{`.kind == "Deployment"`, true},
		{`.kind == "Deployment" and .metadata.name != "x"`, true},
		{`.metadata.labels.app == "web" or .kind == "Service"`, true},
		{`.spec`, true},
		{`.metadata | .name == "web"`, true},
		{`.merged.kind == "Job"`, true},
		{`.spec.template.spec.hostAliases`, false},
		{`.spec`, false},
		{`.spec.ports`, false},
		{`select(.kind == "Deployment") | .metadata`, false},
		{`.merged.kind`, false},
		{`select(.kind == "Deployment")`, false},
		{`.spec | select(.template.spec.hostAliases)`, false},
	}
	pos := filepos.Pos{File: "p.yaml", Line: 1, Col: 1}
	planned, viewedAll := 0, 0
	for _, x := range exprs {
		var e *Expr
		var err error
		if x.selector {
			e, err = Selector(x.text, pos)
		} else {
			e, err = Compile(x.text, pos)
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.plan == nil {
			t.Errorf("%s: no plan, want one (it reads only key paths)", x.text)
			continue
		}
		planned++
		viewed := 0                                // evaluations on a view
		whole := &Expr{Text: e.Text, node: e.node} // no plan: the whole document
		// Each document twice, parsed afresh: results must name the nodes of
		// the document at hand, not of an earlier one.
		for _, d := range append(docs, docs...) {
			root := parse(t, d)
			if v, _ := e.plan.view(root); v != nil {
				viewed++
			}
			if x.selector {
				got, err1 := e.Match(root)
				want, err2 := whole.Match(root)
				if got != want || (err1 == nil) != (err2 == nil) {
					t.Errorf("%s on\n%s: view says %v (%v), whole document %v (%v)", x.text, d, got, err1, want, err2)
				}
				continue
			}
			got, err1 := e.Nodes(root)
			want, err2 := whole.Nodes(root)
			if (err1 == nil) != (err2 == nil) || len(got) != len(want) {
				t.Errorf("%s on\n%s: view gives %d nodes (%v), whole document %d (%v)", x.text, d, len(got), err1, len(want), err2)
				continue
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%s on\n%s: result %d is not the same node", x.text, d, i)
				}
			}
		}
		viewedAll += viewed
	}
	if planned == 0 {
		t.Fatal("no expression was planned")
	}
	if viewedAll == 0 {
		t.Fatal("no expression was evaluated on a view")
	}
}

// Expressions that may read anything are evaluated on the whole document.
func TestNoPlanForOpenReads(t *testing.T) {
	for _, text := range []string{".", "..", "keys", `.a* == "x"`, `.spec | length`, `. == {}`, `.a[0]`, `.a | parent`, `select(. == "x")`, `.a.b | .. | select(. == 1)`} {
		e, err := Compile(text, filepos.Pos{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if e.plan != nil {
			t.Errorf("%s: has a plan, want none", text)
		}
	}
}
