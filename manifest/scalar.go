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
