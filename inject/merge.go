package inject

import (
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/manifest"
)

// merge lays frag over dst the way a Kubernetes user reads a patch: mappings
// merge key by key, lists of named items (containers, env, volumeMounts,
// volumes, ports...) merge item by item on `name`, and anything else in the
// fragment replaces what dst had. Of two items with one name, a container
// takes the fragment's fields one by one; any other item is replaced whole,
// because its fields are often alternatives (an env var's value or
// valueFrom, a volume's source) that must not end up side by side. yq has no
// operator that merges lists by a key, hence Go. Copies of fragment nodes
// are passed to adopt so that their positions keep naming the fragment file.
// dst stays the same pointer.
func merge(dst, frag *yaml.Node, adopt func(*yaml.Node)) {
	switch {
	case dst.Kind == yaml.MappingNode && frag.Kind == yaml.MappingNode:
		mergeMaps(dst, frag, adopt)
	case named(dst) && named(frag):
		mergeNamed(dst, frag, adopt)
	default:
		c := clone(frag)
		*dst = *c
		adopt(dst)
	}
}

func mergeMaps(dst, frag *yaml.Node, adopt func(*yaml.Node)) {
	for i := 0; i+1 < len(frag.Content); i += 2 {
		k, v := frag.Content[i], frag.Content[i+1]
		_, dv := manifest.KeyValue(dst, k.Value)
		if dv == nil {
			ck, cv := clone(k), clone(v)
			adopt(ck)
			adopt(cv)
			dst.Content = append(dst.Content, ck, cv)
			continue
		}
		merge(dv, v, adopt)
	}
}

func mergeNamed(dst, frag *yaml.Node, adopt func(*yaml.Node)) {
	for _, item := range frag.Content {
		name := manifest.ScalarAt(item, "name")
		var same *yaml.Node
		for _, d := range dst.Content {
			if manifest.ScalarAt(d, "name") == name {
				same = d
				break
			}
		}
		switch {
		case same != nil && manifest.Value(same, "image") != nil:
			mergeMaps(same, item, adopt)
			continue
		case same != nil:
			c := clone(item)
			*same = *c
			adopt(same)
			continue
		}
		c := clone(item)
		adopt(c)
		dst.Content = append(dst.Content, c)
	}
}

// named reports whether n is a non-empty list whose items all are mappings
// with a `name`, the shape Kubernetes merges by name.
func named(n *yaml.Node) bool {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return false
	}
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode || manifest.ScalarAt(item, "name") == "" {
			return false
		}
	}
	return true
}
