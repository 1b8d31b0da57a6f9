package manifest

import (
	"strings"

	"go.yaml.in/yaml/v4"
)

// List is a `kind: List` (or `ConfigMapList`, `DeploymentList`...) document,
// the shape `kubectl get -o yaml` prints and kubectl apply accepts. Its
// items are objects of their own in every stage — substituted, injected,
// split, hashed, checked — and the encoder puts them back into the wrapper,
// so the output keeps the author's List. A List is never changed after
// parsing: tenants' copies of its items all point at it.
type List struct {
	node    *yaml.Node // the wrapper as written
	items   *yaml.Node // its items sequence
	Leading string     // comments and separators before the document
}

// asList returns the List n is, or nil. A list has the shape of the API's
// list types: a kind ending in List, a sequence of mappings under items,
// and nothing else but apiVersion and metadata. An empty list stays an
// ordinary document: it has no object to carry it.
func asList(n *yaml.Node, leading string) *List {
	if !strings.HasSuffix(ScalarAt(n, "kind"), "List") {
		return nil
	}
	var items *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "apiVersion", "kind", "metadata":
		case "items":
			items = n.Content[i+1]
		default:
			return nil
		}
	}
	if items == nil || items.Kind != yaml.SequenceNode || len(items.Content) == 0 {
		return nil
	}
	for _, it := range items.Content {
		if it.Kind != yaml.MappingNode {
			return nil
		}
	}
	return &List{node: n, items: items, Leading: leading}
}

// wrap is the list as one document holding the given items, in their order.
func (l *List) wrap(items []*Object) *Object {
	seq := *l.items
	seq.Content = make([]*yaml.Node, len(items))
	for i, o := range items {
		seq.Content[i] = o.Node
	}
	doc := *l.node
	doc.Content = append([]*yaml.Node(nil), l.node.Content...)
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "items" {
			doc.Content[i+1] = &seq
		}
	}
	first, last := items[0], items[len(items)-1]
	return &Object{Node: &doc, Leading: l.Leading, Src: first.Src, Doc: first.Doc, Trailer: last.Trailer}
}
