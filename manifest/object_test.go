package manifest

import "testing"

func parseOne(t *testing.T, path, text string) *Object {
	t.Helper()
	objs, err := Parse(NewSource(path, []byte(text)))
	if err != nil || len(objs) != 1 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	return objs[0]
}

func TestPositionsSurviveCloneAndAdoption(t *testing.T) {
	o := parseOne(t, "a.yaml", "kind: Pod\nmetadata:\n  name: p\nspec: {}\n")
	frag := parseOne(t, "frag.yaml", "x: 1\n")
	spec := Value(o.Node, "spec")
	spec.Content = append(spec.Content, frag.Node.Content...)
	o.Adopt(frag.Node.Content[1], frag.Src)

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
