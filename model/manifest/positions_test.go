package manifest

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// TestCheckPositionsCatchesUnplacedNodes: a node a stage added without
// saying so, a copy that lost its position, or one whose position lies
// outside the file it names each fail the check; Made and PlaceAt make
// such nodes pass.
func TestCheckPositionsCatchesUnplacedNodes(t *testing.T) {
	parse := func() (*Object, *Set) {
		o := parseOne(t, "a.yaml", "kind: Pod\nmetadata:\n  name: p\nspec:\n  x: 1\n")
		return o, &Set{Objects: []*Object{o}}
	}
	if o, s := parse(); CheckPositions(s, "parse") != nil {
		t.Fatalf("a parsed template fails: %v", CheckPositions(s, "parse"))
	} else if CheckPositions(&Set{Objects: []*Object{o.Clone()}}, "clone") != nil {
		t.Fatal("a clone fails")
	}
	for name, tc := range map[string]struct {
		change func(o *Object)
		want   string
	}{
		"added, unmarked": {func(o *Object) { Put(Value(o.Node, "spec"), "y", String("2")) },
			`Pod p: scalar node "y" has no line and no stage made it`},
		"copied by hand": {func(o *Object) {
			spec := Value(o.Node, "spec")
			c := &yaml.Node{Kind: spec.Kind, Tag: spec.Tag, Content: spec.Content} // no Line: a careless copy
			Put(o.Node, "spec", c)
		}, `Pod p: mapping node "" has no line and no stage made it`},
		"outside its file": {func(o *Object) { Lookup(o.Node, "spec", "x").Line = 9 },
			`Pod p: scalar node "1" is at 9:6, outside a.yaml`},
		"past the line's end": {func(o *Object) { Lookup(o.Node, "spec", "x").Column = 8 },
			`Pod p: scalar node "1" is at 5:8, outside a.yaml`},
		"made by a stage with no name": {func(o *Object) {
			y := String("2")
			Put(Value(o.Node, "spec"), "y", y)
			o.Made("", y)
		}, `Pod p: scalar node "2" has no line and no stage made it`},
	} {
		t.Run(name, func(t *testing.T) {
			o, s := parse()
			tc.change(o)
			err := CheckPositions(s, "test")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "after test,") {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
	o, s := parse()
	spec := Value(o.Node, "spec")
	Put(spec, "y", String("2"))
	o.MadeEntry("stage", spec, "y")
	prof := NewSource("profile.yaml", []byte("zones:\n  a: 1.2.3.4\n"))
	Put(spec, "z", o.PlaceAt(String("1.2.3.4"), prof, 2, 6))
	o.MadeEntry("stage", spec, "z") // the key; the placed value stays placed
	if err := CheckPositions(s, "test"); err != nil {
		t.Fatal(err)
	}
	if o.MadeBy(Value(spec, "y")) != "stage" || o.Pos(Value(spec, "z")).String() != "profile.yaml:2:6" {
		t.Fatalf("y made by %q, z at %s", o.MadeBy(Value(spec, "y")), o.Pos(Value(spec, "z")))
	}
	if got := o.Clone(); CheckPositions(&Set{Objects: []*Object{got}}, "clone") != nil || got.MadeBy(Value(Value(got.Node, "spec"), "y")) != "stage" {
		t.Fatal("a clone lost the marks")
	}
}

// Positions of many texts on one long line, counted on from one to the
// next, are those PosAt gives each from the line's start; a text on a
// later line starts the count again.
func TestTextPositionsAlongALine(t *testing.T) {
	var b strings.Builder
	var texts []string
	b.WriteString("k: \"")
	for i := range 300 {
		fmt.Fprintf(&b, "é%s $V%d ", strings.Repeat("ü", i%7), i)
		texts = append(texts, fmt.Sprintf("$V%d", i))
	}
	b.WriteString("\"\nk2: |\n  $W é $W\n")
	texts = append(texts, "$W", "$W")
	src := NewSource("x.yaml", []byte(b.String()))
	var root yaml.Node
	if err := yaml.Unmarshal(src.Text, &root); err != nil {
		t.Fatal(err)
	}
	got := src.TextPositions(root.Content[0].Content[1], texts)
	from := 0
	for i, text := range texts {
		k := strings.Index(string(src.Text[from:]), text)
		if want := src.PosAt(from + k); got[i] != want {
			t.Fatalf("%s (the %d-th): %v, want %v", text, i, got[i], want)
		}
		from += k + len(text)
	}
}
