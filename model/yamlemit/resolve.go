package yamlemit

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"
)

// Short tags, as go-yaml's desolver compares them.
const (
	nullTag      = "!!null"
	boolTag      = "!!bool"
	strTag       = "!!str"
	intTag       = "!!int"
	floatTag     = "!!float"
	timestampTag = "!!timestamp"
	mergeTag     = "!!merge"
	mapTag       = "!!map"
	seqTag       = "!!seq"

	longTagPrefix = "tag:yaml.org,2002:"
)

func shortTag(tag string) string {
	if strings.HasPrefix(tag, longTagPrefix) {
		return "!!" + tag[len(longTagPrefix):]
	}
	return tag
}

// resolveTable and resolveMap are go-yaml's: the first byte of a plain
// scalar says what it may resolve to, some values resolve by name.
var (
	resolveTable [256]byte
	resolveMap   = map[string]string{}
)

func init() {
	t := &resolveTable
	t['+'], t['-'] = 'S', 'S'
	for _, c := range "0123456789" {
		t[c] = 'D'
	}
	for _, c := range "yYnNtTfFoO~<" {
		t[c] = 'M'
	}
	t['.'] = '.'
	for tag, vs := range map[string][]string{
		boolTag:  {"true", "True", "TRUE", "false", "False", "FALSE"},
		nullTag:  {"", "~", "null", "Null", "NULL"},
		floatTag: {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "-0", "-0.0"},
		mergeTag: {"<<"},
	} {
		for _, v := range vs {
			resolveMap[v] = tag
		}
	}
}

var yamlStyleFloat = regexp.MustCompile(`^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$`)

// resolveTag is the tag go-yaml resolves the untagged plain scalar in to.
func resolveTag(in string) string {
	hint := byte('N')
	if in != "" {
		hint = resolveTable[in[0]]
	}
	if hint == 0 {
		return strTag
	}
	if tag, ok := resolveMap[in]; ok {
		return tag
	}
	switch hint {
	case '.':
		if _, err := strconv.ParseFloat(in, 64); err == nil {
			return floatTag
		}
	case 'D', 'S':
		return resolveNumber(in)
	}
	return strTag
}

// numeric are the bytes of go-yaml's ints (any base), floats and timestamps.
var numeric = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEFxXoO_+-.:tTzZ " {
		t[c] = true
	}
	return t
}()

func resolveNumber(in string) string {
	for i := 0; i < len(in); i++ {
		if !numeric[in[i]] {
			return strTag // "500m", "-c": no number (and no parse errors to allocate)
		}
	}
	if isTimestamp(in) {
		return timestampTag
	}
	plain := strings.ReplaceAll(in, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return intTag
	}
	if _, err := strconv.ParseUint(strings.TrimPrefix(plain, "+"), 0, 64); err == nil {
		return intTag
	}
	if yamlStyleFloat.MatchString(plain) {
		if _, err := strconv.ParseFloat(plain, 64); err == nil {
			return floatTag
		}
	}
	return strTag
}

var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range timestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}

// Scalar output styles, as go-yaml's emitter names them.
type scalarStyle uint8

const (
	plainStyle scalarStyle = iota + 1
	singleStyle
	doubleStyle
	literalStyle
	foldedStyle
)

const quoted = yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle

// desolvedStyle is the node style go-yaml's desolver leaves on a scalar, and
// whether its tag goes away (a tag that stays would be printed: declined).
func desolvedStyle(n *yaml.Node) (yaml.Style, bool) {
	st := n.Style
	if n.Tag == "" {
		return st, true
	}
	if st&yaml.TaggedStyle != 0 {
		return st, false
	}
	stag := shortTag(n.Tag)
	switch stag {
	case nullTag, boolTag, strTag, intTag, floatTag, timestampTag:
	case mergeTag:
		return st, n.Value == "<<"
	default:
		return st, false
	}
	if stag == intTag || stag == floatTag || stag == strTag && st&quoted != 0 {
		return st, true // the tag goes, whatever the value resolves to
	}
	switch rtag := resolveTag(n.Value); {
	case rtag == stag, stag == intTag, stag == floatTag:
		return st, true
	case stag == strTag:
		if st&quoted == 0 {
			st |= yaml.DoubleQuotedStyle // the legacy quote preference's
		}
		return st, true
	}
	return st, false
}

// serializedStyle is the style go-yaml's serializer asks the emitter for.
func serializedStyle(st yaml.Style, value string) scalarStyle {
	switch {
	case st&yaml.DoubleQuotedStyle != 0:
		return doubleStyle
	case st&yaml.SingleQuotedStyle != 0:
		return singleStyle
	case st&yaml.LiteralStyle != 0:
		return literalStyle
	case st&yaml.FoldedStyle != 0:
		return foldedStyle
	case strings.Contains(value, "\n"):
		return literalStyle
	}
	return plainStyle
}

// collectionTagGoes: the desolver drops the collection's tag (else it would be printed).
func collectionTagGoes(n *yaml.Node, def string) bool {
	if n.Tag == "" {
		return true
	}
	return n.Style&yaml.TaggedStyle == 0 && shortTag(n.Tag) == def
}
