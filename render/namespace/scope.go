// Package namespace writes the profile's namespace (or -n) into the
// objects that name none, as kustomize's namespace: does: namespaced kinds
// only, judged by the API's own scope data, with the references that
// follow a namespace (RoleBinding subjects, APIService and CRD webhook
// services). It never changes a namespace a template wrote.
package namespace

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/model/manifest"
)

func key(gk schema.GroupKind) string { return gk.String() }

// Builtin reports whether a built-in kind is namespaced; known is false
// for kinds Kubernetes does not serve itself (custom resources).
func Builtin(gk schema.GroupKind) (namespaced, known bool) {
	namespaced, known = builtinScope[key(gk)]
	return namespaced, known
}

// Teller answers for custom kinds: CRD files given to krender check.
type Teller func(schema.GroupKind) (namespaced, known bool)

// crdKind is the kind of CustomResourceDefinition objects.
var crdKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// renderedCRDs are the scopes the CRDs in a render declare.
func renderedCRDs(objs []*manifest.Object) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, o := range objs {
		group, kind, ok := o.DefinedKind()
		if !ok {
			continue
		}
		gk := schema.GroupKind{Group: group, Kind: kind}
		switch manifest.ScalarAt(o.Node, "spec", "scope") {
		case "Namespaced":
			out[gk] = true
		case "Cluster":
			out[gk] = false
		}
	}
	return out
}

// CRDTeller answers from CRD files (--crds, the profile's check.crds), so
// that render and check write the same namespaces.
func CRDTeller(crds []*manifest.Object) Teller {
	known := renderedCRDs(crds)
	if len(known) == 0 {
		return nil
	}
	return func(gk schema.GroupKind) (bool, bool) {
		ns, ok := known[gk]
		return ns, ok
	}
}
