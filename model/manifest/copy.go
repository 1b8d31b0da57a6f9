package manifest

import (
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
)

// This file is the one place krender copies YAML nodes. A copy keeps the
// line and column of its original and, through origin, the file it was
// written in (or the stage that made it); the scalars substitution found
// references in move with their copies. Stages never copy nodes
// themselves: one that did would leave positions naming the wrong file,
// silently. CheckPositions (positions.go) holds every stage to it.

// origin is where one node of an object came from when that is not the
// object's template: the file it was written in, or the stage that made it.
type origin struct {
	src   *Source // nil for a node a stage made
	stage string
}

// Pos is where n was written: in the template, or in the file it was
// copied from. A node a stage made has no line.
func (o *Object) Pos(n *yaml.Node) filepos.Pos {
	src := o.SourceOf(n)
	if n == nil {
		return filepos.Pos{File: src.Path}
	}
	return filepos.Pos{File: src.Path, Line: n.Line, Col: n.Column}
}

// SourceOf is the file n was written in: the template unless n was copied
// from another file.
func (o *Object) SourceOf(n *yaml.Node) *Source {
	if og, ok := o.origin[n]; ok && og.src != nil {
		return og.src
	}
	return o.Src
}

// MadeBy is the stage that made n, or "" when n was written in a file.
func (o *Object) MadeBy(n *yaml.Node) string {
	return o.origin[n].stage
}

func (o *Object) setOrigin(n *yaml.Node, og origin) {
	if og == (origin{}) || og.src == o.Src {
		delete(o.origin, n)
		return
	}
	if o.origin == nil {
		o.origin = map[*yaml.Node]origin{}
	}
	o.origin[n] = og
}

// Made records that stage (a name, never "") made the nodes at and below
// each of nodes that have no position and no file: a stage calls it for
// what it adds, so that a node without a position is one some stage owns up to.
func (o *Object) Made(stage string, nodes ...*yaml.Node) {
	for _, n := range nodes {
		Walk(n, func(c *yaml.Node) {
			if _, ok := o.origin[c]; c.Line == 0 && !ok {
				o.setOrigin(c, origin{stage: stage})
			}
		})
	}
}

// MadeEntry is Made for key's entry in mapping m: the key and its value.
func (o *Object) MadeEntry(stage string, m *yaml.Node, key string) {
	k, v := KeyValue(m, key)
	o.Made(stage, k, v)
}

// PlaceAt gives n, a node a stage made, the position line:col in src (a
// profile setting it stands for). Its children are placed with it.
func (o *Object) PlaceAt(n *yaml.Node, src *Source, line, col int) *yaml.Node {
	n.Line, n.Column = line, col
	Walk(n, func(c *yaml.Node) { o.setOrigin(c, origin{src: src}) })
	return n
}

// PlaceLike gives n, a node a stage made, the position of like, in whichever
// file like was written (or like's stage, when a stage made like).
func (o *Object) PlaceLike(n, like *yaml.Node) *yaml.Node {
	n.Line, n.Column = like.Line, like.Column
	og := o.origin[like]
	Walk(n, func(c *yaml.Node) { o.setOrigin(c, og) })
	return n
}

// Graft is a copy of n, a node from outside o written in src (a fragment),
// to be put into o's tree: each copy still names src and its place there.
// The original stays as it was, so one fragment serves every tenant.
func (o *Object) Graft(n *yaml.Node, src *Source) *yaml.Node {
	c := newCopier(n, nil, o)
	c.src = src
	return c.node(n)
}

// GraftOver puts a copy of n (as Graft) in dst's place; dst keeps its
// pointer, so its parent needs no change.
func (o *Object) GraftOver(dst, n *yaml.Node, src *Source) {
	c := o.Graft(n, src)
	*dst = *c
	delete(o.origin, c)
	o.setOrigin(dst, origin{src: src})
}

// Clone deep-copies the object so that each tenant (or split copy) can be
// changed without touching the others. Every tenant clones every template,
// so the nodes of a copy are allocated together; a tree with aliases keeps
// each alias pointing at its copied anchor.
func (o *Object) Clone() *Object {
	cp := *o
	cp.origin = nil
	if len(o.origin) > 0 {
		cp.origin = make(map[*yaml.Node]origin, len(o.origin))
	}
	c := newCopier(o.Node, o, &cp)
	c.moved = o.refNodes()
	cp.Node = c.node(o.Node)
	cp.Refs = o.movedRefs(c.moved, true)
	return &cp
}

// View is a stand-in for n with other children, to read through (an
// expression evaluated on part of a document); it never joins a tree.
func View(n *yaml.Node, content []*yaml.Node) *yaml.Node {
	v := *n
	v.Content = content
	return &v
}

// copier copies one subtree. Copies take their origin from the original's
// in from (nil: a node outside any object, whose copies name src), and are
// recorded in to.
type copier struct {
	from, to *Object
	src      *Source
	moved    map[*yaml.Node]*yaml.Node // reference scalars to their copies
	seen     map[*yaml.Node]*yaml.Node // with aliases: each node copied once
	pool     []yaml.Node
	kids     []*yaml.Node
}

// newCopier sizes the copy of root: its nodes are allocated together.
// A tree with aliases is copied node by node through seen, so that shared
// nodes stay shared and aliases point at their copied anchors.
func newCopier(root *yaml.Node, from, to *Object) copier {
	nodes, edges, aliases := 0, 0, false
	Walk(root, func(n *yaml.Node) {
		nodes++
		edges += len(n.Content)
		aliases = aliases || n.Alias != nil
	})
	c := copier{from: from, to: to}
	if aliases {
		c.seen = map[*yaml.Node]*yaml.Node{}
		return c
	}
	c.pool, c.kids = make([]yaml.Node, nodes), make([]*yaml.Node, edges)
	return c
}

func (c *copier) node(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if m, ok := c.seen[n]; ok {
		return m
	}
	m := c.alloc()
	*m = *n
	if c.seen != nil {
		c.seen[n] = m
		m.Alias = c.node(n.Alias)
	}
	c.note(n, m)
	if n.Content != nil {
		m.Content = c.children(len(n.Content))
		for i, ch := range n.Content {
			m.Content[i] = c.node(ch)
		}
	}
	return m
}

func (c *copier) alloc() *yaml.Node {
	if len(c.pool) == 0 {
		return new(yaml.Node)
	}
	m := &c.pool[0]
	c.pool = c.pool[1:]
	return m
}

// children is room for k children, capped: an append must not run into a
// sibling's.
func (c *copier) children(k int) []*yaml.Node {
	if len(c.kids) < k {
		return make([]*yaml.Node, k)
	}
	out := c.kids[:k:k]
	c.kids = c.kids[k:]
	return out
}

// note carries n's origin and references over to its copy m.
func (c *copier) note(n, m *yaml.Node) {
	switch {
	case c.to == nil: // a bare copy, for Rebuild's eval
	case c.from == nil:
		c.to.setOrigin(m, origin{src: c.src})
	case len(c.from.origin) > 0:
		if og, ok := c.from.origin[n]; ok {
			c.to.origin[m] = og
		}
	}
	if _, ok := c.moved[n]; ok {
		c.moved[n] = m
	}
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
// which later stages treat as gone). fresh makes a new slice (a clone's);
// else o.Refs is changed in place.
func (o *Object) movedRefs(moved map[*yaml.Node]*yaml.Node, fresh bool) []Ref {
	if len(o.Refs) == 0 {
		return nil
	}
	out := o.Refs
	if fresh {
		out = make([]Ref, len(o.Refs))
		copy(out, o.Refs)
	}
	for i, r := range out {
		if m := moved[r.Node]; m != nil {
			out[i].Node = m
		}
	}
	return out
}

// Rebuild replaces target, a node of o, with what eval makes of it and of a
// copy of extra, a node from outside o written in src (a fragment). eval
// may copy nodes freely, as yqlib does; every node of its result keeps the
// position, the file and the references of the node it was copied from,
// and a node copied from none is recorded as made by stage. To follow the
// copies, each input node carries an id in its Line while eval runs.
func (o *Object) Rebuild(stage string, target, extra *yaml.Node, src *Source, eval func(target, extra *yaml.Node) (*yaml.Node, error)) error {
	cp := newCopier(extra, nil, nil)
	extra = cp.node(extra) // the caller's node is shared: stamp a copy
	st := stamps{stage: stage}
	st.stamp(target, func(n *yaml.Node) origin { return o.origin[n] })
	st.stamp(extra, func(*yaml.Node) origin { return origin{src: src} })
	out, err := eval(target, extra)
	st.restore()
	if err != nil {
		return err
	}
	moved := o.refNodes()
	Walk(out, func(n *yaml.Node) { st.follow(o, n, moved) })
	*target = *out
	o.setOrigin(target, o.origin[out])
	delete(o.origin, out)
	for k, m := range moved {
		if m == out {
			moved[k] = target
		}
	}
	o.Refs = o.movedRefs(moved, false)
	return nil
}

// stamps are the input nodes of a Rebuild, by id (1-based: Line 0 stays
// "copied from nothing"), with the line each had and where it came from.
type stamps struct {
	stage   string // who made what was copied from nothing
	nodes   []*yaml.Node
	lines   []int
	origins []origin
}

func (s *stamps) stamp(root *yaml.Node, og func(*yaml.Node) origin) {
	Walk(root, func(n *yaml.Node) {
		s.nodes = append(s.nodes, n)
		s.lines = append(s.lines, n.Line)
		s.origins = append(s.origins, og(n))
		n.Line = len(s.nodes)
	})
}

func (s *stamps) restore() {
	for i, n := range s.nodes {
		n.Line = s.lines[i]
	}
}

// follow gives n, a node of eval's result, the position and origin of the
// input node whose id it carries; the first copy of a reference's scalar
// takes the reference.
func (s *stamps) follow(o *Object, n *yaml.Node, moved map[*yaml.Node]*yaml.Node) {
	id := n.Line
	if id < 1 || id > len(s.nodes) {
		n.Line = 0
		o.setOrigin(n, origin{stage: s.stage})
		return
	}
	orig := s.nodes[id-1]
	n.Line, n.Column = s.lines[id-1], orig.Column
	o.setOrigin(n, s.origins[id-1])
	if m, ok := moved[orig]; ok && m == nil {
		moved[orig] = n
	}
}
