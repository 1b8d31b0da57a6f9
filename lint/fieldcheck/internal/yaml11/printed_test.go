package yaml11

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v4"
	k8syaml "sigs.k8s.io/yaml"
)

// printedTags are every tag a node of a template or a mutation can carry:
// none, the core schema's, YAML 1.1's others and a custom one.
var printedTags = []string{"", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!binary", "!!timestamp", "!custom"}

// printedValues read differently in YAML 1.1 and 1.2, as a tag's value
// and without it, or need quoting in some places and not others.
var printedValues = []string{
	"", "~", "null", "Null", "NULL", "true", "false", "True", "yes", "no", "on", "off", "y", "n",
	"0", "1", "-1", "+1", "0x1", "0o17", "0777", "1_000", "1e3", "1.5", ".5", "5.", ".inf", "-.inf", "+.inf", "-.Inf", ".Inf", ".NaN", "-.nan", ".nan",
	"123456789012345678", "1234567890123456789", "99999999999999999999", "123456789.123456789",
	"2024-01-01", "2024-01-01T00:00:00Z", "abc", "a b", "a, b", "[a]", "{a}", "a: b", "x #y", "#x", "- x", "<<", "=",
	"a\nb", "a\n", " lead", "trail ", "é", "a\"b", "a'b", "\t", "aGVsbG8=",
}

var printedStyles = []yaml.Style{0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle,
	yaml.TaggedStyle, yaml.TaggedStyle | yaml.DoubleQuotedStyle}

// printed is how the API server reads a scalar where krender prints it:
// as a value, and as a key, of a mapping in block or in flow style. The
// bytes are go-yaml's encoder's (and yamlemit's, which FuzzEmitter holds to
// them), read by sigs.k8s.io/yaml into JSON; ok is false where that fails.
type printed struct {
	value, key     any
	valueOK, keyOK bool
}

func printedAs(n *yaml.Node, flow bool) printed {
	style := yaml.Style(0)
	if flow {
		style = yaml.FlowStyle
	}
	var p printed
	for i, at := range []*any{&p.value, &p.key} {
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "k"}
		c := *n // the encoder changes the node it prints
		d := &yaml.Node{Kind: yaml.MappingNode, Style: style, Content: []*yaml.Node{k, &c}}
		if i == 1 {
			d.Content[0], d.Content[1] = &c, k
		}
		var buf bytes.Buffer
		if err := yaml.NewEncoder(&buf).Encode(d); err != nil {
			continue
		}
		js, err := k8syaml.YAMLToJSON(buf.Bytes())
		var m map[string]any
		if err != nil || json.Unmarshal(js, &m) != nil || len(m) != 1 {
			continue
		}
		for name, v := range m {
			*at = v
			if i == 1 {
				*at = name
			}
		}
		if i == 0 {
			p.valueOK = true
		} else {
			p.keyOK = true
		}
	}
	return p
}

// TestPredicatesReadAsPrinted: every claim the predicates make about a
// scalar, in a block or a flow collection, holds for the bytes krender
// prints, over every tag, style and tricky value: a node's tag says one
// thing and how it prints another (an empty plain `!!null` is null in a
// block and an empty string in a flow collection; `!!bool yes`, `!!int 0x1`, `!!str
// null` and custom tags each print their own way).
func TestPredicatesReadAsPrinted(t *testing.T) {
	claims := 0
	for _, tag := range printedTags {
		for _, v := range printedValues {
			for _, st := range printedStyles {
				for _, flow := range []bool{false, true} {
					n := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v, Style: st}
					claims += checkClaims(t, n, flow)
				}
			}
		}
	}
	if claims < 500 {
		t.Errorf("only %d claims checked", claims)
	}
}

// checkClaims checks what the predicates claim about n in its context
// against how it prints, and counts the claims.
func checkClaims(t *testing.T, n *yaml.Node, flow bool) int {
	t.Helper()
	p := printedAs(n, flow)
	value, key := p.value, p.key
	what := fmt.Sprintf("%s %q style %d (flow %v)", n.Tag, n.Value, n.Style, flow)
	claims := 0
	claim := func(name string, holds bool) {
		claims++
		ok := p.valueOK
		if name == "KeyText" {
			ok = p.keyOK
		}
		if !ok {
			t.Errorf("%s: %s, but the API server cannot read it", what, name)
		} else if !holds {
			t.Errorf("%s: %s, but it reads as %#v (as a key %#v)", what, name, value, key)
		}
	}
	if IsNull(n, flow) {
		claim("IsNull", value == nil)
	}
	if IsString(n) {
		_, isText := value.(string)
		claim("IsString", isText)
	}
	if ExactString(n) {
		claim("ExactString", value == n.Value)
	}
	if IsBool(n) {
		claim("IsBool", value == (n.Value == "true"))
	}
	if IsInt(n) {
		f, err := strconv.ParseFloat(n.Value, 64)
		claim("IsInt", err == nil && value == f)
	}
	if IsFloat(n) {
		_, isNumber := value.(float64)
		claim("IsFloat", isNumber)
	}
	if text, isText := KeyText(n); isText {
		claim("KeyText", key == text)
	}
	return claims
}
