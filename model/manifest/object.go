package manifest

import (
	"strings"

	"go.yaml.in/yaml/v4"
)

// Object is one Kubernetes object of a render. Nodes keep the line and column
// the parser gave them; nodes that came from another file (an injected
// fragment) or that a stage made are recorded in origin, so that positions
// name that file, or that stage.
type Object struct {
	Node    *yaml.Node // the document's root mapping
	Src     *Source    // the template the object came from
	Doc     int        // index of the document within Src
	Leading string     // comments and separators before the first document, as yq keeps them
	// Trailer is what yq prints for the empty documents after this one in its
	// file (a trailing `---`). The stream keeps it; a file of its own does not.
	Trailer string
	Tenant  string
	// List is the `kind: List` document the object is an item of, or nil.
	List *List
	// BaseName is the name before krender appended a content hash ("" if
	// it did not): -o DIR names files after it, so they stay put when data changes.
	BaseName string

	// Facts stages learned about the object. They live here, not in tables
	// keyed by object or node, so that the copies made in copy.go carry them along.

	// Refs is every variable reference substitution saw, in template order.
	Refs []Ref
	// ContentHashed: the object is a ConfigMap or Secret whose content now
	// shows in its name (or in its pods' config-hash annotation).
	ContentHashed bool
	// Zone is the zone this object is the copy for, and SplitFrom its name
	// before the split ("" when it is no zone copy): findings in the copies
	// of one template are reported once, naming the zones.
	Zone, SplitFrom string

	// origin holds the nodes not written in Src: copied in from a fragment
	// or the profile, or made by a stage. Only copy.go copies nodes, so it
	// alone keeps this up to date.
	origin map[*yaml.Node]origin
}

// Walk visits n and every node below it, keys included, depth first.
func Walk(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Content {
		Walk(c, f)
	}
}

// WalkScalars visits every scalar below n, telling mapping keys apart.
func WalkScalars(n *yaml.Node, f func(s *yaml.Node, key bool)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		f(n, false)
	case yaml.MappingNode:
		for i, c := range n.Content {
			if i%2 == 0 && c.Kind == yaml.ScalarNode {
				f(c, true)
			} else {
				WalkScalars(c, f)
			}
		}
	default:
		for _, c := range n.Content {
			WalkScalars(c, f)
		}
	}
}

func (o *Object) APIVersion() string { return ScalarAt(o.Node, "apiVersion") }
func (o *Object) Kind() string       { return ScalarAt(o.Node, "kind") }
func (o *Object) Name() string       { return ScalarAt(o.Node, "metadata", "name") }
func (o *Object) Namespace() string  { return ScalarAt(o.Node, "metadata", "namespace") }

// Group is the API group of apiVersion ("" for the core group).
func (o *Object) Group() string {
	av := o.APIVersion()
	for i := 0; i < len(av); i++ {
		if av[i] == '/' {
			return av[:i]
		}
	}
	return ""
}

// DefinedKind is the group and kind o defines when it is a
// CustomResourceDefinition; ok is false for any other object.
func (o *Object) DefinedKind() (group, kind string, ok bool) {
	if o.Kind() != "CustomResourceDefinition" || o.Group() != "apiextensions.k8s.io" {
		return "", "", false
	}
	return ScalarAt(o.Node, "spec", "group"), ScalarAt(o.Node, "spec", "names", "kind"), true
}

// Lookup follows mapping keys from n and returns the node found, or nil.
func Lookup(n *yaml.Node, path ...string) *yaml.Node {
	for _, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		n = Value(n, key)
	}
	return n
}

// ScalarAt is the scalar value at path, or "".
func ScalarAt(n *yaml.Node, path ...string) string {
	v := Lookup(n, path...)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// Value returns the value node of key in mapping m, or nil.
func Value(m *yaml.Node, key string) *yaml.Node {
	if _, v := KeyValue(m, key); v != nil {
		return v
	}
	return nil
}

// KeyValue returns the key and value nodes of key in mapping m.
func KeyValue(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// Put sets key in mapping m to v, appending the key when it is new.
func Put(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, String(key), v)
}

// Delete removes key from mapping m and reports whether it was there.
func Delete(m *yaml.Node, key string) bool {
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return true
		}
	}
	return false
}

// Ensure returns the mapping at key in m, creating an empty one when absent.
func Ensure(m *yaml.Node, key string) *yaml.Node {
	if v := Value(m, key); v != nil && v.Kind == yaml.MappingNode {
		return v
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	Put(m, key, v)
	return v
}

// String is a new plain string scalar.
func String(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// AsWritten is o's Kind/name and msg as they read for the template o came
// from: a zone copy's name becomes the name it was written with.
func (o *Object) AsWritten(msg string) (object, text string) {
	if o.SplitFrom == "" {
		return o.Kind() + "/" + o.Name(), msg
	}
	return o.Kind() + "/" + o.SplitFrom, strings.ReplaceAll(msg, o.Name(), o.SplitFrom)
}
