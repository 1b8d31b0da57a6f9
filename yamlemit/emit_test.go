package yamlemit

import (
	"bytes"
	"testing"

	"go.yaml.in/yaml/v4"
)

// library is what krender printed before this package: go-yaml's Dumper
// with krender's options (manifest/emit.go).
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
