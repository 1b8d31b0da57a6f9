package yamlemit

import (
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

var pool = sync.Pool{New: func() any { return new(emitter) }}

// Append appends the document go-yaml's Dumper writes for root (with
// krender's options) to dst. ok is false, and dst returned as it was, when
// the tree holds something this package leaves to go-yaml: an anchor or
// alias, a tag that would be printed, a key that is no simple scalar, a
// value that is not UTF-8, a node of another kind. Append does not change
// the tree (go-yaml's Dumper drops the tags it can infer from it).
func Append(dst []byte, root *yaml.Node) (out []byte, ok bool) {
	if root == nil || root.Kind == yaml.DocumentNode || root.Kind == 0 {
		return dst, false
	}
	e := pool.Get().(*emitter)
	e.reset(dst)
	e.node(root, "", "")
	e.emit(&event{typ: evDocEnd})
	out, ok = e.out, !e.declined
	e.out = nil // the pool keeps no caller's buffer
	pool.Put(e)
	if !ok {
		return dst, false
	}
	return out, true
}

// node is the serializer's walk: the events for n. foot replaces n's foot
// comment (a key's moves to the next key, as tail).
func (e *emitter) node(n *yaml.Node, foot, tail string) {
	if e.declined {
		return
	}
	if n.Anchor != "" {
		e.declined = true
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		e.scalar(n, foot, tail)
	case yaml.MappingNode:
		e.mapping(n)
	case yaml.SequenceNode:
		e.sequence(n)
	default:
		e.declined = true
	}
}

func (e *emitter) scalar(n *yaml.Node, foot, tail string) {
	st, ok := desolvedStyle(n)
	if !ok || !utf8.ValidString(n.Value) || !validComments(n) {
		e.declined = true
		return
	}
	e.emit(&event{typ: evScalar, head: n.HeadComment, line: n.LineComment, foot: foot, tail: tail,
		value: n.Value, style: serializedStyle(st, n.Value)})
}

func (e *emitter) mapping(n *yaml.Node) {
	if !collectionTagGoes(n, mapTag) || !validComments(n) {
		e.declined = true
		return
	}
	e.emit(&event{typ: evMapStart, head: n.HeadComment, flow: n.Style&yaml.FlowStyle != 0, empty: len(n.Content) == 0})
	tail := ""
	for i := 0; i+1 < len(n.Content) && !e.declined; i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			e.declined = true
			return
		}
		e.node(k, "", tail)
		tail = k.FootComment
		e.node(n.Content[i+1], n.Content[i+1].FootComment, "")
	}
	e.emit(&event{typ: evMapEnd, tail: tail, line: n.LineComment, foot: n.FootComment})
}

func (e *emitter) sequence(n *yaml.Node) {
	if !collectionTagGoes(n, seqTag) || !validComments(n) {
		e.declined = true
		return
	}
	e.emit(&event{typ: evSeqStart, head: n.HeadComment, flow: n.Style&yaml.FlowStyle != 0, empty: len(n.Content) == 0})
	for _, c := range n.Content {
		if e.declined {
			return
		}
		e.node(c, c.FootComment, "")
	}
	e.emit(&event{typ: evSeqEnd, line: n.LineComment, foot: n.FootComment})
}

// validComments: go-yaml's emitter cannot walk comments that are not UTF-8.
func validComments(n *yaml.Node) bool {
	if n.HeadComment == "" && n.LineComment == "" && n.FootComment == "" {
		return true
	}
	return utf8.ValidString(n.HeadComment) && utf8.ValidString(n.LineComment) && utf8.ValidString(n.FootComment)
}
