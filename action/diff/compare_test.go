package diff

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/fleetgen"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render"
)

// TestEqualIsDeepEqual: equal says what reflect.DeepEqual says, of every
// pair among values as objects decode (YAML read into any) and the edge
// cases DeepEqual decides by type: nil against empty maps and lists,
// NaN, an int against a float, a timestamp.
func TestEqualIsDeepEqual(t *testing.T) {
	docs := []string{
		"a: 1", "a: 1.0", "a: '1'", "a: true", "a: null", "a: ~", "a: []", "a: {}", "a: [1, 2]", "a: [2, 1]",
		"a: {b: 1, c: [x, {d: e}]}", "a: {b: 1, c: [x, {d: f}]}", "a: {b: 1}", "a: 2001-12-14", "a: .nan",
		"a: 18446744073709551615", "a: -1", "a: 0x10", "a: 16", "[1, 2]", "x", "",
	}
	var values []any
	for _, d := range docs {
		var v any
		if err := yaml.Unmarshal([]byte(d), &v); err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		values = append(values, v)
		if m, ok := v.(map[string]any); ok {
			values = append(values, m["a"])
		}
	}
	values = append(values, nil, map[string]any(nil), map[string]any{}, []any(nil), []any{}, math.NaN(),
		int(1), int64(1), uint64(1), float64(1), time.Unix(0, 0), []string{"a"}, map[any]any{1: 2})
	nan := []any{math.NaN()}
	values = append(values, nan, nan[:1], []any{math.NaN()}, map[string]any{"a": nan})
	for i, a := range values {
		for j, b := range values {
			if got, want := equal(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("equal(%#v, %#v) = %v (values %d, %d), DeepEqual says %v", a, b, got, i, j, want)
			}
		}
	}
}

// TestSameNodeIsSameData: sameNode says two trees are the same exactly
// when they decode to equal data, whatever their key order, quoting,
// styles, comments, tags spelled out or aliases: every pair among
// documents that differ in one of those, or in a value. A value spelled
// otherwise (~ and null) is not the same: YAML 1.1, which kubectl reads,
// and 1.2 disagree on some spellings, so the comparison that follows
// reads them.
func TestSameNodeIsSameData(t *testing.T) {
	docs := []string{
		"{a: 1, b: x}", "{b: x, a: 1}", "{a: '1', b: x}", "{a: !!str 1, b: x}", "{a: !!int 1, b: x}", "{a: 1, b: \"x\"}",
		"{a: 1, b: !!str x}", "{a: 1, b: y}", "{a: 1, c: x}", "{a: 1}", "{a: 1, b: x, c: 2}",
		"a: 1 # one\nb: |-\n  x\n", "{a: 1.0, b: x}", "{a: true, b: x}", "{a: 'true', b: x}", "{a: null, b: x}",
		"{a: &n {c: [1, 2]}, b: *n}", "{a: {c: [1, 2]}, b: {c: [1, 2]}}", "{a: {c: [2, 1]}, b: {c: [1, 2]}}", "{b: {c: [1, 2]}, a: {c: [1, 2]}}",
		"[a, b]", "[b, a]", "['a', b]", "x", "'x'", "!!str x", "1", "'1'",
	}
	type tree struct {
		text string
		node *yaml.Node
		data any
	}
	var trees []tree
	for _, d := range docs {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(d), &n); err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		var v any
		if err := n.Decode(&v); err != nil {
			t.Fatalf("%q: %v", d, err)
		}
		trees = append(trees, tree{d, &n, v})
	}
	for _, a := range trees {
		for _, b := range trees {
			if got, want := sameNode(a.node, b.node, false, 0), reflect.DeepEqual(a.data, b.data); got != want {
				t.Errorf("sameNode(%q, %q) = %v, the data says %v", a.text, b.text, got, want)
			}
		}
	}
	for _, pair := range [][2]string{{"a: ~", "a: null"}, {"a: 0x10", "a: 16"}, {"a: 1.0", "a: 1.00"}, {"a: True", "a: true"}} {
		var a, b yaml.Node
		if yaml.Unmarshal([]byte(pair[0]), &a) != nil || yaml.Unmarshal([]byte(pair[1]), &b) != nil {
			t.Fatal(pair)
		}
		if sameNode(&a, &b, false, 0) {
			t.Errorf("sameNode(%q, %q): the same, without reading them as kubectl does", pair[0], pair[1])
		}
	}
}

// TestPlainValueIsDecode: plainValue reads every object of the diff's
// golden cases and the bench fleet's templates as yaml's Decode does, and
// a tree it is not sure of (tags, spellings of numbers, anchors) not at
// all; the golden cases' objects are read by it, not handed to Decode.
func TestPlainValueIsDecode(t *testing.T) {
	var nodes []*yaml.Node
	err := filepath.WalkDir("../../testdata/diff", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		objs, err := manifest.Parse(manifest.NewSource(p, text))
		if err != nil {
			return nil // a profile, or a template with variables
		}
		for _, o := range objs {
			nodes = append(nodes, o.Node)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	read := len(nodes)
	for _, text := range []string{
		"a: 1", "a: -0", "a: 007", "a: 0x1f", "a: 1_000", "a: +1", "a: 9223372036854775807", "a: 9223372036854775808",
		"a: 1.5", "a: -01.50", "a: 1e3", "a: .5", "a: .inf", "a: .nan", "a: 1.", "a: true", "a: True", "a: yes", "a: ~",
		"a: null", "a:", "a: !!str 1", "a: !!int '1'", "a: !!float 1", "a: ! 1", "a: '1'", "a: \"true\"", "a: |\n  x\n",
		"a: 2001-12-14", "a: !!binary aGk=", "a: &x 1\nb: *x", "<<: {a: 1}\nb: 2", "1: a", "? [a]\n: b", "a: [1, {b: [~, x]}]",
		"a: !custom x", "a: 1\na: 2",
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
			continue // duplicate keys and the like: no object holds them
		}
		nodes = append(nodes, doc.Content[0])
	}
	for i, n := range nodes {
		got, ok := plainValue(n)
		var want any
		err := n.Decode(&want)
		switch {
		case ok && err != nil:
			t.Errorf("node %d: plainValue read %#v where Decode fails: %v", i, got, err)
		case ok && !reflect.DeepEqual(got, want):
			t.Errorf("node %d: plainValue %#v, Decode %#v", i, got, want)
		case !ok && i < read:
			t.Errorf("node %d (line %d): a golden case's object left to Decode", i, n.Line)
		}
	}
}

// TestPlainValueReadsRenderedObjects: the objects a render makes (the
// bench fleet's, through every stage: substitution, injection, hashing)
// are read by plainValue, as Decode reads them.
func TestPlainValueReadsRenderedObjects(t *testing.T) {
	f := fleetgen.Fleet{Apps: 3, Tenants: 2}
	e, err := action.Engine(filesys.NewMem(f.FS()), action.Options{Profile: fleetgen.Profile, Paths: []string{fleetgen.AppsDir}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = render.Map(e, func(s *manifest.Set) ([]*manifest.Object, error) { return s.Objects, nil }, func(objs []*manifest.Object) error {
		for _, o := range objs {
			got, ok := plainValue(o.Node)
			var want any
			if err := o.Node.Decode(&want); err != nil {
				return err
			}
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: plainValue %#v (%v), Decode %#v", o.Pos(o.Node), got, ok, want)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != f.Objects() {
		t.Fatalf("%d objects read, want %d", n, f.Objects())
	}
}

// TestUnifiedRedactsSecrets: a Secret's unified diff shows its keys, never
// a value, nor a comment (one often spells the value out).
func TestUnifiedRedactsSecrets(t *testing.T) {
	parse := func(text string) *object {
		objs, err := manifest.Parse(manifest.NewSource("s.yaml", []byte(text)))
		if err != nil {
			t.Fatal(err)
		}
		return newObject(objs[0])
	}
	base := parse("apiVersion: v1\nkind: Secret\nmetadata: {name: db}\n# echo -n hunter2 | base64\ndata:\n  password: aHVudGVyMg== # hunter2\nstringData: {token: tok-base}\n")
	head := parse("apiVersion: v1\nkind: Secret\nmetadata: {name: db}\n# echo -n swordfish | base64\ndata:\n  password: c3dvcmRmaXNo # swordfish\n  # the old one: hunter2\n  api-key: a2V5 # key\nstringData: {token: tok-head}\n")
	d := unified(base, head)
	if !strings.Contains(d, "+  api-key: <redacted>") {
		t.Fatalf("the added key is not shown:\n%s", d)
	}
	for _, v := range []string{"hunter2", "aHVudGVyMg", "swordfish", "c3dvcmRmaXNo", "tok-base", "tok-head", "echo"} {
		if strings.Contains(d, v) {
			t.Errorf("%q in the unified diff:\n%s", v, d)
		}
	}
}
