package diff

import (
	"strconv"

	"go.yaml.in/yaml/v4"
)

// plainValue is n as yaml's Decode into an any reads it, without the
// decoder's reflection, for the trees rendered objects are: mappings with
// string keys, sequences, and strings, booleans, nulls and plain decimal
// numbers. false for anything else (anchors, aliases, merge keys, other
// tags, other spellings of numbers), which Decode then reads.
func plainValue(n *yaml.Node) (any, bool) {
	if n.Anchor != "" {
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content)%2 != 0 {
			return nil, false
		}
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i]
			if tag, ok := tagOf(k); k.Kind != yaml.ScalarNode || k.Anchor != "" || !ok || tag != "!!str" {
				return nil, false
			}
			if _, dup := m[k.Value]; dup {
				return nil, false
			}
			v, ok := plainValue(n.Content[i+1])
			if !ok {
				return nil, false
			}
			m[k.Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, ok := plainValue(item)
			if !ok {
				return nil, false
			}
			l[i] = v
		}
		return l, true
	case yaml.ScalarNode:
		return plainScalar(n)
	}
	return nil, false
}

// plainScalar is a scalar's value as yaml's resolver gives it, for the
// spellings it is sure of.
func plainScalar(n *yaml.Node) (any, bool) {
	s := n.Value
	tag, ok := tagOf(n)
	if !ok {
		return nil, false
	}
	switch tag {
	case "!!str":
		return s, true
	case "!!null":
		switch s {
		case "", "~", "null", "Null", "NULL":
			return nil, true
		}
	case "!!bool":
		switch s {
		case "true", "True", "TRUE":
			return true, true
		case "false", "False", "FALSE":
			return false, true
		}
	case "!!int":
		if decimal(s, false) {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				if i == int64(int(i)) {
					return int(i), true
				}
				return i, true
			}
		}
	case "!!float":
		if decimal(s, true) {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return f, true
			}
		}
	}
	return nil, false
}

// decimal reports whether s is -?D+ (no leading zero but for 0 itself,
// which base 0 would read as octal), or with point, -?D+.D+.
func decimal(s string, point bool) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	whole, frac, dotted := s, "", false
	if point {
		for i := range len(s) {
			if s[i] == '.' {
				whole, frac, dotted = s[:i], s[i+1:], true
				break
			}
		}
		if !dotted || frac == "" || !digits(frac) {
			return false
		}
	}
	if whole == "" || !digits(whole) {
		return false
	}
	return point || whole == "0" || whole[0] != '0'
}

func digits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// tagOf is the tag yaml's decoder resolves a scalar to, where the node
// says it: a tag the parser gave it (the resolved one, or the source's),
// or no tag on a quoted or block scalar (a string). false for a plain
// scalar without a tag, which the decoder resolves from its text, and for
// the non-specific tag "!".
func tagOf(n *yaml.Node) (string, bool) {
	switch {
	case n.Tag == "!":
		return "", false
	case n.Tag != "":
		return n.ShortTag(), true
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return "!!str", true
	}
	return "", false
}
