// Package yaml11 tells which YAML nodes the API server reads as the YAML
// 1.2 parser here does: kubectl reads YAML through sigs.k8s.io/yaml (go-yaml
// v2, YAML 1.1), where `yes` is a boolean and `0777` an octal number.
// Its predicates answer "surely so"; whatever they are unsure of, the
// caller sends down the JSON path. No regular expressions, no package
// state: the lean binary pays nothing to link it.
package yaml11

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// MaxDepth bounds the walks over a tree; deeper trees take the JSON path.
const MaxDepth = 200

// Plain: n is no alias, has no anchor, and a tag of the core schema's.
func Plain(n *yaml.Node) bool {
	return n.Kind != yaml.AliasNode && n.Anchor == "" && KnownTag(n)
}

// KnownTag: no tag, or one of the core schema's, written or resolved.
func KnownTag(n *yaml.Node) bool {
	switch n.Tag {
	case "", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq":
		return true
	}
	return false
}

// KeyText is a key that is a string whichever YAML version reads it.
func KeyText(k *yaml.Node) (string, bool) {
	if k.Kind != yaml.ScalarNode || k.Anchor != "" || !KnownTag(k) {
		return "", false
	}
	switch k.Style {
	case 0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		return k.Value, IsString(k)
	}
	return "", false
}

// plainString: a plain scalar that is a string in YAML 1.1, as kubectl's
// sigs.k8s.io/yaml reads it (go-yaml v2's resolve); krender's encoder
// writes it plain or quoted, and either way it stays a string.
func plainString(s string) bool {
	switch {
	case s == "" || s == "<<" || s == "~":
		return false
	case strings.HasPrefix(strings.TrimLeft(s, "+-"), "."):
		return !dotNumber(s)
	case s[0] == '+' || s[0] == '-' || '0' <= s[0] && s[0] <= '9':
		return !yaml11Number(s)
	}
	if len(s) > len("false") {
		return true // longer than any word below: spare ToLower's copy
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "true", "false", "on", "off", "null":
		return false
	}
	return true
}

// dotNumber: s, which starts with a dot after any sign, is (or might be)
// a float in YAML 1.1: .5, .inf, and -.inf, which an untagged plain scalar
// prints as it is. A leading + is a doubt, as in yaml11Number.
func dotNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	rest := strings.ToLower(strings.TrimLeft(s, "+-"))
	return err == nil || s[0] == '+' || strings.HasPrefix(rest, ".inf") || strings.HasPrefix(rest, ".nan")
}

// yaml11Number: s, which starts with a sign or a digit, is (or might be)
// a timestamp, an integer or a float in YAML 1.1.
func yaml11Number(s string) bool {
	if len(s) > 4 && s[4] == '-' && digits(s[:4]) {
		return true // perhaps a timestamp (YYYY-...)
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseFloat(plain, 64); err == nil || yaml11Float(plain) {
		return true
	}
	return strings.HasPrefix(plain, "0b") || strings.HasPrefix(plain, "-0b") || strings.HasPrefix(plain, "+")
}

// yaml11Float is go-yaml v2's float syntax,
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func yaml11Float(s string) bool {
	mant, exp, hasExp := cutAny(trimSign(s), "eE")
	if exp = trimSign(exp); hasExp && (exp == "" || !digits(exp)) {
		return false
	}
	if frac, ok := strings.CutPrefix(mant, "."); ok {
		return frac != "" && digits(frac)
	}
	whole, frac, _ := strings.Cut(mant, ".")
	return whole != "" && digits(whole) && digits(frac)
}

// cutAny cuts s around the first of chars.
func cutAny(s, chars string) (before, after string, found bool) {
	if i := strings.IndexAny(s, chars); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func trimSign(s string) string {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:]
	}
	return s
}

// digits: s is ASCII digits only (or empty).
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsString: n is a JSON string after the round trip, in a flow
// collection or not.
func IsString(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return false
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return true
	}
	return n.Style == 0 && plainString(n.Value)
}

// ExactString: IsString, and its text reaches a decoder unchanged (no
// block style to re-fold, nothing JSON escapes).
func ExactString(n *yaml.Node) bool {
	if !IsString(n) || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	for _, r := range n.Value {
		if r < 0x20 || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&' || r >= 0x7f {
			return false
		}
	}
	return true
}

// IsNull: n is a JSON null after the round trip, where flow says whether
// it is printed inside a flow collection: there an empty plain scalar
// cannot be written as it is, and the printer quotes it: an empty string.
func IsNull(n *yaml.Node, flow bool) bool {
	if n.Kind != yaml.ScalarNode || n.Style != 0 || n.ShortTag() != "!!null" {
		return false
	}
	switch n.Value {
	case "":
		return !flow
	case "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// Flow: the children of n are printed in flow style, being inside a flow
// collection (flow) or one itself.
func Flow(n *yaml.Node, flow bool) bool {
	return flow || n.Style&yaml.FlowStyle != 0
}

// IsBool: n is a JSON boolean after the round trip.
func IsBool(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!bool" && (n.Value == "true" || n.Value == "false")
}

// IsInt: n is an integer both YAML versions read alike and that fits an
// int64 with room to spare.
func IsInt(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!int" && decimal(n.Value)
}

// decimal is ^-?[1-9][0-9]{0,17}$|^0$.
func decimal(s string) bool {
	if s == "0" {
		return true
	}
	s = strings.TrimPrefix(s, "-")
	return len(s) >= 1 && len(s) <= 18 && s[0] != '0' && digits(s)
}

// FitsInt: an integer that fits bits bits, signed.
func FitsInt(n *yaml.Node, bits int) bool {
	if !IsInt(n) {
		return false
	}
	_, err := strconv.ParseInt(n.Value, 10, bits)
	return err == nil
}

// IsFloat: n is a float both YAML versions read alike, written by JSON
// as it is read here.
func IsFloat(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!float" && fraction(n.Value)
}

// fraction is ^[0-9]{1,9}\.[0-9]{1,9}$.
func fraction(s string) bool {
	whole, frac, ok := strings.Cut(s, ".")
	return ok && len(whole) >= 1 && len(whole) <= 9 && len(frac) >= 1 && len(frac) <= 9 && digits(whole) && digits(frac)
}
