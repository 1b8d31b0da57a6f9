package render

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/manifest"
)

func mapFS(files map[string]string) MapFS {
	m := MapFS{}
	for name, text := range files {
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return m
}

func renderErr(t *testing.T, files map[string]string, paths ...string) string {
	t.Helper()
	e, err := New(mapFS(files), Options{Profile: "p.yaml", Paths: paths})
	if err == nil {
		var out bytes.Buffer
		_, err = Map(e, func(s *manifest.Set) ([]byte, error) { return manifest.Marshal(s.Objects) },
			func(b []byte) error { _, err := out.Write(b); return err })
		if err == nil {
			t.Fatalf("rendered:\n%s", out.String())
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("more than one error:\n%v", err)
	}
	return err.Error()
}

const twoObjects = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"

// The object past limits.objects is named, in the unit that reaches it.
func TestObjectLimitAcrossTenants(t *testing.T) {
	got := renderErr(t, map[string]string{
		"p.yaml": "limits: {objects: 5}\nhash: {mode: off}\ntenants: {t1: {}, t2: {}, t3: {}}\n",
		"a.yaml": twoObjects,
	}, "a.yaml")
	want := "a.yaml:5:1: the render produces more than 5 objects; this one is past the limit (limits.objects; see docs/limits.md) (tenant t3)"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// Splitting by zone is refused before the copies are made.
func TestObjectLimitBeforeZoneSplit(t *testing.T) {
	got := renderErr(t, map[string]string{
		"p.yaml": `limits: {objects: 3}
zones:
  z-a: {hostAliases: []}
  z-b: {hostAliases: []}
  z-c: {hostAliases: []}
zoneHosts: {strategy: split}
`,
		"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: app, image: x}]}\n",
		"c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
	}, "c.yaml", "d.yaml")
	if !strings.HasPrefix(got, "d.yaml:1:1: the render produces more than 3 objects") {
		t.Fatalf("got %s", got)
	}
}

// An injection that takes an object past limits.nodes is stopped before
// any later stage walks the object.
func TestInjectionHeldToNodeLimit(t *testing.T) {
	got := renderErr(t, map[string]string{
		"p.yaml": "limits: {nodes: 35}\ninject:\n  - {name: big, fragment: f.yaml, container: app}\n",
		"f.yaml": "env: [{name: A, value: a}, {name: B, value: b}, {name: C, value: c}]\n",
		"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec: {containers: [{name: app, image: x}]}\n",
	}, "d.yaml")
	if !strings.Contains(got, ": Deployment d has more than 35 nodes (limits.nodes; see docs/limits.md)") {
		t.Fatalf("got %s", got)
	}
}

// All templates of a run share one budget of nodes: a file of many small
// documents cannot hold more than one large one would.
func TestInputNodesAcrossFiles(t *testing.T) {
	list := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\nitems: [" + strings.Repeat("x, ", 40) + "x]\n"
	got := renderErr(t, map[string]string{
		"p.yaml": "limits: {inputNodes: 100}\n",
		"a.yaml": strings.Replace(list, "%s", "a", 1),
		"b.yaml": strings.Replace(list, "%s", "b", 1),
	}, "a.yaml", "b.yaml")
	if !strings.HasPrefix(got, "b.yaml:4:") || !strings.Contains(got, "the templates and fragments hold more than 100 nodes in all (limits.inputNodes") {
		t.Fatalf("got %s", got)
	}
}

// The bytes of all templates share one budget too.
func TestInputBytesAcrossFiles(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: " + strings.Repeat("x", 600) + "}\n"
	got := renderErr(t, map[string]string{
		"p.yaml": "limits: {inputBytes: 1000}\n",
		"a.yaml": strings.Replace(cm, "%s", "a", 1),
		"b.yaml": strings.Replace(cm, "%s", "b", 1),
	}, "a.yaml", "b.yaml")
	if !strings.HasPrefix(got, "b.yaml:4:") || !strings.Contains(got, "the templates and fragments are larger than 1000 in all (limits.inputBytes") {
		t.Fatalf("got %s", got)
	}
}
