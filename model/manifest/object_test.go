package manifest

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

func parseOne(t *testing.T, path, text string) *Object {
	t.Helper()
	objs, err := Parse(NewSource(path, []byte(text)))
	if err != nil || len(objs) != 1 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	return objs[0]
}

func TestPositionsSurviveCloneAndGrafting(t *testing.T) {
	o := parseOne(t, "a.yaml", "kind: Pod\nmetadata:\n  name: p\nspec: {}\n")
	frag := parseOne(t, "frag.yaml", "x: 1\n")
	spec := Value(o.Node, "spec")
	spec.Content = append(spec.Content, o.Graft(frag.Node.Content[0], frag.Src), o.Graft(frag.Node.Content[1], frag.Src))
	if spec.Content[1] == frag.Node.Content[1] {
		t.Fatal("Graft did not copy the fragment's node")
	}

	c := o.Clone()
	if got := c.Pos(Lookup(c.Node, "metadata", "name")).String(); got != "a.yaml:3:9" {
		t.Fatalf("template node: %s", got)
	}
	if got := c.Pos(Lookup(c.Node, "spec", "x")).String(); got != "frag.yaml:1:4" {
		t.Fatalf("adopted node after clone: %s", got)
	}
	Lookup(c.Node, "metadata", "name").Value = "changed"
	if o.Name() != "p" {
		t.Fatal("clone shares nodes with the original")
	}
}

func TestSourceOffsetsCountCharacters(t *testing.T) {
	s := NewSource("u.yaml", []byte("a: é€\nb: x$Y\n"))
	off := s.Offset(2, 5)
	if string(s.Text[off:off+2]) != "$Y" {
		t.Fatalf("offset %d points at %q", off, s.Text[off:])
	}
	if p := s.PosAt(s.Offset(1, 5)); p.Line != 1 || p.Col != 5 {
		t.Fatalf("round trip gave %v", p)
	}
}

func TestParseRejectsNonObjectsAndDuplicates(t *testing.T) {
	for text, want := range map[string]string{
		"- a\n- b\n":                           "x.yaml:1:1: document 1 is not a mapping; a Kubernetes object is expected",
		"kind: A\nmetadata:\n  a: 1\n  a: 2\n": `x.yaml:4:3: duplicate key "a" (first at line 3)`,
	} {
		_, err := Parse(NewSource("x.yaml", []byte(text)))
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", text, err, want)
		}
	}
}

func TestStripDirectives(t *testing.T) {
	o := parseOne(t, "a.yaml", "kind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    krender.io/hash: off\n    krender.io/config-hash: abc\n")
	o.StripDirectives("krender.io/config-hash")
	ann := Lookup(o.Node, "metadata", "annotations")
	if ann == nil || len(ann.Content) != 2 || ann.Content[0].Value != "krender.io/config-hash" {
		t.Fatalf("annotations after strip: %#v", ann)
	}
	o.StripDirectives()
	if Lookup(o.Node, "metadata", "annotations") != nil {
		t.Fatal("an emptied annotations map must go")
	}
}

// refsAt gives o one reference per scalar at each path, as substitution would.
func refsAt(o *Object, paths ...[]string) {
	for _, p := range paths {
		n := Lookup(o.Node, p...)
		o.Refs = append(o.Refs, Ref{Name: p[len(p)-1], Pos: o.Pos(n), Node: n})
	}
}

// inTree reports whether n is a node of o's tree.
func inTree(o *Object, n *yaml.Node) bool {
	found := false
	Walk(o.Node, func(m *yaml.Node) { found = found || m == n })
	return found
}

func TestCloneCarriesFactsToTheCopysNodes(t *testing.T) {
	for name, text := range map[string]string{
		"plain":   "kind: Pod\nmetadata:\n  name: p\nspec:\n  image: $IMG\n  tag: $TAG\n",
		"aliases": "kind: Pod\nmetadata:\n  name: &n p\nspec:\n  image: $IMG\n  tag: $TAG\n  again: *n\n",
	} {
		t.Run(name, func(t *testing.T) {
			o := parseOne(t, "a.yaml", text)
			refsAt(o, []string{"spec", "image"}, []string{"spec", "tag"})
			o.ContentHashed = true
			c := o.Clone()
			if !c.ContentHashed || len(c.Refs) != 2 {
				t.Fatalf("copy lost facts: hashed %v, %d refs", c.ContentHashed, len(c.Refs))
			}
			for i, r := range c.Refs {
				if !inTree(c, r.Node) || inTree(o, r.Node) {
					t.Fatalf("ref %d of the copy points outside the copy's tree", i)
				}
				if r.Pos != o.Refs[i].Pos || r.Node.Value != o.Refs[i].Node.Value {
					t.Fatalf("ref %d: %v %q, want %v %q", i, r.Pos, r.Node.Value, o.Refs[i].Pos, o.Refs[i].Node.Value)
				}
			}
			c.Refs[0].Name = "changed"
			if o.Refs[0].Name != "image" {
				t.Fatal("copy shares its refs slice with the original")
			}
		})
	}
}

func TestRebuildMovesFactsToTheNewNodes(t *testing.T) {
	o := parseOne(t, "a.yaml", "kind: Pod\nspec:\n  image: $IMG\n  gone: $OLD\n")
	frag := parseOne(t, "frag.yaml", "x: 1\n")
	refsAt(o, []string{"spec", "image"}, []string{"spec", "gone"})
	spec := Value(o.Node, "spec")
	img := Value(spec, "image")
	// A library rebuilds spec: image copied, gone dropped, a fragment value
	// copied, a node made from nothing.
	var newImg, newX, made *yaml.Node
	err := o.Rebuild("lib", spec, frag.Node, frag.Src, func(target, extra *yaml.Node) (*yaml.Node, error) {
		if extra == frag.Node {
			t.Fatal("eval got the caller's fragment, not a copy")
		}
		i, x := *Value(target, "image"), *Value(extra, "x")
		newImg, newX, made = &i, &x, String("new")
		return &yaml.Node{Kind: yaml.MappingNode, Line: target.Line, Content: []*yaml.Node{String("image"), newImg, String("x"), newX, String("m"), made}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.Refs[0].Node != newImg {
		t.Fatal("the reference did not move to the copied scalar")
	}
	if o.Refs[1].Node == nil || inTree(o, o.Refs[1].Node) {
		t.Fatal("a dropped scalar's reference must keep its old node, outside the tree")
	}
	for n, want := range map[*yaml.Node]string{newX: "frag.yaml:1:4", newImg: "a.yaml:3:10", img: "a.yaml:3:10", Value(frag.Node, "x"): "frag.yaml:1:4"} {
		if got := o.Pos(n).String(); n != Value(frag.Node, "x") && got != want {
			t.Errorf("%q at %s, want %s", n.Value, got, want)
		}
		if n.Line < 1 || n.Line > 3 {
			t.Errorf("%q keeps the id %d in its line", n.Value, n.Line)
		}
	}
	if o.MadeBy(made) != "lib" || made.Line != 0 || o.MadeBy(newX) != "" {
		t.Errorf("a node copied from nothing is made by %q at line %d; want lib, 0", o.MadeBy(made), made.Line)
	}
	if Value(o.Node, "spec") != spec || Value(spec, "x") != newX {
		t.Fatal("the target must keep its pointer and hold the result")
	}
	if err := CheckPositions(&Set{Objects: []*Object{o}}, "lib"); err != nil {
		t.Error(err)
	}
}

// Small mappings are checked key by key, large ones through a map: both
// name each repeat with the line of the last key before it.
func TestDuplicateKeysSmallAndLarge(t *testing.T) {
	for _, pad := range []int{0, 2 * smallMapping} {
		var b strings.Builder
		b.WriteString("a: 1\n<<: {}\na: 2\nb: 0\na: 3\n")
		for i := range pad {
			fmt.Fprintf(&b, "k%d: %d\n", i, i)
		}
		var doc yaml.Node
		if err := yaml.Load([]byte(b.String()), &doc); err != nil {
			t.Fatal(err)
		}
		err := CheckDuplicateKeys(NewSource("d.yaml", []byte(b.String())), doc.Content[0])
		want := "d.yaml:3:1: duplicate key \"a\" (first at line 1)\nd.yaml:5:1: duplicate key \"a\" (first at line 3)"
		if err == nil || err.Error() != want {
			t.Errorf("%d more keys: got %v\nwant %s", pad, err, want)
		}
	}
}
