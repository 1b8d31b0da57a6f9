package contenthash

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// Most ConfigMaps hold nothing but text: data maps string keys to string
// values, and there is no binaryData. For those, kustomize's hasher prints
// data as YAML, parses it back into a map of strings and writes that map as
// JSON; its result is {"data":{...},"kind":"ConfigMap","name":""} in
// encoding/json's key order, and the hash is the first ten hex digits of its
// sha256 with kubectl's vowel-free substitutions. Building that map
// directly skips the print and re-parse, which were most of a render's
// hashing time. Anything else (other scalar types, aliases, binaryData,
// Secrets, characters a YAML printer could normalise) goes to kustomize's
// hasher itself; TestStringDataSumIsKustomizes holds the two together.

// stringConfigMap returns the data of a text-only ConfigMap.
func stringConfigMap(obj *yaml.Node) (map[string]any, bool) {
	data, ok := configMapData(obj)
	if !ok {
		return nil, false
	}
	return textData(data)
}

// configMapData is the data of obj when obj is a ConfigMap with text data
// only: one kind, one data mapping that is not empty, no binaryData.
func configMapData(obj *yaml.Node) (*yaml.Node, bool) {
	if obj.Kind != yaml.MappingNode {
		return nil, false
	}
	var kind, data *yaml.Node
	for i := 0; i+1 < len(obj.Content); i += 2 {
		k, v := obj.Content[i], obj.Content[i+1]
		switch k.Value {
		case "kind":
			if kind != nil {
				return nil, false
			}
			kind = v
		case "data":
			if data != nil {
				return nil, false
			}
			data = v
		case "binaryData", "metadata/name":
			return nil, false
		}
	}
	if kind == nil || kind.Kind != yaml.ScalarNode || kind.Value != "ConfigMap" || data == nil ||
		data.Kind != yaml.MappingNode || len(data.Content) == 0 {
		return nil, false
	}
	return data, true
}

// textData is data as a map when every key and value is plain text and no
// key is written twice.
func textData(data *yaml.Node) (map[string]any, bool) {
	out := make(map[string]any, len(data.Content)/2)
	for i := 0; i+1 < len(data.Content); i += 2 {
		k, v := data.Content[i], data.Content[i+1]
		if !plainText(k) || !plainText(v) {
			return nil, false
		}
		if _, dup := out[k.Value]; dup {
			return nil, false
		}
		out[k.Value] = v.Value
	}
	return out, true
}

// plainText is a string scalar that YAML prints and reads back unchanged:
// valid UTF-8, no line break but \n (YAML folds \r\n and friends), no
// control or byte-order characters. A folded (>) scalar of several lines is
// not: the printer adds a blank line before a line that starts with a space,
// so kustomize hashes a different text than the ConfigMap holds, and only
// its own hasher gives its name.
func plainText(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || !utf8.ValidString(n.Value) ||
		n.Style&yaml.FoldedStyle != 0 && strings.Contains(n.Value, "\n") {
		return false
	}
	for _, r := range n.Value {
		switch {
		case r == '\n', r >= 0x20 && r <= 0x7e:
		case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd && r != 0xfeff, r >= 0x10000:
		default:
			return false
		}
	}
	return true
}

// stringDataSum is kustomize's hash of a ConfigMap with this data.
func stringDataSum(data map[string]any) (string, error) {
	text, err := json.Marshal(map[string]any{"kind": "ConfigMap", "name": "", "data": data})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(text)
	return strings.Map(func(r rune) rune {
		switch r {
		case '0':
			return 'g'
		case '1':
			return 'h'
		case '3':
			return 'k'
		case 'a':
			return 'm'
		case 'e':
			return 't'
		}
		return r
	}, hex.EncodeToString(sum[:5])), nil
}
