package hash

import (
	"go.yaml.in/yaml/v4"
	"sigs.k8s.io/kustomize/api/hasher"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// hashedFields are the top-level fields kustomize's hasher reads (it also
// looks up "metadata/name", as one key that never exists, so the name does
// not count; metadata is passed on anyway so that krender follows kustomize
// if that ever changes).
var hashedFields = map[string]bool{
	"apiVersion": true, "kind": true, "metadata": true, "type": true,
	"data": true, "binaryData": true, "stringData": true,
}

// Sum is kustomize's content hash of a ConfigMap or Secret: the same
// function `configMapGenerator` uses, so names agree with kustomize's byte
// for byte.
//
// kustomize works on kyaml nodes (go.yaml.in/yaml/v3), krender on yaml/v4
// ones. Copying the few fields the hasher reads is about three times cheaper than
// printing the object and parsing it back (see BenchmarkToKyaml).
func Sum(obj *yaml.Node) (string, error) {
	in := &kyaml.Node{Kind: kyaml.MappingNode, Tag: "!!map"}
	seen := map[*yaml.Node]*kyaml.Node{}
	for i := 0; i+1 < len(obj.Content); i += 2 {
		k, v := obj.Content[i], obj.Content[i+1]
		if !hashedFields[k.Value] {
			continue
		}
		if k.Value == "metadata" {
			v = nameOnly(v)
		}
		in.Content = append(in.Content, toKyaml(k, seen), toKyaml(v, seen))
	}
	return (&hasher.Hasher{}).Hash(kyaml.NewRNode(in))
}

func nameOnly(md *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if md.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(md.Content); i += 2 {
		if md.Content[i].Value == "name" {
			out.Content = append(out.Content, md.Content[i], md.Content[i+1])
		}
	}
	return out
}

// toKyaml copies a v4 node tree into kyaml's node type. The two packages
// share the Kind and Style bit values (both descend from go-yaml v3).
// Aliases keep pointing at their copied anchor.
func toKyaml(n *yaml.Node, seen map[*yaml.Node]*kyaml.Node) *kyaml.Node {
	if n == nil {
		return nil
	}
	if c, ok := seen[n]; ok {
		return c
	}
	c := &kyaml.Node{
		Kind:   kyaml.Kind(n.Kind),
		Style:  kyaml.Style(n.Style),
		Tag:    n.Tag,
		Value:  n.Value,
		Anchor: n.Anchor,
		Line:   n.Line,
		Column: n.Column,
	}
	if n.Anchor != "" {
		seen[n] = c
	}
	if n.Alias != nil {
		c.Alias = toKyaml(n.Alias, seen)
	}
	if len(n.Content) > 0 {
		c.Content = make([]*kyaml.Node, len(n.Content))
		for i, ch := range n.Content {
			c.Content[i] = toKyaml(ch, seen)
		}
	}
	return c
}
