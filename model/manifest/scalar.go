package manifest

import (
	"strings"

	yaml2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v4"
)

// ReadsAsString reports whether Kubernetes (sigs.k8s.io/yaml, go-yaml v2
// resolution) reads v, written plain, as the string v. The encoder writes
// `yes`, `on` or `1e3` plain even when tagged !!str, and Kubernetes would
// read those as a boolean or a number.
func ReadsAsString(v string) bool {
	if v == "" || strings.ContainsAny(v, "\n\r\t") {
		return true // the encoder quotes or blocks these itself
	}
	if plainWord(v) {
		return !yaml11Words[v]
	}
	return parsesAsString(v)
}

// parsesAsString is ReadsAsString by go-yaml v2 itself.
func parsesAsString(v string) bool {
	var x any
	if err := yaml2.Unmarshal([]byte(v), &x); err != nil {
		return true // not plain-able; the encoder will quote it
	}
	s, ok := x.(string)
	return ok && s == v
}

// KubeString is a string scalar that Kubernetes reads back as s.
func KubeString(s string) *yaml.Node {
	n := String(s)
	if !ReadsAsString(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// plainWord reports whether v is a letter followed by letters, digits and
// `-._/`: names and most label values. go-yaml v2 reads such text as one
// plain scalar, and resolves it to a string unless it is one of
// yaml11Words (only text that starts with a digit, a sign or a dot can be
// a number or a timestamp), so it needs no parse.
func plainWord(v string) bool {
	if !isLetter(v[0]) {
		return false
	}
	for i := 1; i < len(v); i++ {
		c := v[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != '-' && c != '.' && c != '_' && c != '/' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// yaml11Words are go-yaml v2's booleans and nulls that plainWord admits.
var yaml11Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"n": true, "N": true, "no": true, "No": true, "NO": true,
	"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
	"null": true, "Null": true, "NULL": true,
}
