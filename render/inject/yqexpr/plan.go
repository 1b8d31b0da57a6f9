package yqexpr

import (
	"reflect"
	"strings"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// A plan is the part of a document an expression can read, known when the
// expression uses only key paths, select, pipes, comparisons and literals:
// then evaluating it on a copy of the document that keeps just those paths
// gives the same results as on the whole document, and converting that copy
// to yqlib's nodes costs a few nodes instead of the whole object. Selectors
// such as `.kind == "Deployment"` and deletions of a path are of that kind.
// Any other operator may look anywhere (`..`, keys, length, parent), and the
// expression is then evaluated on the whole document.
type plan struct {
	keys  map[string]*plan // the keys read under this path; none: kept whole
	whole bool             // read as a value: kept with everything under it
}

// newPlan returns nil when the expression may read beyond its key paths.
func newPlan(n *yqlib.ExpressionNode) *plan {
	root := &plan{}
	// The results themselves need not be whole: callers map them back to
	// the document's own nodes and act on those.
	if _, ok := reads(n, []*plan{root}); !ok || root.whole || len(root.keys) == 0 {
		return nil
	}
	return root
}

// reads walks n evaluated in the contexts ctx (nodes at the paths of ctx)
// and returns the paths of its results; computed values (comparisons,
// literals) have none, and yq reads nothing of the document through them.
func reads(n *yqlib.ExpressionNode, ctx []*plan) ([]*plan, bool) {
	if n == nil || n.Operation == nil || n.Operation.OperationType == nil {
		return nil, false
	}
	switch n.Operation.OperationType.Type {
	case "SELF":
		return ctx, n.LHS == nil && n.RHS == nil
	case "STRING_INT", "VALUE":
		return nil, isScalarLiteral(n)
	case "PIPE", "SHORT_PIPE":
		l, ok := reads(n.LHS, ctx)
		if !ok {
			return nil, false
		}
		return reads(n.RHS, l)
	case "SELECT":
		return readsSelect(n, ctx)
	case "EQUALS", "NOT_EQUALS", "AND", "OR":
		return readsComparison(n, ctx)
	case "TRAVERSE_PATH":
		return readsTraverse(n, ctx)
	}
	return nil, false
}

// isScalarLiteral reports whether a literal is a plain scalar, which reads
// nothing of the document.
func isScalarLiteral(n *yqlib.ExpressionNode) bool {
	if n.LHS != nil || n.RHS != nil {
		return false
	}
	c := n.Operation.CandidateNode
	return c == nil || c.Kind == yqlib.ScalarNode
}

// readsSelect: the condition is evaluated in each context on its own, and
// what it reads is judged for truth as a value; the contexts pass through.
func readsSelect(n *yqlib.ExpressionNode, ctx []*plan) ([]*plan, bool) {
	if n.LHS != nil {
		return nil, false
	}
	for _, c := range ctx {
		if !readsWhole(n.RHS, []*plan{c}) {
			return nil, false
		}
	}
	return ctx, true
}

// readsComparison: both sides are read as values; the result is computed.
func readsComparison(n *yqlib.ExpressionNode, ctx []*plan) ([]*plan, bool) {
	for _, side := range []*yqlib.ExpressionNode{n.LHS, n.RHS} {
		if !readsWhole(side, ctx) {
			return nil, false
		}
	}
	return nil, true
}

// readsWhole walks n in ctx and marks its results as read whole, since they
// are compared or judged as values.
func readsWhole(n *yqlib.ExpressionNode, ctx []*plan) bool {
	res, ok := reads(n, ctx)
	if !ok {
		return false
	}
	for _, r := range res {
		r.whole = true
	}
	return true
}

// readsTraverse: `.key` with a plain key moves each context one key down.
func readsTraverse(n *yqlib.ExpressionNode, ctx []*plan) ([]*plan, bool) {
	key, ok := n.Operation.Value.(string)
	if !ok || n.LHS != nil || n.RHS != nil || !plainKey(key) || !plainTraverse(n.Operation.Preferences) {
		return nil, false
	}
	out := make([]*plan, 0, len(ctx))
	for _, c := range ctx {
		out = append(out, c.child(key))
	}
	return out, true
}

// child is the plan under key, made on first read.
func (p *plan) child(key string) *plan {
	if p.keys == nil {
		p.keys = map[string]*plan{}
	}
	next := p.keys[key]
	if next == nil {
		next = &plan{}
		p.keys[key] = next
	}
	return next
}

// plainKey is a key yq matches by equality: `*` and `?` are glob patterns.
func plainKey(k string) bool { return !strings.ContainsAny(k, "*?") }

// plainTraverse reports whether a traversal yields values only, as `.key`
// does; the preferences type is yqlib's own, hence reflection.
func plainTraverse(prefs any) bool {
	v := reflect.ValueOf(prefs)
	if v.Kind() != reflect.Struct {
		return false
	}
	for _, name := range []string{"IncludeMapKeys", "DontIncludeMapValues"} {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Kind() != reflect.Bool || f.Bool() {
			return false
		}
	}
	return true
}

// view is root cut down to what p reads, and copies maps each mapping it
// had to copy back to the original. Nodes outside mappings, and mappings
// with a merge key (whose keys may come from elsewhere), are kept whole.
// It returns nil when the document has an alias, since the anchor it
// names might be cut away.
func (p *plan) view(root *yaml.Node) (*yaml.Node, map[*yaml.Node]*yaml.Node) {
	if hasAlias(root) {
		return nil, nil
	}
	copies := map[*yaml.Node]*yaml.Node{}
	return p.cut(root, copies), copies
}

func (p *plan) cut(n *yaml.Node, copies map[*yaml.Node]*yaml.Node) *yaml.Node {
	if p.whole || len(p.keys) == 0 || n.Kind != yaml.MappingNode {
		return n
	}
	var kept []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" || k.Tag == "!!merge" {
			return n
		}
		if next, ok := p.keys[k.Value]; ok {
			kept = append(kept, k, next.cut(v, copies))
		}
	}
	c := manifest.View(n, kept)
	copies[c] = n
	return c
}

func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// runView evaluates e on a view (a copy of the part of the document the
// expression reads) and maps its results back to the document's nodes.
func (e *Expr) runView(view *yaml.Node, copies map[*yaml.Node]*yaml.Node) (outcome, error) {
	t := e.borrow()
	out, err := evaluate(t, view)
	e.giveBack(t)
	if err != nil {
		return outcome{}, err
	}
	for i, n := range out.nodes {
		out.nodes[i] = original(n, copies)
	}
	return out, nil
}

func original(n *yaml.Node, copies map[*yaml.Node]*yaml.Node) *yaml.Node {
	if o, ok := copies[n]; ok {
		return o
	}
	return n
}
