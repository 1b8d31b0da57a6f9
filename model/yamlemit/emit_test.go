package yamlemit

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// library is what krender printed before this package: go-yaml's Dumper
// with krender's options (model/manifest/emit.go).
func library(t testing.TB, n *yaml.Node) []byte {
	t.Helper()
	var b bytes.Buffer
	d, err := yaml.NewDumper(&b, yaml.WithV3Defaults(), yaml.WithIndent(2), yaml.WithCompactSeqIndent(false), yaml.WithLineWidth(-1))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dump(n); err != nil {
		t.Skipf("go-yaml cannot dump it: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// same checks that Append gives go-yaml's bytes for n, or declines. It
// runs Append first: go-yaml's Dumper changes the tree it prints.
func same(t *testing.T, n *yaml.Node) bool {
	t.Helper()
	got, ok := Append(nil, n)
	want := library(t, n)
	if ok && !bytes.Equal(got, want) {
		t.Errorf("fast path differs from go-yaml\n got: %q\nwant: %q", got, want)
	}
	return ok
}

func parse(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func TestLayouts(t *testing.T) {
	for _, text := range []string{
		"a: 1\nb: [x, 'y', \"z\"]\nc: {}\nd: []\ne: |\n  line\n  two\nf: >-\n  folded\n",
		"# head\na: 1 # line\n# foot\nb:\n  - x\n  - y: 2\n    z: ''\n",
		"a:\n  b:\n    - - 1\n      - 2\n    - {k: v, 'q': \"w\"}\n",
		"k: 'it''s'\nn: \"\\u00e9\\t\\x01\"\nm: ~\nt: yes\ns: '123'\n",
	} {
		if !same(t, parse(t, text)) {
			t.Errorf("declined %q", text)
		}
	}
}

// TestDeclines: what the fast path leaves to go-yaml, it declines, and dst
// comes back as it was.
func TestDeclines(t *testing.T) {
	scalar := func(v, tag string, st yaml.Style) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: v, Tag: tag, Style: st}
	}
	mapping := func(k, v *yaml.Node) *yaml.Node {
		return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, v}}
	}
	key := scalar("k", "", 0)
	for name, n := range map[string]*yaml.Node{
		"anchor":          mapping(key, &yaml.Node{Kind: yaml.ScalarNode, Value: "v", Anchor: "x"}),
		"alias":           mapping(key, &yaml.Node{Kind: yaml.AliasNode, Value: "x"}),
		"custom tag":      mapping(key, scalar("v", "!foo", 0)),
		"binary":          mapping(key, scalar("aGk=", "!!binary", 0)),
		"shown tag":       mapping(key, scalar("v", "!!str", yaml.TaggedStyle)),
		"bool not a bool": mapping(key, scalar("maybe", "!!bool", 0)),
		"mapping tag":     {Kind: yaml.MappingNode, Tag: "!!set"},
		"complex key":     mapping(&yaml.Node{Kind: yaml.SequenceNode}, scalar("v", "", 0)),
		"multi-line key":  mapping(scalar("a\nb", "", 0), scalar("v", "", 0)),
		"long key":        mapping(scalar(strings.Repeat("k", 129), "", 0), scalar("v", "", 0)),
		"not UTF-8":       mapping(key, scalar("\xff", "", 0)),
		"comment":         mapping(key, &yaml.Node{Kind: yaml.ScalarNode, Value: "v", LineComment: "# \xff"}),
		"document inside": mapping(key, &yaml.Node{Kind: yaml.DocumentNode}),
		"document":        {Kind: yaml.DocumentNode, Content: []*yaml.Node{mapping(key, scalar("v", "", 0))}},
	} {
		dst := []byte("kept")
		out, ok := Append(dst, n)
		if ok || string(out) != "kept" {
			t.Errorf("%s: ok=%v, out=%q; want it declined", name, ok, out)
		}
	}
}

// TestTreeUnchanged: go-yaml's Dumper drops inferable tags and sets quoting
// styles on the tree it prints; Append leaves the tree as it was.
func TestTreeUnchanged(t *testing.T) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "k"},
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: "123"},
	}}
	out, ok := Append(nil, n)
	if !ok || string(out) != "k: \"123\"\n" {
		t.Fatalf("got %q, %v", out, ok)
	}
	if n.Tag != "!!map" || n.Content[1].Tag != "!!str" || n.Content[1].Style != 0 {
		t.Errorf("the tree changed: %+v %+v", n, n.Content[1])
	}
}
