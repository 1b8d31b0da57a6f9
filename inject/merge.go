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
func merge(dst, frag *yaml.Node, s *shape, g grafter) {
	switch key := s.mergeKey(); {
	case dst.Kind == yaml.MappingNode && frag.Kind == yaml.MappingNode:
		mergeMaps(dst, frag, s, g)
	case keyed(dst, key) && keyed(frag, key):
		mergeList(dst, frag, key, s, g)
	default:
		g.o.GraftOver(dst, frag, g.src)
	}
}

// grafter is the object fragment nodes go into and the file they are from.
type grafter struct {
	o   *manifest.Object
	src *manifest.Source
}

func mergeMaps(dst, frag *yaml.Node, s *shape, g grafter) {
	for i := 0; i+1 < len(frag.Content); i += 2 {
		k, v := frag.Content[i], frag.Content[i+1]
		_, dv := manifest.KeyValue(dst, k.Value)
		if dv == nil {
			dst.Content = append(dst.Content, g.o.Graft(k, g.src), g.o.Graft(v, g.src))
			continue
		}
		merge(dv, v, s.field(k.Value, dv.Kind == yaml.SequenceNode), g)
	}
}

func mergeList(dst, frag *yaml.Node, key string, s *shape, g grafter) {
	for _, item := range frag.Content {
		id := manifest.ScalarAt(item, key)
		var same *yaml.Node
		for _, d := range dst.Content {
			if manifest.ScalarAt(d, key) == id {
				same = d
				break
			}
		}
		switch {
		case same != nil && manifest.Value(same, "image") != nil:
			mergeMaps(same, item, s.item(), g)
			continue
		case same != nil:
			g.o.GraftOver(same, item, g.src)
			continue
		}
		dst.Content = append(dst.Content, g.o.Graft(item, g.src))
	}
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
