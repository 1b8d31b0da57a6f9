package subst

import (
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render/subst/shellformat"
)

// Every unit substitutes a fresh copy of the same templates, and all that
// decides a reference but the unit's values (its reader, evidence, field
// and position) is the same in every copy: a plan holds it, worked out once
// per template, so that each unit only looks its values up.

// plan is what one template's copies share; read-only once stored.
type plan struct {
	off     string
	kept    map[string]bool
	width   int // len(root.Content): a cheap check that a copy has the template's shape
	scalars []planned
}

// planned is one scalar that holds references.
type planned struct {
	at    []int // child indices from the object's root
	value string
	key   bool
	refs  []shellformat.Ref
	base  []manifest.Ref // without Node and the unit's verdicts
}

// planKey names a template: its root mapping's place in its file.
type planKey struct {
	src       *manifest.Source
	line, col int
}

// plans are the stage's plans, by template; safe for concurrent use.
type plans struct{ m sync.Map }

func keyOf(o *manifest.Object) planKey {
	return planKey{src: o.Src, line: o.Node.Line, col: o.Node.Column}
}

// find is o's nodes for p's scalars, or nil when o is not a fresh copy of
// p's template.
func (p *plan) find(o *manifest.Object) ([]*yaml.Node, bool) {
	if len(o.Node.Content) != p.width {
		return nil, false
	}
	nodes := make([]*yaml.Node, len(p.scalars))
	for i, s := range p.scalars {
		n := o.Node
		for _, k := range s.at {
			if k >= len(n.Content) {
				return nil, false
			}
			n = n.Content[k]
		}
		if n.Kind != yaml.ScalarNode || n.Value != s.value {
			return nil, false
		}
		nodes[i] = n
	}
	return nodes, true
}

// replay substitutes o, a fresh copy of p's template, with the unit's
// values; it stops before a scalar when stop (nil: never) says so.
func (p *plan) replay(m *memos, o *manifest.Object, nodes []*yaml.Node, vars map[string]string, missing map[string]filepos.Pos, stop func() error) ([]manifest.Ref, error) {
	env := &scalarEnv{o: o, vars: vars, missing: missing, off: p.off, kept: p.kept, stop: stop}
	total := 0
	for _, s := range p.scalars {
		total += len(s.base)
	}
	occ := make([]manifest.Ref, 0, total)
	for i, s := range p.scalars {
		if env.halt() {
			return nil, env.stopped
		}
		n := nodes[i]
		values := make([]string, len(s.refs))
		replace := make([]bool, len(s.refs))
		for j, r := range s.refs {
			ref := s.base[j]
			ref.Node = n
			values[j], replace[j] = env.decide(&ref, r)
			occ = append(occ, ref)
		}
		if p.off == "" {
			m.replaceRefs(n, s.refs, values, replace, s.key)
		}
	}
	return occ, nil
}

// makePlan works out o's plan, before any substitution in o; nil when o's
// references may depend on the unit's values: a list entry's name (or a
// key) that holds a `$` may be evidence, read after earlier scalars are
// substituted.
func (st *Stage) makePlan(o *manifest.Object, env *scalarEnv) *plan {
	p := &plan{off: env.off, kept: env.kept, width: len(o.Node.Content)}
	var nodes []*yaml.Node
	prepared, ok := false, true
	walkPaths(o.Node, make(path, 0, 16), func(n *yaml.Node, key bool, pa path) {
		if !ok || strings.IndexByte(n.Value, '$') < 0 || (key && manifest.StrategicMergeDirective(n.Value)) || env.halt() {
			return
		}
		if key || entryName(pa) {
			ok = false
			return
		}
		if !prepared {
			env.prepare(st)
			prepared = true
		}
		if s, found := st.analyse(env, n, key, pa); found {
			p.scalars = append(p.scalars, s)
			nodes = append(nodes, n)
		}
	})
	if !ok {
		return nil
	}
	at := indexPaths(o.Node, nodes)
	for i := range p.scalars {
		p.scalars[i].at = at[nodes[i]]
	}
	return p
}

// entryName: p is a list entry's name, which evidence reads.
func entryName(p path) bool {
	n := len(p)
	return n >= 2 && p[n-1] == "name" && strings.HasPrefix(p[n-2], "[")
}

// indexPaths is, for each of nodes, its child indices from root.
func indexPaths(root *yaml.Node, nodes []*yaml.Node) map[*yaml.Node][]int {
	want := make(map[*yaml.Node][]int, len(nodes))
	for _, n := range nodes {
		want[n] = nil
	}
	var stack []int
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if _, ok := want[n]; ok && want[n] == nil {
			want[n] = append([]int{}, stack...)
		}
		for i, c := range n.Content {
			stack = append(stack, i)
			walk(c)
			stack = stack[:len(stack)-1]
		}
	}
	walk(root)
	return want
}
