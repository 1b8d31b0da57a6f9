package fieldcheck

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
	kjson "sigs.k8s.io/json"

	"github.com/krender/krender/lint/fieldcheck/internal/yaml11"
)

// Value is n as the API server's decoder for custom resources sees it:
// JSON (n's value as JSON reads it) decoded into map[string]any, []any,
// string, int64, float64, bool or nil, with no YAML text in between.
// false when n holds anything whose reading is not plain enough to be
// sure of (the same doubts as the fast path's, and strings a YAML 1.1
// parser could read differently): then JSON is the way.
func Value(n *yaml.Node) (any, bool) {
	return value(n, 0, false)
}

// value is n's value, depth deep and in a flow collection or not.
func value(n *yaml.Node, depth int, flow bool) (any, bool) {
	if depth > yaml11.MaxDepth || n.Kind == yaml.AliasNode || n.Anchor != "" || !yaml11.KnownTag(n) {
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		return mapValue(n, depth, yaml11.Flow(n, flow))
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, ok := value(item, depth+1, yaml11.Flow(n, flow))
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	case yaml.ScalarNode:
		return scalarValue(n, flow)
	}
	return nil, false
}

// mapValue: flow says whether n's keys and values are in a flow collection.
func mapValue(n *yaml.Node, depth int, flow bool) (any, bool) {
	if len(n.Content)%2 != 0 {
		return nil, false
	}
	out := make(map[string]any, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, ok := yaml11.KeyText(n.Content[i])
		if !ok || !plainText(name) {
			return nil, false
		}
		if _, dup := out[name]; dup {
			return nil, false
		}
		v, ok := value(n.Content[i+1], depth+1, flow)
		if !ok {
			return nil, false
		}
		out[name] = v
	}
	return out, true
}

func scalarValue(n *yaml.Node, flow bool) (any, bool) {
	switch {
	case yaml11.IsNull(n, flow):
		return nil, true
	case yaml11.IsBool(n):
		return n.Value == "true", true
	case yaml11.IsInt(n):
		v, err := strconv.ParseInt(n.Value, 10, 64)
		return v, err == nil
	case yaml11.IsFloat(n):
		return floatValue(n.Value)
	case yaml11.IsString(n) && n.Style&yaml.FoldedStyle == 0 && plainText(n.Value):
		return n.Value, true
	}
	return nil, false
}

// floatValue is a YAML 1.1 float as it comes back from JSON: JSON writes
// 1.0 as 1, which the decoder then keeps as an int64.
func floatValue(s string) (any, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false
	}
	js, err := json.Marshal(f)
	if err != nil {
		return nil, false
	}
	var v any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &v); err != nil {
		return nil, false
	}
	return v, true
}

// plainText: text that YAML 1.1 and 1.2 carry alike through a scalar of
// any style, and JSON unchanged: valid UTF-8 with no control character but
// newline and tab, and none of the line breaks only YAML 1.1 knows (NEL,
// U+2028, U+2029) or a byte-order mark.
func plainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff
	})
}
