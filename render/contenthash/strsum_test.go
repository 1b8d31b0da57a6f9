package contenthash

import (
	"math/rand/v2"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

func str(s string, style yaml.Style) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: style}
}

func configMap(data ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
		str("apiVersion", 0), str("v1", 0),
		str("kind", 0), str("ConfigMap", 0),
		str("metadata", 0), {Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{str("name", 0), str("app", 0)}},
		str("data", 0), {Kind: yaml.MappingNode, Tag: "!!map", Content: data},
	}}
}

// tricky are strings a YAML printer must quote, fold, block or escape.
var tricky = []string{
	"", " ", "  lead", "trail  ", "a  b", "yes", "no", "on", "off", "y", "n", "true", "False", "null", "~", "Null",
	"1", "-1", "1.5", "1e3", "0x10", "0o17", "017", ".inf", "-.Inf", ".nan", "1_000", "12:30:45", "2001-12-14",
	"- a", "-", "--", "---", "...", "a: b", "a:b", ":", "? x", "#x", "a #b", "a# b", "[x]", "{x: y}", "&a", "*a", "!t", "!!str",
	"%x", "@x", "`x", "|", ">", "'", "\"", "\\", "a'b", "a\"b", "<<", "=", ",", "a,b", "é", "日本語", "emoji 🙂",
	"line1\nline2", "line1\nline2\n", "\nlead", "trail\n\n", "\n", "\n\n", "  indented\nnext", "a\n  b\n", "x \ny", "x\n y",
	"tenant.id=t-1\npublic.url=https://t-1.example.com/app\ncache.ttl=300\n",
	"<html>&amp;</html>", "\u00a0nbsp", "\u2027", "\ue000", "\U0001F600",
	strings.Repeat("word ", 40), strings.Repeat("x", 300), strings.Repeat("a b  ", 50) + "end",
}

func randomText(r *rand.Rand) string {
	alphabet := []string{"a", "Z", "0", "9", " ", " ", "\n", ":", "#", "-", "'", "\"", "\\", "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@", "`", "?", "=", ".", "é", "日", "🙂", "\u00a0"}
	var b strings.Builder
	for range r.IntN(60) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// The direct route and kustomize's hasher agree on every text-only ConfigMap.
func TestStringDataSumIsKustomizes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := append([]string{}, tricky...)
	for range 3000 {
		values = append(values, randomText(r))
	}
	styles := []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle, yaml.TaggedStyle}
	checked := 0
	for _, v := range values {
		for _, style := range styles {
			var data []*yaml.Node
			data = append(data, str("k", 0), str(v, style))
			if v != "" {
				data = append(data, str(v, style), str("value", 0)) // the same text as a key
			}
			obj := configMap(data...)
			m, ok := stringConfigMap(obj)
			if !ok {
				if style == yaml.FoldedStyle && strings.Contains(v, "\n") {
					continue
				}
				t.Fatalf("%q: not taken as text-only", v)
			}
			got, err := stringDataSum(m)
			if err != nil {
				t.Fatal(err)
			}
			want, err := kustomizeSum(obj)
			if err != nil {
				t.Fatalf("%q: kustomize: %v", v, err)
			}
			if got != want {
				t.Errorf("%q (style %v): direct %s, kustomize %s", v, style, got, want)
			}
			checked++
		}
	}
	if checked < 15000 {
		t.Fatalf("only %d values checked", checked)
	}
}

// Anything but text-only data goes to kustomize's hasher.
func TestOnlyTextDataTakesTheDirectRoute(t *testing.T) {
	num := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "1"}
	anchor := str("v", 0)
	alias := &yaml.Node{Kind: yaml.AliasNode, Alias: anchor}
	cases := map[string]*yaml.Node{
		"an int value":     configMap(str("k", 0), num),
		"an int key":       configMap(num, str("v", 0)),
		"an alias":         configMap(str("k", 0), alias),
		"a CR LF":          configMap(str("k", 0), str("a\r\nb", 0)),
		"a tab":            configMap(str("k", 0), str("a\tb", 0)),
		"a NEL":            configMap(str("k", 0), str("a\u0085b", 0)),
		"a BOM":            configMap(str("k", 0), str("\ufeffa", 0)),
		"invalid UTF-8":    configMap(str("k", 0), str("a\xffb", 0)),
		"a duplicate key":  configMap(str("k", 0), str("a", 0), str("k", 0), str("b", 0)),
		"no data":          configMap(),
		"a nested mapping": configMap(str("k", 0), configMap()),
		"folded lines":     configMap(str("k", 0), str("a\n b", yaml.FoldedStyle)),
	}
	bin := configMap(str("k", 0), str("v", 0))
	bin.Content = append(bin.Content, str("binaryData", 0), &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"})
	cases["binaryData"] = bin
	secret := configMap(str("k", 0), str("v", 0))
	secret.Content[3] = str("Secret", 0)
	cases["a Secret"] = secret
	for name, obj := range cases {
		if _, ok := stringConfigMap(obj); ok {
			t.Errorf("%s: taken as text-only", name)
		}
	}
}
