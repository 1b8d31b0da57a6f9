package namespace

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/ruleid"
)

// StageName marks the nodes this stage makes (manifest.Object.Made).
const StageName = "namespace"

// Stage writes Namespace into every namespaced object without
// metadata.namespace. Notes: say which custom kinds were left alone for
// want of a scope (krender check's notes; render stays quiet).
type Stage struct {
	Namespace string
	Teller    Teller
	Notes     bool
}

// Check refuses a namespace the API server would refuse; from says where
// it was given (the profile's key, or -n).
func Check(ns string, from filepos.Pos) error {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return filepos.Errorf(from, "namespace %q is not a valid namespace name: %s", ns, strings.Join(errs, "; "))
	}
	return nil
}

func (st Stage) Apply(s *manifest.Set) error {
	if st.Namespace == "" {
		return nil
	}
	rendered := renderedCRDs(s.Objects)
	noted := map[schema.GroupKind]bool{}
	for _, o := range s.Objects {
		gk := schema.GroupKind{Group: o.Group(), Kind: o.Kind()}
		st.references(o, gk)
		namespaced, known := st.scope(gk, rendered)
		if !known {
			if st.Notes && o.Namespace() == "" && !noted[gk] && !kubernetesGroup(gk.Group) {
				noted[gk] = true
				s.Note(o, ruleid.NamespaceUnknownScope, filepos.Info, o.Pos(manifest.Value(o.Node, "kind")), fmt.Sprintf(
					"%s %s gets no namespace: nothing tells whether %s is namespaced (no CustomResourceDefinition in the render or --crds); "+
						"write metadata.namespace, or give its CRD with --crds", o.APIVersion(), o.Kind(), gk))
			}
			continue
		}
		if namespaced {
			setMeta(o, st.Namespace)
			st.references(o, gk) // a RoleBinding's subjects follow its new namespace
		}
	}
	return nil
}

// kubernetesGroup: the core group and *.k8s.io, which only Kubernetes
// serves (APIService is built in but has no typed client to read its scope
// from; it is cluster-scoped, so leaving it alone is right).
func kubernetesGroup(g string) bool {
	return g == "" || g == "k8s.io" || strings.HasSuffix(g, ".k8s.io")
}

func (st Stage) scope(gk schema.GroupKind, rendered map[schema.GroupKind]bool) (bool, bool) {
	if ns, ok := Builtin(gk); ok {
		return ns, true
	}
	if ns, ok := rendered[gk]; ok {
		return ns, true
	}
	if st.Teller != nil {
		return st.Teller(gk)
	}
	return false, false
}

// setMeta writes metadata.namespace after metadata.name, unless the
// object names a namespace already.
func setMeta(o *manifest.Object, ns string) {
	if o.Namespace() != "" {
		return
	}
	defer o.MadeEntry(StageName, o.Node, "metadata")
	md := manifest.Value(o.Node, "metadata")
	if md == nil || md.Kind != yaml.MappingNode {
		md = manifest.Ensure(o.Node, "metadata")
	}
	if manifest.Value(md, "namespace") != nil { // namespace: null or ""
		manifest.Put(md, "namespace", manifest.KubeString(ns))
		return
	}
	at := len(md.Content)
	for i := 0; i+1 < len(md.Content); i += 2 {
		if k := md.Content[i].Value; k == "name" || k == "generateName" {
			at = i + 2
		}
	}
	kv := []*yaml.Node{manifest.String("namespace"), manifest.KubeString(ns)}
	md.Content = append(md.Content[:at], append(kv, md.Content[at:]...)...)
}

// references fills the namespace fields that follow an object's own, as
// kustomize's namespace transformer does, where the template left them
// empty: ServiceAccount subjects of (Cluster)RoleBindings (a RoleBinding's
// subjects live in its namespace), an APIService's service, a CRD's
// conversion webhook service.
func (st Stage) references(o *manifest.Object, gk schema.GroupKind) {
	var services []*yaml.Node
	switch gk {
	case schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"},
		schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:
		ns := st.Namespace
		if gk.Kind == "RoleBinding" {
			ns = o.Namespace()
		}
		subjects := manifest.Value(o.Node, "subjects")
		if subjects == nil || subjects.Kind != yaml.SequenceNode || ns == "" {
			return
		}
		for _, sub := range subjects.Content {
			if manifest.ScalarAt(sub, "kind") == "ServiceAccount" && manifest.ScalarAt(sub, "namespace") == "" {
				manifest.Put(sub, "namespace", manifest.KubeString(ns))
				o.MadeEntry(StageName, sub, "namespace")
			}
		}
		return
	case schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}:
		services = append(services, manifest.Lookup(o.Node, "spec", "service"))
	case crdKind:
		services = append(services, manifest.Lookup(o.Node, "spec", "conversion", "webhook", "clientConfig", "service"))
	}
	for _, svc := range services {
		if svc != nil && svc.Kind == yaml.MappingNode && manifest.ScalarAt(svc, "namespace") == "" {
			manifest.Put(svc, "namespace", manifest.KubeString(st.Namespace))
			o.MadeEntry(StageName, svc, "namespace")
		}
	}
}
