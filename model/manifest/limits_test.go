package manifest

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"
	"go.yaml.in/yaml/v4/plugin/aliasdata"
)

// bomb is nine levels of nine aliases: 9^9 nodes once expanded.
func bomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  labels:\n")
	b.WriteString(`    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		b.WriteString("    " + string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n")
		prev = string(c)
	}
	b.WriteString("data:\n  k: *i\n")
	return b.String()
}

func TestLimitErrors(t *testing.T) {
	head := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
	small := Limits{FileBytes: 1 << 20, DocumentBytes: 4096, Documents: 3, Nodes: 100, Depth: 10}
	cases := []struct {
		name, text string
		lim        Limits
		want       string // error: position and message start
	}{
		{"alias bomb", bomb(), Limits{}, "x.yaml:11:24: excessive aliasing: *e stands for 66430 nodes, which takes document 1 past 349525 nodes"},
		{"deep flow", head + "x: " + strings.Repeat("[", 11) + strings.Repeat("]", 11) + "\n", small, "x.yaml:4:13: nesting deeper than 10 levels (limits.depth"},
		{"deep block", head + "x:\n" + strings.Repeat("- ", 11) + "x\n", small, "x.yaml:5:19: nesting deeper than 10 levels"},
		{"many nodes", head + "x: [" + strings.Repeat("1,", 200) + "1]\n", small, "x.yaml:4:"},
		{"many documents", strings.Repeat("---\n", 5) + head, small, "x.yaml:4:1: more than 3 documents in one file (limits.documents"},
		{"large document", head + "x: " + strings.Repeat("y", 5000) + "\n", small, "x.yaml:1:1: document 1 is larger than 4096"},
		{"large file", head + "x: " + strings.Repeat("y", 5000) + "\n", Limits{FileBytes: 100}, "x.yaml:4:50: the file is larger than 100"},
		{"NUL", head + "x: a\x00b\n", Limits{}, "x.yaml:4:5: invalid YAML: control character U+0000"},
		{"invalid UTF-8", head + "x: a\xffb\n", Limits{}, "x.yaml:4:5: invalid YAML: invalid UTF-8 (byte 0xff)"},
		{"UTF-16", "\xff\xfea\x00", Limits{}, "x.yaml:1:1: the file is UTF-16"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := NewSource("x.yaml", []byte(c.text))
			src.Limits = c.lim
			_, err := Parse(src)
			if err == nil {
				t.Fatalf("parsed; want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got  %v\nwant %s...", err, c.want)
			}
		})
	}
}

// A document of many nodes whose bytes could hold more (a large JSON
// scalar, say) is parsed once more to count exactly, and passes.
func TestExactCountWhenTheBoundIsNotEnough(t *testing.T) {
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  json: '" + strings.Repeat(`{"a": [1, 2], "b": "-"},`, 100) + "'\n"
	src := NewSource("x.yaml", []byte(text))
	src.Limits = Limits{Nodes: 50}
	if exact, err := src.Limits.CheckText(src); err != nil || !exact {
		t.Fatalf("CheckText = %v, %v; want an exact count asked for", exact, err)
	}
	if _, err := Parse(src); err != nil {
		t.Fatal(err)
	}
}

// Within the limits, nothing changes: the bundled templates parse as before.
func TestDefaultsAcceptTheBundledTemplates(t *testing.T) {
	for _, text := range []string{bomb()[:strings.Index(bomb(), "  labels:")] + "data: {k: v}\n", "a: &x {b: 1}\nc: *x\nd: *x\n"} {
		if _, err := Parse(NewSource("x.yaml", []byte(text))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestProfileLimitsMerge(t *testing.T) {
	l := Limits{Nodes: 5}.Merge(Limits{Depth: 7}).OrDefault()
	if l.Nodes != 5 || l.Depth != 7 || l.Objects != DefaultLimits().Objects {
		t.Fatalf("merged %+v", l)
	}
}

// goYAMLCounts parses text as Decode does and returns the documents and
// the most nodes one of them has (aliases counted once), or ok=false when
// go-yaml refuses the text.
func goYAMLCounts(text []byte) (docs, most int, ok bool) {
	aliases, err := aliasdata.New(aliasdata.WithStream(true))
	if err != nil {
		return 0, 0, false
	}
	ld, err := yaml.NewLoader(bytes.NewReader(yqlibLeading(text)), yaml.WithPlugin(aliases))
	if err != nil {
		return 0, 0, false
	}
	for {
		var n yaml.Node
		err := ld.Load(&n)
		if errors.Is(err, io.EOF) {
			return docs, most, true
		}
		if err != nil {
			return 0, 0, false
		}
		docs++
		count := 0
		for _, c := range n.Content {
			Walk(c, func(*yaml.Node) { count++ })
		}
		most = max(most, count)
	}
}

// FuzzTextBounds holds CheckText's cheap bounds to what go-yaml parses:
// every document's nodes within the bound it computes without parsing (so
// that skipping the exact count is safe), and no more documents than it
// counted.
func FuzzTextBounds(f *testing.F) {
	for _, s := range []string{"a: b", "[a, b: c, {d}, ?]", "{a, b, c}", "- - - x\n-\n-", "? a\n: b\n? c", "a:\n  b:\n    c: d",
		"--- a\n...\n--- [b]\n", "[?, ?, :]", "a: &x [1, 2]\nb: *x\n", "\xef\xbb\xbf--- x\n\xef\xbb\xbf--- y\n", "%YAML 1.1\n--- a\n", "# c\n--- |\n  x\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 4096 {
			return
		}
		docs, most, ok := goYAMLCounts(text)
		if !ok {
			return
		}
		src := NewSource("f.yaml", text)
		if _, err := checkTextErr(src, Limits{Documents: max(docs-1, 1)}); docs > 1 && err == nil {
			t.Fatalf("%q: go-yaml reads %d documents; CheckText counted fewer", text, docs)
		}
		if most > 1 {
			exact, err := checkTextErr(src, Limits{Nodes: most - 1})
			if err == nil && !exact {
				t.Fatalf("%q: a document has %d nodes; CheckText's bound is below it", text, most)
			}
		}
	})
}

func checkTextErr(src *Source, l Limits) (bool, error) {
	l.Documents = max(l.Documents, 0)
	return l.CheckText(src)
}

// Alias-expanded counts follow yqlib's resolution: across documents, the
// latest complete anchor of a name.
func TestNodesCountAliasesAcrossDocuments(t *testing.T) {
	text := "a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9]\n---\nb: [*x, *x, *x, *x, *x, *x, *x, *x, *x, *x, *x, *x]\n"
	src := NewSource("x.yaml", []byte(text))
	src.Limits = Limits{Nodes: 100}
	err := Decode(src, yqlib.NewDefaultYamlPreferences(), func(int, *yaml.Node, string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing: *x stands for 10 nodes") {
		t.Fatalf("got %v", err)
	}
}
