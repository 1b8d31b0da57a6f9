package yqexpr

import (
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
)

// A remembered outcome is found again in each new document: the same
// selector and deletion over tenants' copies act on each copy's own nodes,
// and views that differ anywhere are told apart.
func TestRememberedOutcomesActOnEachDocument(t *testing.T) {
	const deployment = `kind: Deployment
spec:
  template:
    spec:
      hostAliases: [{ip: 10.0.0.1}]
      containers: [{name: app}]
`
	where, err := Selector(`.kind == "Deployment"`, filepos.Pos{File: "p.yaml", Line: 1, Col: 1})
	if err != nil {
		t.Fatal(err)
	}
	del := compile(t, ".spec.template.spec.hostAliases")
	if where.plan == nil || del.plan == nil {
		t.Fatal("the expressions have no plan: nothing is remembered")
	}
	for i := range 3 {
		root := parse(t, deployment)
		ok, err := where.Match(root)
		if err != nil || !ok {
			t.Fatalf("copy %d: Match = %v, %v; want true", i, ok, err)
		}
		if n, err := del.Delete(root); err != nil || n != 1 {
			t.Fatalf("copy %d: Delete removed %d (%v), want 1", i, n, err)
		}
		if got := dump(t, root); got != "kind: Deployment\nspec:\n  template:\n    spec:\n      containers: [{name: app}]\n" {
			t.Fatalf("copy %d after delete:\n%s", i, got)
		}
	}
	for _, other := range []string{"kind: Service\n", "kind: \"Deployment \"\n", "kind: !!int 1\n", "kind: [Deployment]\n"} {
		ok, err := where.Match(parse(t, other))
		if err != nil || ok {
			t.Errorf("%q: Match = %v, %v; want false", other, ok, err)
		}
	}
	if got := len(where.memo.m); got != 5 {
		t.Errorf("the selector remembers %d views, want 5", got)
	}
}

// Keys differ whenever any field of any node differs.
func TestViewKeysTellNodesApart(t *testing.T) {
	base := yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "ab"}
	variants := []yaml.Node{base, base, base, base, base, base}
	variants[1].Value = "a"
	variants[1].Tag = "!!strb"
	variants[2].Style = yaml.DoubleQuotedStyle
	variants[3].Line = 3
	variants[4].LineComment = "# x"
	variants[5].Anchor = "ab"
	seen := map[string]int{}
	for i := range variants {
		k := string(viewKey(nil, &variants[i]))
		if j, ok := seen[k]; ok {
			t.Errorf("variants %d and %d have one key %q", j, i, k)
		}
		seen[k] = i
	}
}
