package fieldcheck

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The fast path. Strict decoding through JSON (decodeStrict) costs a copy,
// a YAML encoding, a YAML 1.1 parse and a JSON decode per object, and
// nearly every object it sees is clean. clean walks the node tree against
// the Go type instead and answers only "the JSON path would find nothing":
// whatever it is not sure of (an unknown or duplicate field, a value of the
// wrong type, a YAML 1.1 reading such as `yes` or `0777`, an alias, a tag,
// a type with its own decoder it does not model) sends the object down the
// JSON path, which then writes the findings. So findings come from one
// place only, and the fast path can be wrong only by saying "clean" where
// the JSON path finds something: TestFastPathAgrees and FuzzFastPath look
// for that.

// maxDepth bounds the walk; deeper trees take the JSON path.
const maxDepth = 200

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	intOrString  = reflect.TypeFor[intstr.IntOrString]()
	timeType     = reflect.TypeFor[metav1.Time]()
	microTime    = reflect.TypeFor[metav1.MicroTime]()
	rawExtension = reflect.TypeFor[runtime.RawExtension]()
	fieldsV1     = reflect.TypeFor[metav1.FieldsV1]()
	jsonDecoder  = reflect.TypeFor[json.Unmarshaler]()
	textDecoder  = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// clean reports whether n decodes into a t with no error and no strict
// decoding error, as sure as the checks below can make it.
func clean(n *yaml.Node, t reflect.Type, depth int) bool {
	if depth > maxDepth || n.Kind == yaml.AliasNode || n.Anchor != "" || !knownTag(n) {
		return false
	}
	if isNull(n) {
		return nullOK(t)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case quantityType:
		return quantity(n)
	case intOrString:
		return isString(n) || fitsInt(n, 32)
	case rawExtension, fieldsV1:
		return cleanAny(n, depth)
	}
	if decodesItself(t) {
		return false
	}
	return cleanKind(n, t, depth)
}

func cleanKind(n *yaml.Node, t reflect.Type, depth int) bool {
	switch t.Kind() {
	case reflect.Struct:
		return n.Kind == yaml.MappingNode && cleanStruct(n, t, depth)
	case reflect.Map:
		return n.Kind == yaml.MappingNode && t.Key().Kind() == reflect.String && !decodesItself(t.Key()) &&
			cleanPairs(n, func(v *yaml.Node) bool { return clean(v, t.Elem(), depth+1) })
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return base64Text(n)
		}
		return n.Kind == yaml.SequenceNode && cleanItems(n, func(v *yaml.Node) bool { return clean(v, t.Elem(), depth+1) })
	case reflect.Interface:
		return t.NumMethod() == 0 && cleanAny(n, depth)
	}
	return cleanScalar(n, t)
}

// cleanScalar: n is a JSON value that decodes into t, a string, bool or
// number kind.
func cleanScalar(n *yaml.Node, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String:
		return isString(n)
	case reflect.Bool:
		return isBool(n)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fitsInt(n, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fitsInt(n, t.Bits()) && !strings.HasPrefix(n.Value, "-")
	case reflect.Float32, reflect.Float64:
		return isInt(n) || isFloat(n)
	}
	return false
}

// ownDecoder caches decodesItself per type: Implements walks method sets.
var ownDecoder sync.Map // reflect.Type -> bool

// decodesItself: a type with its own JSON or text decoding, which the fast
// path does not model.
func decodesItself(t reflect.Type) bool {
	if v, ok := ownDecoder.Load(t); ok {
		return v.(bool)
	}
	p := reflect.PointerTo(t)
	own := p.Implements(jsonDecoder) || p.Implements(textDecoder) || t.Implements(jsonDecoder) || t.Implements(textDecoder)
	ownDecoder.Store(t, own)
	return own
}

// nullOK: JSON null leaves pointers, maps, slices, interfaces and plain
// values zero; a type with its own decoder sees the null, and of those
// only the ones known to accept it pass.
func nullOK(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		return true
	}
	switch t {
	case quantityType, intOrString, timeType, microTime, rawExtension, fieldsV1:
		return true
	}
	return !decodesItself(t)
}

func cleanStruct(n *yaml.Node, t reflect.Type, depth int) bool {
	fields := fieldsOf(t)
	if fields == nil {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, ok := keyText(n.Content[i])
		if !ok {
			return false
		}
		ft, ok := fields[name]
		if !ok || ft == nil || duplicate(n, i, name) {
			return false // unknown, ambiguous or repeated: the JSON path says which
		}
		if !clean(n.Content[i+1], ft, depth+1) {
			return false
		}
	}
	return len(n.Content)%2 == 0
}

// cleanPairs: mapping n has string keys, none twice, and values that
// pass ok.
func cleanPairs(n *yaml.Node, ok func(*yaml.Node) bool) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, isText := keyText(n.Content[i])
		if !isText || duplicate(n, i, name) || !ok(n.Content[i+1]) {
			return false
		}
	}
	return len(n.Content)%2 == 0
}

func cleanItems(n *yaml.Node, ok func(*yaml.Node) bool) bool {
	for _, item := range n.Content {
		if !ok(item) {
			return false
		}
	}
	return true
}

// cleanAny: n converts to JSON without surprises (what a RawExtension or
// an interface takes as it comes).
func cleanAny(n *yaml.Node, depth int) bool {
	if depth > maxDepth || n.Kind == yaml.AliasNode || n.Anchor != "" || !knownTag(n) {
		return false
	}
	next := func(v *yaml.Node) bool { return cleanAny(v, depth+1) }
	switch n.Kind {
	case yaml.MappingNode:
		return cleanPairs(n, next)
	case yaml.SequenceNode:
		return cleanItems(n, next)
	case yaml.ScalarNode:
		return isNull(n) || isString(n) || isBool(n) || isInt(n) || isFloat(n)
	}
	return false
}

// duplicate reports whether the key at i of mapping n repeats an earlier one.
func duplicate(n *yaml.Node, i int, name string) bool {
	for j := 0; j < i; j += 2 {
		if prev, _ := keyText(n.Content[j]); prev == name {
			return true
		}
	}
	return false
}

// keyText is a key that is a string whichever YAML version reads it.
func keyText(k *yaml.Node) (string, bool) {
	if k.Kind != yaml.ScalarNode || k.Anchor != "" || !knownTag(k) {
		return "", false
	}
	switch k.Style {
	case 0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		return k.Value, isString(k)
	}
	return "", false
}

// knownTag: no tag, or one of the core schema's, written or resolved.
func knownTag(n *yaml.Node) bool {
	switch n.Tag {
	case "", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq":
		return true
	}
	return false
}

// plainString: a plain scalar that is a string in YAML 1.1, as kubectl's
// sigs.k8s.io/yaml reads it (go-yaml v2's resolve); krender's encoder
// writes it plain or quoted, and either way it stays a string.
func plainString(s string) bool {
	switch {
	case s == "" || s == "<<" || s == "~":
		return false
	case s[0] == '.':
		_, err := strconv.ParseFloat(s, 64)
		return err != nil && !strings.HasPrefix(strings.ToLower(s), ".inf") && !strings.HasPrefix(strings.ToLower(s), ".nan")
	case s[0] == '+' || s[0] == '-' || '0' <= s[0] && s[0] <= '9':
		return !yaml11Number(s)
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "true", "false", "on", "off", "null":
		return false
	}
	return true
}

// yaml11Number: s, which starts with a sign or a digit, is (or might be)
// a timestamp, an integer or a float in YAML 1.1.
func yaml11Number(s string) bool {
	if len(s) > 4 && s[4] == '-' && strings.Trim(s[:4], "0123456789") == "" {
		return true // perhaps a timestamp (YYYY-...)
	}
	plain := strings.ReplaceAll(s, "_", "")
	if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseFloat(plain, 64); err == nil || yaml11Float.MatchString(plain) {
		return true
	}
	return strings.HasPrefix(plain, "0b") || strings.HasPrefix(plain, "-0b") || strings.HasPrefix(plain, "+")
}

// yaml11Float is go-yaml v2's float syntax.
var yaml11Float = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// isString: n is a JSON string after the round trip.
func isString(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return false
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return true
	}
	return n.Style == 0 && plainString(n.Value)
}

// exactString: isString, and its text reaches a decoder unchanged (no
// block style to re-fold, nothing JSON escapes).
func exactString(n *yaml.Node) bool {
	if !isString(n) || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	for _, r := range n.Value {
		if r < 0x20 || r == '"' || r == '\\' || r == '<' || r == '>' || r == '&' || r >= 0x7f {
			return false
		}
	}
	return true
}

func isNull(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.Style != 0 || n.ShortTag() != "!!null" {
		return false
	}
	switch n.Value {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

func isBool(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!bool" && (n.Value == "true" || n.Value == "false")
}

// decimal is an integer both YAML versions read alike and that fits an
// int64 with room to spare.
var decimal = regexp.MustCompile(`^-?[1-9][0-9]{0,17}$|^0$`)

func isInt(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!int" && decimal.MatchString(n.Value)
}

// fitsInt: an integer that fits bits bits, signed.
func fitsInt(n *yaml.Node, bits int) bool {
	if !isInt(n) {
		return false
	}
	_, err := strconv.ParseInt(n.Value, 10, bits)
	return err == nil
}

// fraction is a float both YAML versions read alike, written by JSON as
// it is read here.
var fraction = regexp.MustCompile(`^[0-9]{1,9}\.[0-9]{1,9}$`)

func isFloat(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && n.ShortTag() == "!!float" && fraction.MatchString(n.Value)
}

// quantity: n decodes as a resource.Quantity (a string, an integer or a
// fraction its parser takes).
func quantity(n *yaml.Node) bool {
	var text string
	switch {
	case isInt(n):
		text = n.Value
	case isFloat(n):
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return false
		}
		js, err := json.Marshal(f)
		if err != nil {
			return false
		}
		text = string(js)
	case exactString(n):
		text = n.Value
	default:
		return false
	}
	_, err := resource.ParseQuantity(strings.TrimSpace(text))
	return err == nil
}

// base64Text: a []byte, which JSON carries as standard base64.
func base64Text(n *yaml.Node) bool {
	if !exactString(n) {
		return false
	}
	_, err := base64.StdEncoding.DecodeString(n.Value)
	return err == nil
}

// fieldCache holds fieldsOf's answers per struct type.
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// fieldsOf maps the JSON names of struct t's fields (embedded structs
// flattened as encoding/json does) to their types; a name two fields
// claim maps to nil. nil when t has a field the fast path does not model.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	if !collectFields(t, m, 0) {
		m = nil
	}
	fieldCache.Store(t, m)
	return m
}

func collectFields(t reflect.Type, m map[string]reflect.Type, depth int) bool {
	if depth > 5 {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if strings.Contains(","+opts+",", ",string,") {
			return false
		}
		if sf.Anonymous && name == "" {
			et := sf.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() != reflect.Struct {
				return false
			}
			if !collectFields(et, m, depth+1) {
				return false
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, dup := m[name]; dup {
			m[name] = nil
			continue
		}
		m[name] = sf.Type
	}
	return true
}
