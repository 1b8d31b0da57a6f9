package yqexpr

import (
	"strconv"
	"sync"

	"go.yaml.in/yaml/v4"
)

// A planned expression reads only its view, so its outcome on a view is a
// function of the view's text: every tenant of a fleet shows a selector or
// a deletion the same few views, and yqlib's conversion and evaluation are
// a large part of a render. Outcomes are remembered per expression, keyed
// by everything of the view's nodes (positions and comments included, so
// that no two views that differ in any field share one), with the results
// kept as child-index addresses in the view and found again in the next.
type outcomes struct {
	mu sync.RWMutex
	m  map[string]remembered // by viewKey
}

// outcomesLimit bounds each expression's memo.
const outcomesLimit = 4096

type remembered struct {
	any   bool
	addrs [][]int
}

// runViewMemo is runView, remembered.
func (e *Expr) runViewMemo(view *yaml.Node, copies map[*yaml.Node]*yaml.Node) (outcome, error) {
	key := viewKey(make([]byte, 0, 256), view)
	e.memo.mu.RLock()
	r, ok := e.memo.m[string(key)]
	e.memo.mu.RUnlock()
	if ok {
		return r.outcome(view, copies), nil
	}
	out, err := e.runView(view, copies)
	if err != nil {
		return out, err
	}
	if r, ok := remember(view, copies, out); ok {
		e.memo.mu.Lock()
		if e.memo.m == nil {
			e.memo.m = map[string]remembered{}
		}
		if len(e.memo.m) < outcomesLimit {
			e.memo.m[string(key)] = r
		}
		e.memo.mu.Unlock()
	}
	return out, nil
}

// viewKey writes every field of every node of n, lengths first, so that two
// views have one key only when they are the same tree.
func viewKey(b []byte, n *yaml.Node) []byte {
	for _, s := range [...]string{n.Tag, n.Value, n.Anchor, n.HeadComment, n.LineComment, n.FootComment} {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	for _, v := range [...]int{int(n.Kind), int(n.Style), n.Line, n.Column, len(n.Content)} {
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, ',')
	}
	for _, c := range n.Content {
		b = viewKey(b, c)
	}
	return b
}

// remember turns out's nodes (document nodes, mapped back from the view)
// into addresses in view; ok is false when one is not found there.
func remember(view *yaml.Node, copies map[*yaml.Node]*yaml.Node, out outcome) (remembered, bool) {
	r := remembered{any: out.any}
	if len(out.nodes) == 0 {
		return r, true
	}
	at := map[*yaml.Node][]int{}
	var walk func(n *yaml.Node, addr []int)
	walk = func(n *yaml.Node, addr []int) {
		doc := original(n, copies)
		if _, ok := at[doc]; !ok {
			at[doc] = addr
		}
		for i, c := range n.Content {
			walk(c, append(addr[:len(addr):len(addr)], i))
		}
	}
	walk(view, nil)
	for _, n := range out.nodes {
		addr, ok := at[n]
		if !ok {
			return remembered{}, false
		}
		r.addrs = append(r.addrs, addr)
	}
	return r, true
}

// outcome finds the remembered results again in view, a tree of the same
// shape, and maps them back to its document.
func (r remembered) outcome(view *yaml.Node, copies map[*yaml.Node]*yaml.Node) outcome {
	out := outcome{any: r.any}
	for _, addr := range r.addrs {
		n := view
		for _, i := range addr {
			n = n.Content[i]
		}
		out.nodes = append(out.nodes, original(n, copies))
	}
	return out
}
