package contenthash_test

import (
	"strings"
	"testing"

	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/model/limits"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/contenthash"
)

// aliasObjects parses a ConfigMap and a Deployment of about 60 nodes as
// written and 500 with their aliases expanded, then holds their file to
// limits.nodes = 100: what a stage sees if anything before it let a tree
// grow past the limit.
func aliasObjects(t *testing.T) []*manifest.Object {
	t.Helper()
	list := func(item string) string { return "[" + strings.TrimSuffix(strings.Repeat(item+", ", 20), ", ") + "]" }
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {a: &w " + list("x") + "}}\ndata: {k: " + list("*w") + "}\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: a, args: &a " + list("x") + "}], volumes: " + list("*a") + "}}}\n"
	src := manifest.NewSource("a.yaml", []byte(text))
	objs, err := manifest.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	src.Limits = limits.Limits{Nodes: 100}
	return objs
}

// Hashing copies what aliases name into kustomize's nodes: it checks the
// count itself rather than trust the stages before it.
func TestHashRefusesExpansionPastTheLimit(t *testing.T) {
	st, err := contenthash.New(profiles.Hash{Mode: profiles.Str{Value: contenthash.Annotation}}) // hashes what no pod consumes too
	if err != nil {
		t.Fatal(err)
	}
	err = st.Apply(&manifest.Set{Namespace: "default", Objects: aliasObjects(t)[:1]})
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing: *w stands for 21 nodes") {
		t.Fatalf("got %v", err)
	}
}

// So does the schema check, whose sigs.k8s.io/yaml expands aliases.
func TestSchemaRefusesExpansionPastTheLimit(t *testing.T) {
	_, err := fieldcheck.Check(aliasObjects(t)[1])
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing: *a stands for 21 nodes") {
		t.Fatalf("got %v", err)
	}
}
