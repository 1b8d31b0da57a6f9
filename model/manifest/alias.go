package manifest

import "go.yaml.in/yaml/v4"

// Aliases maps each alias node under root to the node its anchor names.
// Nodes that come through yqlib's decoder carry only the anchor's name in an
// alias (Alias is nil), so a stage that reads through aliases resolves them
// here: an alias names the latest anchor before it in document order. An
// anchor counts once its node is complete, so an alias inside the node it
// names (a cycle) stays unresolved.
func Aliases(root *yaml.Node) map[*yaml.Node]*yaml.Node {
	anchors := map[string]*yaml.Node{}
	out := map[*yaml.Node]*yaml.Node{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		if n.Kind == yaml.AliasNode {
			if n.Alias != nil {
				out[n] = n.Alias
			} else if a, ok := anchors[n.Value]; ok {
				out[n] = a
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
		if n.Anchor != "" {
			anchors[n.Anchor] = n
		}
	}
	walk(root)
	return out
}
