package manifest

import (
	"strings"
	"testing"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/limits"
)

// Decode holds every file to the limits policy (package limits), with
// the positions of the file it reads.

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
	small := limits.Limits{FileBytes: 1 << 20, DocumentBytes: 4096, Documents: 3, Nodes: 100, Depth: 10}
	cases := []struct {
		name, text string
		lim        limits.Limits
		want       string // error: position and message start
	}{
		{"alias bomb", bomb(), limits.Limits{}, "x.yaml:11:24: excessive aliasing: *e stands for 66430 nodes, which takes document 1 past 349525 nodes"},
		{"deep flow", head + "x: " + strings.Repeat("[", 11) + strings.Repeat("]", 11) + "\n", small, "x.yaml:4:13: nesting deeper than 10 levels (limits.depth"},
		{"deep block", head + "x:\n" + strings.Repeat("- ", 11) + "x\n", small, "x.yaml:5:19: nesting deeper than 10 levels"},
		{"many nodes", head + "x: [" + strings.Repeat("1,", 200) + "1]\n", small, "x.yaml:4:"},
		{"many documents", strings.Repeat("---\n", 5) + head, small, "x.yaml:4:1: more than 3 documents in one file (limits.documents"},
		{"large document", head + "x: " + strings.Repeat("y", 5000) + "\n", small, "x.yaml:1:1: document 1 is larger than 4096"},
		{"large file", head + "x: " + strings.Repeat("y", 5000) + "\n", limits.Limits{FileBytes: 100}, "x.yaml:4:50: the file is larger than 100"},
		{"NUL", head + "x: a\x00b\n", limits.Limits{}, "x.yaml:4:5: invalid YAML: control character U+0000"},
		{"invalid UTF-8", head + "x: a\xffb\n", limits.Limits{}, "x.yaml:4:5: invalid YAML: invalid UTF-8 (byte 0xff)"},
		{"UTF-16", "\xff\xfea\x00", limits.Limits{}, "x.yaml:1:1: the file is UTF-16"},
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

// Within the limits, nothing changes: the bundled templates parse as before.
func TestDefaultsAcceptTheBundledTemplates(t *testing.T) {
	for _, text := range []string{bomb()[:strings.Index(bomb(), "  labels:")] + "data: {k: v}\n", "a: &x {b: 1}\nc: *x\nd: *x\n"} {
		if _, err := Parse(NewSource("x.yaml", []byte(text))); err != nil {
			t.Fatal(err)
		}
	}
}

// Alias-expanded counts follow yqlib's resolution: across documents, the
// latest complete anchor of a name.
func TestNodesCountAliasesAcrossDocuments(t *testing.T) {
	text := "a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9]\n---\nb: [*x, *x, *x, *x, *x, *x, *x, *x, *x, *x, *x, *x]\n"
	src := NewSource("x.yaml", []byte(text))
	src.Limits = limits.Limits{Nodes: 100}
	err := Decode(src, yqlib.NewDefaultYamlPreferences(), func(int, *yaml.Node, string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing: *x stands for 10 nodes") {
		t.Fatalf("got %v", err)
	}
}
