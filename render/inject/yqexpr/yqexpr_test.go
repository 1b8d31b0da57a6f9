package yqexpr

import (
	"strings"
	"testing"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

func parse(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Load([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func dump(t *testing.T, n *yaml.Node) string {
	t.Helper()
	b, err := manifest.Marshal([]*manifest.Object{{Node: n}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func compile(t *testing.T, expr string) *Expr {
	t.Helper()
	e, err := Compile(expr, filepos.Pos{File: "p.yaml", Line: 1, Col: 1})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

const service = `kind: Service
spec:
  ports:
    - port: 80
`

func TestNodesNeverCreatesPaths(t *testing.T) {
	root := parse(t, service)
	before := dump(t, root)
	for _, expr := range []string{".spec.template.spec.containers[0]", ".spec.ports[5]", ".missing"} {
		got, err := compile(t, expr).Nodes(root)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if len(got) != 0 {
			t.Errorf("%s on a Service: got %d nodes, want none", expr, len(got))
		}
	}
	if after := dump(t, root); after != before {
		t.Errorf("evaluation changed the document:\n%s", after)
	}
}

func TestNodesReturnsTheDocumentsOwnNodes(t *testing.T) {
	root := parse(t, "spec:\n  containers:\n    - name: a\n    - name: app\n")
	got, err := compile(t, `.spec.containers[] | select(.name == "app")`).Nodes(root)
	if err != nil {
		t.Fatal(err)
	}
	want := manifest.Lookup(root, "spec", "containers").Content[1]
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %v, want the second container node itself", got)
	}
}

func TestSelectorIsYqSelect(t *testing.T) {
	deploy := parse(t, "kind: Deployment\nspec:\n  template:\n    spec:\n      containers: [{name: log}, {name: app}]\n")
	cases := []struct {
		cond string
		root *yaml.Node
		want bool
	}{
		{`.kind == "Deployment"`, deploy, true},
		{`.kind == "Service"`, deploy, false},
		{`.spec.template.spec.containers[].name == "app"`, deploy, true}, // one true result of two is enough
		{`.spec.template.spec.containers[].name == "app"`, parse(t, service), false},
		{`.spec.template`, parse(t, service), false}, // null is false
		{`.spec.ports`, parse(t, service), true},
	}
	for _, c := range cases {
		e, err := Selector(c.cond, filepos.Pos{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Match(c.root)
		if err != nil {
			t.Fatalf("%s: %v", c.cond, err)
		}
		if got != c.want {
			t.Errorf("%s: got %v, want %v", c.cond, got, c.want)
		}
	}
	if _, err := Selector(`.a) or (.b`, filepos.Pos{File: "p.yaml", Line: 3, Col: 12}); err == nil {
		t.Error("a condition that only parses inside the select( ) wrapper was accepted")
	} else if !strings.HasPrefix(err.Error(), "p.yaml:3:12: ") {
		t.Errorf("error does not name the profile position: %v", err)
	}
}

// TestFileAndEnvOperatorsAreOff runs with yqlib's own preferences at their
// defaults (file and env operators on), as in a program that embeds krender:
// the operators must be refused all the same, with yqlib's own messages,
// and the preferences must be left as they were.
func TestFileAndEnvOperatorsAreOff(t *testing.T) {
	t.Setenv("KRENDER_SECRET", "s3cret")
	before := yqlib.ConfiguredSecurityPreferences
	root := parse(t, "a: 1\n")
	for expr, want := range map[string]string{
		`load("/etc/hostname")`:            "file operations have been disabled",
		`load_str("/etc/hostname")`:        "file operations have been disabled",
		`.a = load_props("/etc/hostname")`: "file operations have been disabled",
		`strenv(KRENDER_SECRET)`:           "env operations have been disabled",
		`env(KRENDER_SECRET)`:              "env operations have been disabled",
		`"$KRENDER_SECRET" | envsubst(nu)`: "env operations have been disabled",
		`"x" | system("id")`:               "system operations are disabled",
		`eval("env(KRENDER_SECRET)")`:      "eval is off",
		`eval("." + "a")`:                  "eval is off",
	} {
		_, err := compile(t, expr).Nodes(root)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got error %v, want %q; file, env and system operators must be off", expr, err, want)
		}
	}
	if yqlib.ConfiguredSecurityPreferences != before {
		t.Errorf("yqlib's process-wide preferences changed: %+v, were %+v", yqlib.ConfiguredSecurityPreferences, before)
	}
}

func TestDelete(t *testing.T) {
	root := parse(t, "spec:\n  hostAliases: [{ip: 1.2.3.4}]\n  keep: 1\n  list: [a, b, c]\n")
	n, err := compile(t, `.spec.hostAliases, .spec.list[] | select(. == "b")`).Delete(root)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("removed %d, want 2", n)
	}
	if got, want := dump(t, root), "spec:\n  keep: 1\n  list: [a, c]\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestEvalKeepsOrigins checks that after yqlib has copied nodes around,
// each result node still knows, through manifest's Rebuild, the input node
// it came from: its line, column and file.
func TestEvalKeepsOrigins(t *testing.T) {
	objs, err := manifest.Parse(manifest.NewSource("c.yaml", []byte("name: app\nimage: app:1\nenv:\n  - name: A\n    value: a\n")))
	if err != nil {
		t.Fatal(err)
	}
	o, target := objs[0], objs[0].Node
	fsrc := manifest.NewSource("frag.yaml", []byte("\n\ncommand: [sh]\nenv:\n  - name: B\n"))
	frags, err := manifest.Parse(fsrc)
	if err != nil {
		t.Fatal(err)
	}
	frag := frags[0].Node
	image := manifest.Value(target, "image")
	fragCmd := manifest.Value(frag, "command")
	x := compile(t, ". += $frag")
	err = o.Rebuild("test", target, frag, fsrc, func(target, frag *yaml.Node) (*yaml.Node, error) {
		return x.Eval(target, map[string]*yaml.Node{"frag": frag})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, target), "name: app\nimage: app:1\nenv:\n  - name: B\ncommand: [sh]\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if image.Line != 2 || fragCmd.Line != 3 {
		t.Errorf("input nodes keep their lines: image %d (want 2), command %d (want 3)", image.Line, fragCmd.Line)
	}
	newImage, newCmd := manifest.Value(target, "image"), manifest.Value(target, "command")
	if newImage == image || o.Pos(newImage).String() != "c.yaml:2:8" {
		t.Errorf("image: at %s, want a copy at c.yaml:2:8", o.Pos(newImage))
	}
	if o.Pos(newCmd).String() != "frag.yaml:3:10" {
		t.Errorf("command: at %s, want frag.yaml:3:10", o.Pos(newCmd))
	}
	if err := manifest.CheckPositions(&manifest.Set{Objects: []*manifest.Object{o}}, "eval"); err != nil {
		t.Error(err)
	}
}

// Objects decoded by yqlib carry an alias's anchor by name only; yqlib
// evaluation follows Alias pointers, and crashed on a merge key before
// toCandidate pointed them.
func TestAliasesFromTheDecoderAreFollowed(t *testing.T) {
	objs, err := manifest.Parse(manifest.NewSource("d.yaml", []byte("kind: Job\nbase: &b {kind: Job, x: 1}\nmerged: {<<: *b, name: x}\nother: *b\n")))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{`.merged.kind == "Job"`, `.other.x == 1`} {
		e, err := Selector(text, filepos.Pos{})
		if err != nil {
			t.Fatal(err)
		}
		ok, err := e.Match(objs[0].Node)
		if err != nil || !ok {
			t.Errorf("%s: %v, %v; want a match", text, ok, err)
		}
	}
	manifest.Walk(objs[0].Node, func(n *yaml.Node) {
		if n.Alias != nil {
			t.Fatal("an Alias pointer was left behind")
		}
	})
}
