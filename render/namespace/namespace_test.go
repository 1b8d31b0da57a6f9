package namespace

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
)

const objects = `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: app
  labels: {a: b}
---
apiVersion: v1
kind: Secret
metadata: {name: pinned, namespace: other}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb}
subjects:
  - {kind: ServiceAccount, name: app}
  - {kind: ServiceAccount, name: far, namespace: far}
  - {kind: Group, name: devs}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: crb}
subjects: [{kind: ServiceAccount, name: app}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget}
  scope: Namespaced
  conversion: {strategy: Webhook, webhook: {clientConfig: {service: {name: conv}}}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
---
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g}
---
apiVersion: example.com/v1
kind: Tenant
metadata: {name: t}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.metrics.example.com}
spec: {service: {name: metrics}}
`

func TestApply(t *testing.T) {
	objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte(objects)))
	if err != nil {
		t.Fatal(err)
	}
	s := &manifest.Set{Objects: objs}
	teller := func(gk schema.GroupKind) (bool, bool) {
		if gk.Kind == "Tenant" {
			return false, true // a cluster-scoped kind from --crds
		}
		return false, false
	}
	if err := (Stage{Namespace: "shop", Teller: teller, Notes: true}).Apply(s); err != nil {
		t.Fatal(err)
	}
	ns := func(i int, path ...string) string { return manifest.ScalarAt(objs[i].Node, path...) }
	for _, c := range []struct {
		obj  int
		path []string
		want string
	}{
		{0, []string{"metadata", "namespace"}, "shop"},  // built-in, namespaced
		{1, []string{"metadata", "namespace"}, "shop"},  // autoscaling/v2 too
		{2, []string{"metadata", "namespace"}, "other"}, // never overwritten
		{3, []string{"metadata", "namespace"}, ""},      // Namespace is cluster-scoped
		{3, []string{"metadata", "name"}, "shop"},       // and keeps its name
		{4, []string{"metadata", "namespace"}, ""},      // ClusterRole
		{5, []string{"metadata", "namespace"}, "shop"},  // RoleBinding
		{7, []string{"metadata", "namespace"}, ""},      // CRD
		{7, []string{"spec", "conversion", "webhook", "clientConfig", "service", "namespace"}, "shop"},
		{8, []string{"metadata", "namespace"}, "shop"}, // scope from the CRD in the render
		{9, []string{"metadata", "namespace"}, ""},     // nothing tells
		{10, []string{"metadata", "namespace"}, ""},    // the teller says cluster
		{11, []string{"metadata", "namespace"}, ""},    // APIService
		{11, []string{"spec", "service", "namespace"}, "shop"},
	} {
		if got := ns(c.obj, c.path...); got != c.want {
			t.Errorf("%s %s: %s = %q, want %q", objs[c.obj].Kind(), objs[c.obj].Name(), strings.Join(c.path, "."), got, c.want)
		}
	}
	subjects := manifest.Value(objs[5].Node, "subjects").Content
	if got := []string{manifest.ScalarAt(subjects[0], "namespace"), manifest.ScalarAt(subjects[1], "namespace"), manifest.ScalarAt(subjects[2], "namespace")}; strings.Join(got, ",") != "shop,far," {
		t.Errorf("RoleBinding subjects' namespaces: %q", got)
	}
	if got := manifest.ScalarAt(manifest.Value(objs[6].Node, "subjects").Content[0], "namespace"); got != "shop" {
		t.Errorf("ClusterRoleBinding subject namespace: %q", got)
	}
	// The namespace goes right after the name.
	if md := manifest.Value(objs[1].Node, "metadata"); md.Content[2].Value != "namespace" {
		t.Errorf("metadata keys: %v", md.Content)
	}
	if len(s.Notes) != 1 || s.Notes[0].Severity != filepos.Info || !strings.Contains(s.Notes[0].Msg, "Gadget.example.com") || s.Notes[0].Pos.Line != 50 {
		t.Errorf("notes: %+v", s.Notes)
	}
}

func TestNoNamespaceChangesNothing(t *testing.T) {
	objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte(objects)))
	if err != nil {
		t.Fatal(err)
	}
	s := &manifest.Set{Objects: objs}
	if err := (Stage{Notes: true}).Apply(s); err != nil {
		t.Fatal(err)
	}
	if objs[0].Namespace() != "" || len(s.Notes) != 0 {
		t.Errorf("changed without a namespace: %q, %v", objs[0].Namespace(), s.Notes)
	}
}

func TestCheck(t *testing.T) {
	if err := Check("shop-1", filepos.Pos{File: "-n"}); err != nil {
		t.Error(err)
	}
	if err := Check("Shop_1", filepos.Pos{File: "p.yaml", Line: 2, Col: 12}); err == nil || !strings.HasPrefix(err.Error(), `p.yaml:2:12: namespace "Shop_1" is not a valid namespace name`) {
		t.Errorf("got %v", err)
	}
}

// TestBuiltinKnowsCommonKinds guards the lookup itself (keys, groups).
func TestBuiltinKnowsCommonKinds(t *testing.T) {
	for gk, want := range map[schema.GroupKind]bool{
		{Kind: "ConfigMap"}: true, {Kind: "PersistentVolume"}: false, {Group: "apps", Kind: "Deployment"}: true,
		{Group: "networking.k8s.io", Kind: "IngressClass"}: false, {Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: false,
	} {
		if got, ok := Builtin(gk); !ok || got != want {
			t.Errorf("%s: %v %v", gk, got, ok)
		}
	}
	if _, ok := Builtin(schema.GroupKind{Group: "example.com", Kind: "Widget"}); ok {
		t.Error("a custom kind is not built in")
	}
}
