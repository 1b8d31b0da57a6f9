package inject

import (
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

// merge lays frag over dst as a strategic merge patch would: mappings merge
// key by key, lists item by item on the field's patchMergeKey in the
// k8s.io/api type s (volumeMounts on mountPath, ports on containerPort, env
// and volumes on name), so a fragment's mount at a path the container
// already mounts replaces it rather than adding a second one the API server
// rejects. Where s is unknown (custom resources), lists of named items merge
// on name. Lists without a key, and anything else, replace what dst had. Of
// two items with one key, a container takes the fragment's fields one by
// one; any other item is replaced whole, because its fields are often
// alternatives (an env var's value or valueFrom, a volume's source) that
// must not end up side by side. yq has no operator that merges lists by a
// key, hence Go. Fragment nodes go in as copies the object grafts (g), so
// their positions keep naming the fragment file. dst stays the same pointer.
// It reports whether dst now holds another value (see same): a fragment
// whose every field the target already has changes nothing.
func merge(dst, frag *yaml.Node, s *shape, g grafter) bool {
	switch key := s.mergeKey(); {
	case dst.Kind == yaml.MappingNode && frag.Kind == yaml.MappingNode:
		return mergeMaps(dst, frag, s, g)
	case keyed(dst, key) && keyed(frag, key):
		return mergeList(dst, frag, key, s, g)
	}
	return graftOver(dst, frag, g)
}

// graftOver puts a copy of frag in dst's place, and reports whether that
// changed dst's value.
func graftOver(dst, frag *yaml.Node, g grafter) bool {
	changed := !same(dst, frag)
	g.o.GraftOver(dst, frag, g.src)
	return changed
}

// grafter is the object fragment nodes go into and the file they are from.
type grafter struct {
	o   *manifest.Object
	src *manifest.Source
}

func mergeMaps(dst, frag *yaml.Node, s *shape, g grafter) bool {
	changed := false
	for i := 0; i+1 < len(frag.Content); i += 2 {
		k, v := frag.Content[i], frag.Content[i+1]
		_, dv := manifest.KeyValue(dst, k.Value)
		if dv == nil {
			dst.Content = append(dst.Content, g.o.Graft(k, g.src), g.o.Graft(v, g.src))
			changed = true
			continue
		}
		changed = merge(dv, v, s.field(k.Value, dv.Kind == yaml.SequenceNode), g) || changed
	}
	return changed
}

func mergeList(dst, frag *yaml.Node, key string, s *shape, g grafter) bool {
	changed := false
	for _, item := range frag.Content {
		id := manifest.ScalarAt(item, key)
		var match *yaml.Node
		for _, d := range dst.Content {
			if manifest.ScalarAt(d, key) == id {
				match = d
				break
			}
		}
		switch {
		case match != nil && manifest.Value(match, "image") != nil:
			changed = mergeMaps(match, item, s.item(), g) || changed
			continue
		case match != nil:
			changed = graftOver(match, item, g) || changed
			continue
		}
		dst.Content = append(dst.Content, g.o.Graft(item, g.src))
		changed = true
	}
	return changed
}

// keyed reports whether n is a non-empty list whose items all are mappings
// with a scalar key, the shape Kubernetes merges by that key.
func keyed(n *yaml.Node, key string) bool {
	if key == "" || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return false
	}
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode || manifest.ScalarAt(item, key) == "" {
			return false
		}
	}
	return true
}

// same reports whether a and b hold the same value as Kubernetes reads it:
// scalars of one resolved tag and text (every null alike), mappings with
// the same keys whatever their order, lists item by item. Comments, quoting
// and positions do not count. An alias is the same only as another whose
// anchor holds the same value; one that points nowhere is never the same.
func same(a, b *yaml.Node) bool {
	if a.Kind == yaml.AliasNode || b.Kind == yaml.AliasNode {
		return a.Kind == b.Kind && a.Alias != nil && b.Alias != nil && same(a.Alias, b.Alias)
	}
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		t := a.ShortTag()
		return t == b.ShortTag() && (t == "!!null" || a.Value == b.Value)
	case yaml.MappingNode:
		return sameMaps(a, b)
	}
	for i := range a.Content {
		if !same(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// sameMaps is same for two mappings of as many keys: each key of a is in b
// with the same value. Large mappings (a ConfigMap's data) are indexed, so
// that the comparison stays linear.
func sameMaps(a, b *yaml.Node) bool {
	find := func(k *yaml.Node) *yaml.Node {
		for j := 0; j+1 < len(b.Content); j += 2 {
			if same(k, b.Content[j]) {
				return b.Content[j+1]
			}
		}
		return nil
	}
	if len(b.Content) > 32 {
		index := make(map[string]*yaml.Node, len(b.Content)/2)
		for j := 0; j+1 < len(b.Content); j += 2 {
			if k := b.Content[j]; k.Kind == yaml.ScalarNode {
				index[scalarKey(k)] = b.Content[j+1]
			}
		}
		linear := find
		find = func(k *yaml.Node) *yaml.Node {
			if k.Kind == yaml.ScalarNode {
				return index[scalarKey(k)]
			}
			return linear(k)
		}
	}
	for i := 0; i+1 < len(a.Content); i += 2 {
		if v := find(a.Content[i]); v == nil || !same(a.Content[i+1], v) {
			return false
		}
	}
	return true
}

// scalarKey is what same compares of a scalar, as one string.
func scalarKey(n *yaml.Node) string {
	if t := n.ShortTag(); t != "!!null" {
		return t + "\x00" + n.Value
	}
	return "!!null"
}
