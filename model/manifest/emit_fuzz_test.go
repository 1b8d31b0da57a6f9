package manifest

import (
	"math/rand/v2"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/yamlemit"
)

// treeGen builds a node tree from fuzz bytes: every scalar style, tags the
// desolver drops and ones it keeps, flow and block collections, head, line
// and foot comments, anchors and aliases, keys that need quoting or are no
// scalars, multi-line and Unicode text.
// One tree in four is exotic: only there do anchors, aliases, tags that
// stay, complex keys and odd styles come up (they make the fast path decline).
type treeGen struct {
	data   []byte
	i      int
	exotic bool
}

func newTreeGen(data []byte) *treeGen {
	g := &treeGen{data: data}
	g.exotic = g.next()%4 == 0
	return g
}

// rare is true one time in n, in an exotic tree.
func (g *treeGen) rare(n int) bool { return g.next()%n == 0 && g.exotic }

func (g *treeGen) next() int {
	if g.i >= len(g.data) {
		return 0
	}
	g.i++
	return int(g.data[g.i-1])
}

func (g *treeGen) pick(choices []string) string { return choices[g.next()%len(choices)] }

func (g *treeGen) tag() string {
	if k := g.next(); k%8 != 0 || !g.exotic {
		return tags[k%2]
	}
	return g.pick(tags)
}

var fragments = []string{
	"a", "name", "x y", "", " ", "  lead", "trail ", "\n", "\n\n", "line\nline", "\r", "\r\n", "\t", "tab\there",
	"é", "日本", "😀", "\u0085", "\u2028", "\u2029", "\ufeff", "\u00a0", "\x00", "\x07", "\x1b", "\x7f",
	"---", "...", "- ", "-", "? ", ":", ": ", "a: b", "#", " #c", "x#y", "'", "\"", "\\", "{", "}", "[", "]", ",",
	"&a", "*a", "!t", "|", ">", "%", "@", "`", "<<", "~", "null", "yes", "on", "true", "False", "123", "0x1F",
	"1e3", "1_000", "+1", "-.5", ".inf", ".nan", "-0", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "0o17",
	"$(VAR)", "${X}", "http://h:80/p?q=1#f", "key:", "  ", "\n  indented\n", "end\n", "a\n b", "a \nb",
}

var comments = []string{
	"", "", "", "# c", "c", "#", "# one\n# two", "# one\n\n# two", "#x", "# é 😀", "# a\r", "#  spaced", " # lead space",
	"# tail\n",
}

// tags: the first two are what parsed scalars carry; the rest come one time in eight.
var tags = []string{"", "!!str", "!!int", "!!bool", "!!null", "!!float", "!!timestamp", "!!merge",
	"!!binary", "!custom", "tag:yaml.org,2002:str", "!!map", "!!seq"}

// styles: the last three come one time in sixteen.
var styles = []yaml.Style{0, 0, 0, yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle,
	yaml.FlowStyle, yaml.TaggedStyle, yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle, yaml.LiteralStyle | yaml.FoldedStyle}

func (g *treeGen) style() yaml.Style {
	if k := g.next(); k%16 != 15 || !g.exotic {
		return styles[k%8]
	}
	return styles[g.next()%len(styles)]
}

// key is a mapping key's text: a line break in it (a "? " key) one time in eight.
func (g *treeGen) key() string {
	k := g.text()
	if strings.ContainsAny(k, "\n\r\u0085\u2028\u2029") && !g.rare(8) {
		return strings.NewReplacer("\n", "", "\r", "", "\u0085", "", "\u2028", "", "\u2029", "").Replace(k)
	}
	return k
}

func (g *treeGen) text() string {
	n := 1 + g.next()%3
	var b strings.Builder
	for range n {
		b.WriteString(g.pick(fragments))
	}
	return b.String()
}

func (g *treeGen) comment(n *yaml.Node) {
	if g.next()%4 != 0 {
		return
	}
	n.HeadComment, n.LineComment, n.FootComment = g.pick(comments), g.pick(comments), g.pick(comments)
}

func (g *treeGen) node(depth int) *yaml.Node {
	k := g.next()
	switch {
	case depth >= 4 || k%8 < 3:
		return g.scalar()
	case k%8 == 7 && k&0xf0 == 0xf0 && g.exotic:
		return &yaml.Node{Kind: yaml.AliasNode, Value: "a"}
	case k%8 < 6:
		return g.collection(yaml.MappingNode, depth)
	}
	return g.collection(yaml.SequenceNode, depth)
}

func (g *treeGen) scalar() *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: g.text(), Tag: g.tag(), Style: g.style()}
	if g.rare(16) {
		n.Anchor = "a"
	}
	g.comment(n)
	return n
}

func (g *treeGen) collection(kind yaml.Kind, depth int) *yaml.Node {
	n := &yaml.Node{Kind: kind}
	if s := g.next(); s%4 == 0 {
		n.Style = yaml.FlowStyle
	} else if s%16 == 1 && g.exotic {
		n.Tag = g.pick(tags)
	}
	g.comment(n)
	for range 1 + g.next()%5 {
		if kind == yaml.MappingNode {
			key := g.scalar()
			key.Value = g.key()
			if g.rare(16) {
				key = g.node(depth + 1)
			}
			n.Content = append(n.Content, key)
		}
		n.Content = append(n.Content, g.node(depth+1))
	}
	return n
}

var leadings = []string{"", "", "# lead\n", yqDocSeparator + "\n", yqDocSeparator + "\n# after\n", "# a\n\n# b\n",
	"# a\n" + yqDocSeparator + "\n"}

// FuzzEmitter: for random node trees, printed as documents of a stream
// (with leading comments, `---` markers and foot comments on the root) and
// each as a file of its own, the fast emitter gives go-yaml's bytes; it may
// decline a tree (then go-yaml prints it), never print it differently.
// The template text, when krender parses it, is compared the same way.
func FuzzEmitter(f *testing.F) {
	f.Add([]byte{0}, "a: 1\n")
	f.Add([]byte("\x04\x03\x01\x05\x02\x06\x03\x10\x20\x30\x04\x05\x06\x07\x08"), "# c\nk: v # l\n# f\n")
	f.Add([]byte("\x05\x00\x02\x33\x21\x07\x01\x00\x04\x41\x55\x12\x13\x14\x15\x16\x17\x18\x19\x1a"), "a: [1, {b: c}]\n---\nx: |\n  y\n")
	f.Add([]byte("\x0c\x08\x04\x08\x0c\x10\x14\x18\x1c\x20\x24\x28\x2c\x30\x34\x38\x3c\x40\x44"), "l:\n- 'q'\n- \"d\\n\"\n- >\n  f\n")
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		g := newTreeGen(data)
		var objs []*Object
		for doc := range 1 + g.next()%3 {
			root := g.collection(yaml.MappingNode, 0)
			if g.next()%8 == 0 {
				root = g.node(0)
			}
			objs = append(objs, &Object{Node: root, Src: &Source{Path: "t.yaml"}, Doc: doc, Leading: g.pick(leadings)})
		}
		compareEmitters(t, objs)
		if parsed, err := Parse(NewSource("t.yaml", []byte(text))); err == nil {
			compareEmitters(t, parsed)
		}
	})
}

// compareEmitters prints objs through the fast path and through go-yaml's
// Dumper alone, on separate copies (the Dumper changes the tree it prints).
func compareEmitters(t *testing.T, objs []*Object) {
	t.Helper()
	copies := make([]*Object, len(objs))
	for i, o := range objs {
		copies[i] = o.Clone()
	}
	var fast, lib strings.Builder
	fe, le := NewEncoder(&fast), NewEncoder(&lib)
	le.UseLibrary()
	for i := range objs {
		ferr, lerr := fe.Encode(objs[i]), le.Encode(copies[i])
		if lerr != nil {
			return // go-yaml cannot print it; krender reports its error
		}
		if ferr != nil {
			t.Fatalf("fast path failed where go-yaml did not: %v", ferr)
		}
	}
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := le.Flush(); err != nil {
		t.Fatal(err)
	}
	if fast.String() != lib.String() {
		t.Fatalf("fast path differs from go-yaml\nfast:    %q\ngo-yaml: %q", fast.String(), lib.String())
	}
}

// TestEmitterRandomTrees is FuzzEmitter's property on a few thousand trees
// from a fixed seed, on every `go test`; most of them must take the fast path.
func TestEmitterRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fast, trees := 0, 3000
	for range trees {
		data := make([]byte, 20+r.IntN(200))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		root := newTreeGen(data).collection(yaml.MappingNode, 0)
		if _, ok := yamlemit.Append(nil, root); ok {
			fast++
		}
		compareEmitters(t, []*Object{{Node: root, Src: &Source{}}})
	}
	if fast*2 < trees {
		t.Errorf("only %d of %d trees took the fast path", fast, trees)
	}
}
