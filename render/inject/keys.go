package inject

import (
	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/manifest"
)

// shape is what the k8s.io/api types say about a node (kubeapi's tables,
// read as a strategic merge patch reads the types): a mapping's type, or a
// list's item type together with the list's merge key ("" for lists
// Kubernetes replaces). A nil shape is a node of unknown type, where lists
// of named items merge on `name`.
type shape struct{ k kubeapi.Shape }

// containerShape is the shape of a `container:` target; custom resources
// that embed containers (Argo Rollouts) use corev1.Container too.
var containerShape = &shape{kubeapi.ContainerShape()}

// field is the shape of the value of key name in a mapping of shape s. A
// field the type does not have is of unknown shape.
func (s *shape) field(name string, list bool) *shape {
	if s == nil {
		return nil
	}
	f, ok := s.k.Field(name, list)
	if !ok {
		return nil
	}
	return &shape{f}
}

// item is the shape of an item of a list of shape s.
func (s *shape) item() *shape {
	if s == nil {
		return nil
	}
	return &shape{s.k.Item()}
}

// mergeKey is the key the items of a list of shape s merge on.
func (s *shape) mergeKey() string {
	if s == nil {
		return "name"
	}
	return s.k.MergeKey()
}

// shapeAt is the shape of target, a node of o found by an `into:` path: the
// type of o's kind followed along the keys from the root to target. Nil for
// kinds whose fields krender does not check (custom resources among them)
// and nodes off the tree.
func shapeAt(o *manifest.Object, target *yaml.Node) *shape {
	root, ok := kubeapi.KindShape(o.APIVersion(), o.Kind())
	if !ok {
		return nil
	}
	path := pathTo(o.Node, target)
	if path == nil {
		return nil
	}
	s := &shape{root}
	for i := 0; i+1 < len(path); i++ {
		parent, child := path[i], path[i+1]
		if parent.Kind == yaml.SequenceNode {
			s = s.item()
			continue
		}
		for j := 0; j+1 < len(parent.Content); j += 2 {
			if parent.Content[j+1] == child {
				s = s.field(parent.Content[j].Value, child.Kind == yaml.SequenceNode)
				break
			}
		}
	}
	return s
}

// pathTo is the chain of nodes from n down to target (both included), going
// through mapping values and list items only; nil if target is not there.
func pathTo(n, target *yaml.Node) []*yaml.Node {
	if n == target {
		return []*yaml.Node{n}
	}
	first, step := 0, 1 // list items
	switch n.Kind {
	case yaml.MappingNode:
		first, step = 1, 2 // values
	case yaml.SequenceNode:
	default:
		return nil
	}
	for i := first; i < len(n.Content); i += step {
		if p := pathTo(n.Content[i], target); p != nil {
			return append([]*yaml.Node{n}, p...)
		}
	}
	return nil
}
