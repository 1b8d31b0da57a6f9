package manifest

import (
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/filepos"
)

// Object is one Kubernetes object of a render. Nodes keep the line and column
// the parser gave them; nodes that came from another file (an injected
// fragment) are recorded in origin so their positions name that file.
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
	// keyed by object or node, so that Clone and Rebuilt carry them along.

	// Refs is every variable reference substitution saw, in template order.
	Refs []Ref
	// ContentHashed: the object is a ConfigMap or Secret whose content now
	// shows in its name (or in its pods' config-hash annotation).
	ContentHashed bool
	// Zone is the zone this object is the copy for, and SplitFrom its name
	// before the split ("" when it is no zone copy): findings in the copies
	// of one template are reported once, naming the zones.
	Zone, SplitFrom string

	origin map[*yaml.Node]*Source
}

// Pos is where n was written: in the template, or in the fragment it came from.
func (o *Object) Pos(n *yaml.Node) filepos.Pos {
	src := o.Src
	if s, ok := o.origin[n]; ok {
		src = s
	}
	if n == nil {
		return filepos.Pos{File: src.Path}
	}
	return filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column}
}

// SourceOf is the file n was written in.
func (o *Object) SourceOf(n *yaml.Node) *Source {
	if s, ok := o.origin[n]; ok {
		return s
	}
	return o.Src
}

// Adopt records that the subtree at n was written in src.
func (o *Object) Adopt(n *yaml.Node, src *Source) {
	if src == o.Src {
		return
	}
	if o.origin == nil {
		o.origin = map[*yaml.Node]*Source{}
	}
	Walk(n, func(c *yaml.Node) { o.origin[c] = src })
}

// Clone deep-copies the object so that each tenant (or split copy) can be
// changed without touching the others. Every tenant clones every template,
// so the nodes of a copy are allocated together; a tree with aliases takes
// the slower path that keeps each alias pointing at its copied anchor.
func (o *Object) Clone() *Object {
	c := *o
	c.origin = nil
	if len(o.origin) > 0 {
		c.origin = make(map[*yaml.Node]*Source, len(o.origin))
	}
	moved := o.refNodes()
	defer func() { c.Refs = o.movedRefs(moved) }()
	nodes, edges, aliases := 0, 0, false
	Walk(o.Node, func(n *yaml.Node) {
		nodes++
		edges += len(n.Content)
		aliases = aliases || n.Alias != nil
	})
	if aliases {
		c.Node = o.cloneShared(c.origin, moved)
		return &c
	}
	pool := make([]yaml.Node, nodes)
	kids := make([]*yaml.Node, edges)
	var dup func(*yaml.Node) *yaml.Node
	dup = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		m := &pool[0]
		pool = pool[1:]
		*m = *n
		if src, ok := o.origin[n]; ok {
			c.origin[m] = src
		}
		if _, ok := moved[n]; ok {
			moved[n] = m
		}
		if n.Content != nil {
			k := len(n.Content)
			m.Content, kids = kids[:k:k], kids[k:] // capped: an append must not run into a sibling's
			for i, ch := range n.Content {
				m.Content[i] = dup(ch)
			}
		}
		return m
	}
	c.Node = dup(o.Node)
	return &c
}

// cloneShared copies o's tree keeping shared nodes shared, aliases included.
func (o *Object) cloneShared(origin map[*yaml.Node]*Source, moved map[*yaml.Node]*yaml.Node) *yaml.Node {
	seen := map[*yaml.Node]*yaml.Node{}
	var remap func(*yaml.Node) *yaml.Node
	remap = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if m, ok := seen[n]; ok {
			return m
		}
		m := *n
		seen[n] = &m
		if src, ok := o.origin[n]; ok {
			origin[&m] = src
		}
		if _, ok := moved[n]; ok {
			moved[n] = &m
		}
		m.Alias = remap(n.Alias)
		if n.Content != nil {
			m.Content = make([]*yaml.Node, len(n.Content))
			for i, ch := range n.Content {
				m.Content[i] = remap(ch)
			}
		}
		return &m
	}
	return remap(o.Node)
}

// refNodes is a map from each reference's scalar to its replacement, to be
// filled in by a copy; nil when o has no references.
func (o *Object) refNodes() map[*yaml.Node]*yaml.Node {
	if len(o.Refs) == 0 {
		return nil
	}
	m := make(map[*yaml.Node]*yaml.Node, len(o.Refs))
	for _, r := range o.Refs {
		m[r.Node] = nil
	}
	return m
}

// movedRefs is o.Refs pointing at the nodes moved maps them to; a reference
// whose scalar was not copied keeps its node (one no longer in the tree,
// which later stages treat as gone).
func (o *Object) movedRefs(moved map[*yaml.Node]*yaml.Node) []Ref {
	if len(o.Refs) == 0 {
		return nil
	}
	out := make([]Ref, len(o.Refs))
	for i, r := range o.Refs {
		if m := moved[r.Node]; m != nil {
			r.Node = m
		}
		out[i] = r
	}
	return out
}

// Rebuilt records that a library which copies nodes freely (yqlib) rebuilt
// the subtree at root: from maps each new node to the node it was copied
// from. Source files and references follow the copies; a node copied from
// outside the object (a fragment) takes the file foreign names for it.
func (o *Object) Rebuilt(root *yaml.Node, from map[*yaml.Node]*yaml.Node, foreign func(orig *yaml.Node) *Source) {
	moved := o.refNodes()
	Walk(root, func(n *yaml.Node) {
		orig, ok := from[n]
		if !ok {
			return
		}
		src := foreign(orig)
		if src == nil {
			src = o.SourceOf(orig)
		}
		if src != o.Src {
			if o.origin == nil {
				o.origin = map[*yaml.Node]*Source{}
			}
			o.origin[n] = src
		}
		if m, ok := moved[orig]; ok && m == nil {
			moved[orig] = n
		}
	})
	o.Refs = o.movedRefs(moved)
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
