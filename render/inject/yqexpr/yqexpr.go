// Package yqexpr evaluates yq expressions in-process on krender's document
// model, so that profiles can select and change objects in the language
// their users already script with, without a yq process per file and without
// losing the template positions of the nodes involved.
package yqexpr

import (
	"container/list"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/mikefarah/yq/v4/pkg/yqlib"
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

// Expressions come from profiles, which are reviewed like code but run in
// CI with its secrets around: file, env and system operators would let a
// profile read them. yqlib guards them only through its process-wide
// ConfiguredSecurityPreferences, which the engine neither sets nor reads, so
// Compile puts yq's own refusal in their place (see fence). eval parses its
// argument while it runs, past any check made here: only the preferences
// guard it, so it runs only where the caller says it settled them (Settle,
// Syntax.Eval).
var fenced = map[string]string{
	"LOAD":        "file operations have been disabled",
	"LOAD_STRING": "file operations have been disabled",
	"ENV":         "env operations have been disabled",
	"ENVSUBST":    "env operations have been disabled",
	"SYSTEM":      "system operations are disabled, use --security-enable-system-operator to enable",
}

// evalOff is eval's refusal when the caller has not settled yqlib's file,
// env and system operators (Syntax.Eval).
const evalOff = "eval is off: file, env and system operators are not turned off in yqlib (krender's actions do)"

// Settle turns yqlib's file, env and system operators off and silences its
// logger (which writes to the program's stderr), once for the process:
// yqlib has these switches only process-wide. The actions call it before
// they build an engine, so that a program calling action.Engine gets the
// CLI's yq; the engine never calls it, and runs eval only when its caller
// says it did (Syntax.Eval).
var Settle = sync.OnceFunc(func() {
	yqlib.ConfiguredSecurityPreferences.DisableFileOps = true
	yqlib.ConfiguredSecurityPreferences.DisableEnvOps = true
	yqlib.ConfiguredSecurityPreferences.EnableSystemOps = false
	yqlib.GetLogger().SetSlogger(slog.New(slog.DiscardHandler))
})

// Syntax is what the expressions of a run may use. Eval lets yq's eval run:
// the caller called Settle.
type Syntax struct{ Eval bool }

// fence replaces every operator of n that reads files, the environment or
// runs commands with yq's `error` giving the message yqlib itself gives when
// they are off, so an expression fails where and as it did under the CLI's
// preferences, whatever the program's. It returns n's replacement.
func fence(n *yqlib.ExpressionNode, eval bool) (*yqlib.ExpressionNode, error) {
	if n == nil {
		return nil, nil
	}
	if op := n.Operation; op != nil && op.OperationType != nil {
		typ := op.OperationType.Type
		if strings.HasPrefix(typ, "ENVSUBST") {
			typ = "ENVSUBST" // yqlib appends its flags to the type's name
		}
		msg, ok := fenced[typ]
		if !ok && typ == "EVAL" && !eval {
			msg, ok = evalOff, true
		}
		if ok {
			r, err := yqlib.ExpressionParser.ParseExpression(fmt.Sprintf("error(%q)", msg))
			if err != nil {
				return nil, err
			}
			r.Parent = n.Parent
			return r, nil
		}
	}
	var err error
	if n.LHS, err = fence(n.LHS, eval); err != nil {
		return nil, err
	}
	n.RHS, err = fence(n.RHS, eval)
	return n, err
}

// Expr is a yq expression parsed once per run.
type Expr struct {
	Text  string
	Pos   filepos.Pos // where the profile wrote it
	node  *yqlib.ExpressionNode
	plan  *plan     // what it reads, when that is known; nil: anything
	trees sync.Pool // copies of node, one per evaluation under way
	memo  outcomes  // a planned expression's outcomes by view
}

// borrow returns a copy of the parsed expression for one evaluation. Some
// yqlib operators write into the tree while they run (sort sets its own RHS),
// so tenants rendering at once must not share one; copies are kept for reuse
// rather than parsed again.
func (e *Expr) borrow() *yqlib.ExpressionNode {
	if t, ok := e.trees.Get().(*yqlib.ExpressionNode); ok {
		return t
	}
	return cloneTree(e.node, nil)
}

func (e *Expr) giveBack(t *yqlib.ExpressionNode) { e.trees.Put(t) }

func cloneTree(n, parent *yqlib.ExpressionNode) *yqlib.ExpressionNode {
	if n == nil {
		return nil
	}
	c := &yqlib.ExpressionNode{Parent: parent}
	if n.Operation != nil {
		op := *n.Operation
		if op.CandidateNode != nil {
			op.CandidateNode = op.CandidateNode.Copy()
		}
		c.Operation = &op
	}
	c.LHS = cloneTree(n.LHS, c)
	c.RHS = cloneTree(n.RHS, c)
	return c
}

// Compile parses text, which the user wrote at pos, without eval.
func Compile(text string, pos filepos.Pos) (*Expr, error) { return Syntax{}.Compile(text, pos) }

// Selector is Syntax.Selector without eval.
func Selector(cond string, pos filepos.Pos) (*Expr, error) { return Syntax{}.Selector(cond, pos) }

// Compile parses text, which the user wrote at pos.
func (s Syntax) Compile(text string, pos filepos.Pos) (*Expr, error) {
	yqlib.InitExpressionParser() // yqlib's own parser, made once and never changed
	n, err := yqlib.ExpressionParser.ParseExpression(text)
	if err == nil {
		n, err = fence(n, s.Eval)
	}
	if err != nil {
		return nil, filepos.Errorf(pos, "invalid yq expression %q: %v", text, err)
	}
	return &Expr{Text: text, Pos: pos, node: n, plan: newPlan(n)}, nil
}

// Selector compiles a condition so that Match means exactly what yq's
// `select(COND)` means: at least one result that is neither false nor null.
func (s Syntax) Selector(cond string, pos filepos.Pos) (*Expr, error) {
	if _, err := s.Compile(cond, pos); err != nil {
		return nil, err // judged alone, so an unbalanced ")" cannot pair with the wrapper
	}
	e, err := s.Compile("select("+cond+")", pos)
	if err != nil {
		return nil, err
	}
	e.Text = cond
	return e, nil
}

// Match reports whether the selector e keeps root.
func (e *Expr) Match(root *yaml.Node) (bool, error) {
	out, err := e.run(root)
	return out.any, err
}

// Nodes evaluates e against root without changing it and returns the
// results that are nodes of root itself: paths that do not exist and values
// the expression computes are left out, so callers only ever act on what
// the document already has.
func (e *Expr) Nodes(root *yaml.Node) ([]*yaml.Node, error) {
	out, err := e.run(root)
	return out.nodes, err
}

// outcome is what an evaluation gave: whether it had any result at all, and
// its results that are nodes of the document, in order, each once.
type outcome struct {
	any   bool
	nodes []*yaml.Node
}

func (e *Expr) run(root *yaml.Node) (outcome, error) {
	if e.plan != nil {
		if view, copies := e.plan.view(root); view != nil {
			return e.runViewMemo(view, copies)
		}
	}
	t := e.borrow()
	defer e.giveBack(t)
	return evaluate(t, root)
}

// evaluate runs x on a candidate copy of doc. yqlib creates new nodes for
// missing paths even when reading; those are not doc's and are left out.
func evaluate(x *yqlib.ExpressionNode, doc *yaml.Node) (outcome, error) {
	cn, err := toCandidate(doc)
	if err != nil {
		return outcome{}, err
	}
	back := map[*yqlib.CandidateNode]*yaml.Node{}
	pair(cn, doc, back)
	ctx := yqlib.Context{MatchingNodes: single(cn), DontAutoCreate: true}
	res, err := yqlib.NewDataTreeNavigator().GetMatchingNodes(ctx, x)
	if err != nil {
		return outcome{}, err
	}
	out := outcome{any: res.MatchingNodes.Len() > 0}
	seen := map[*yaml.Node]bool{}
	for el := res.MatchingNodes.Front(); el != nil; el = el.Next() {
		if n, ok := back[el.Value.(*yqlib.CandidateNode)]; ok && !seen[n] {
			seen[n] = true
			out.nodes = append(out.nodes, n)
		}
	}
	return out, nil
}

// Eval evaluates an assignment such as `. += $frag` with target as the
// document and vars bound as $name, and returns the document it makes: new
// nodes throughout, as yqlib copies freely, each with the Line and Column of
// the input node it was copied from. Inputs are left as they were; callers
// put the result in place through manifest.Object.Rebuild, which follows
// the copies.
func (e *Expr) Eval(target *yaml.Node, vars map[string]*yaml.Node) (*yaml.Node, error) {
	cn, err := toCandidate(target)
	if err != nil {
		return nil, err
	}
	ctx := yqlib.Context{MatchingNodes: single(cn)}
	for name, v := range vars {
		c, err := toCandidate(v)
		if err != nil {
			return nil, err
		}
		ctx.SetVariable(name, single(c))
	}
	t := e.borrow()
	defer e.giveBack(t)
	if _, err := yqlib.NewDataTreeNavigator().GetMatchingNodes(ctx, t); err != nil {
		return nil, err
	}
	return cn.MarshalYAML()
}

// toCandidate converts n for yqlib. yqlib follows an alias through its
// Alias pointer, which nodes decoded by yqlib itself do not carry (only the
// anchor's name): those are pointed at their anchors for the conversion,
// and an alias with no anchor before it in n is an error here rather than
// a nil dereference inside yqlib.
func toCandidate(n *yaml.Node) (*yqlib.CandidateNode, error) {
	var pointed []*yaml.Node
	defer func() {
		for _, a := range pointed {
			a.Alias = nil
		}
	}()
	var resolved map[*yaml.Node]*yaml.Node
	var dangling *yaml.Node
	manifest.Walk(n, func(c *yaml.Node) {
		if c.Kind != yaml.AliasNode || c.Alias != nil || dangling != nil {
			return
		}
		if resolved == nil {
			resolved = manifest.Aliases(n)
		}
		if a := resolved[c]; a != nil && a.Anchor == c.Value {
			c.Alias = a
			pointed = append(pointed, c)
		} else {
			dangling = c
		}
	})
	if dangling != nil {
		return nil, fmt.Errorf("alias *%s names no anchor before it in this object", dangling.Value)
	}
	cn := &yqlib.CandidateNode{}
	if err := cn.UnmarshalYAML(n, map[string]*yqlib.CandidateNode{}); err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return cn, nil
}

// pair records which node each candidate was converted from; the two trees
// have the same shape, keys included.
func pair(c *yqlib.CandidateNode, n *yaml.Node, back map[*yqlib.CandidateNode]*yaml.Node) {
	back[c] = n
	if n.Kind == yaml.AliasNode || len(c.Content) != len(n.Content) {
		return
	}
	for i := range n.Content {
		pair(c.Content[i], n.Content[i], back)
	}
}

func single(c *yqlib.CandidateNode) *list.List {
	l := list.New()
	l.PushBack(c)
	return l
}

// Delete removes from root every node e selects, as yq's `del(e)` does, and
// returns how many it removed.
func (e *Expr) Delete(root *yaml.Node) (int, error) {
	nodes, err := e.Nodes(root)
	if err != nil {
		return 0, err
	}
	gone := map[*yaml.Node]bool{}
	for _, n := range nodes {
		gone[n] = true
	}
	removed := 0
	manifest.Walk(root, func(p *yaml.Node) {
		switch p.Kind {
		case yaml.MappingNode:
			kept := p.Content[:0]
			for i := 0; i+1 < len(p.Content); i += 2 {
				if gone[p.Content[i]] || gone[p.Content[i+1]] {
					removed++
					continue
				}
				kept = append(kept, p.Content[i], p.Content[i+1])
			}
			p.Content = kept
		case yaml.SequenceNode:
			kept := p.Content[:0]
			for _, c := range p.Content {
				if gone[c] {
					removed++
					continue
				}
				kept = append(kept, c)
			}
			p.Content = kept
		}
	})
	return removed, nil
}
