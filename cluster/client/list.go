package client

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/pager"

	"github.com/krender/krender/cluster/gc"
	"github.com/krender/krender/render/contenthash"
	"github.com/krender/krender/render/contenthash/refs"
)

// listed is a kind gc lists objects of: its resource and kind.
type listed struct {
	schema.GroupVersionResource
	Kind string
	// Cluster: cluster-scoped, listed whatever the namespace asked.
	Cluster bool
}

func res(group, version, resource, kind string) listed {
	return listed{schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, kind, false}
}

func clusterRes(group, version, resource, kind string) listed {
	l := res(group, version, resource, kind)
	l.Cluster = true
	return l
}

// builtinKinds are every kind whose references the render rewrites (the
// hash stage's built-in table; TestEveryTableKindIsListed holds it) and the
// revisions `kubectl rollout undo` goes back to: ReplicaSets (Deployments,
// Argo Rollouts), ControllerRevisions (StatefulSets, DaemonSets) and Jobs
// (CronJobs).
var builtinKinds = []listed{
	res("", "v1", "pods", "Pod"),
	res("", "v1", "podtemplates", "PodTemplate"),
	res("", "v1", "replicationcontrollers", "ReplicationController"),
	res("", "v1", "serviceaccounts", "ServiceAccount"),
	res("apps", "v1", "deployments", "Deployment"),
	res("apps", "v1", "replicasets", "ReplicaSet"),
	res("apps", "v1", "statefulsets", "StatefulSet"),
	res("apps", "v1", "daemonsets", "DaemonSet"),
	res("apps", "v1", "controllerrevisions", "ControllerRevision"),
	res("batch", "v1", "jobs", "Job"),
	res("batch", "v1", "cronjobs", "CronJob"),
	res("networking.k8s.io", "v1", "ingresses", "Ingress"),
	res("rbac.authorization.k8s.io", "v1", "roles", "Role"),
	clusterRes("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole"),
	clusterRes("storage.k8s.io", "v1", "storageclasses", "StorageClass"),
	clusterRes("", "v1", "persistentvolumes", "PersistentVolume"),
}

// optionalKinds are the table's kinds of add-ons, listed where the
// cluster serves them: Argo Rollouts and Knative Services.
var optionalKinds = []listed{
	res("argoproj.io", "v1alpha1", "rollouts", "Rollout"),
	res("serving.knative.dev", "v1", "services", "Service"),
}

// hashedResources are what krender hashes.
var hashedResources = []listed{
	res("", "v1", "configmaps", refs.ConfigMap),
	res("", "v1", "secrets", refs.Secret),
}

// kinds are the built-in kinds, the optional ones where served, and the
// profile's kinds as discovery finds them (their preferred version).
func (c *Clients) kinds(ctx context.Context, custom []gc.Kind) ([]listed, error) {
	out := slices.Clone(builtinKinds)
	if len(custom) == 0 {
		return c.appendServedOptional(ctx, out)
	}
	lists, err := preferredResources(ctx, c.Discovery)
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, c.apiError("discover", schema.GroupVersionResource{Resource: "API resources"}, "", err)
	}
	want := slices.Clone(custom)
	for _, k := range optionalKinds {
		want = append(want, gc.Kind{Group: k.Group, Kind: k.Kind})
	}
	return appendDiscovered(out, lists, want), nil
}

// appendServedOptional adds to out each optional kind whose group version
// the cluster serves with its resource, asking for that one group version
// only: without custom kinds no full discovery is needed.
func (c *Clients) appendServedOptional(ctx context.Context, out []listed) ([]listed, error) {
	for _, k := range optionalKinds {
		var rl metav1.APIResourceList
		err := c.Discovery.RESTClient().Get().AbsPath("/apis", k.Group, k.Version).Do(ctx).Into(&rl)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil && slices.ContainsFunc(rl.APIResources, func(r metav1.APIResource) bool { return r.Name == k.Resource }) {
			out = append(out, k)
		}
	}
	return out, nil
}

// appendDiscovered adds to out the discovered resources of the wanted
// kinds that out does not already list, by resource or by kind.
func appendDiscovered(out []listed, lists []*metav1.APIResourceList, want []gc.Kind) []listed {
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !wanted(want, gv.Group, r.Kind) {
				continue // a subresource, or a kind no field names from
			}
			k := res(gv.Group, gv.Version, r.Name, r.Kind)
			k.Cluster = !r.Namespaced
			if !slices.ContainsFunc(out, func(x listed) bool {
				return x.GroupResource() == k.GroupResource() || x.Kind == k.Kind && x.Group == k.Group
			}) {
				out = append(out, k)
			}
		}
	}
	return out
}

// preferredResources is discovery's, given up when ctx is done: client-go's
// discovery takes no context.
func preferredResources(ctx context.Context, d discovery.DiscoveryInterface) ([]*metav1.APIResourceList, error) {
	type result struct {
		lists []*metav1.APIResourceList
		err   error
	}
	done := make(chan result, 1)
	go func() {
		l, err := d.ServerPreferredResources()
		done <- result{l, err}
	}()
	select {
	case r := <-done:
		return r.lists, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func wanted(ks []gc.Kind, group, kind string) bool {
	return slices.ContainsFunc(ks, func(k gc.Kind) bool { return k.Kind == kind && (k.Group == "" || k.Group == group) })
}

// each lists r in ns page by page and calls f with every item; only one
// page is held at a time.
func each(ctx context.Context, list pager.ListPageFunc, opts metav1.ListOptions, f func(runtime.Object) error) error {
	p := pager.New(list)
	p.PageSize = 500
	return p.EachListItem(ctx, opts, f)
}

// listReferrers lists k and records every object with what it references.
func (c *Clients) listReferrers(ctx context.Context, k listed, ns string, o gc.Options, snap *gc.Snapshot) error {
	if k.Cluster {
		ns = metav1.NamespaceAll
	}
	ri := c.Dynamic.Resource(k.GroupVersionResource).Namespace(ns)
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) { return ri.List(ctx, opts) }
	err := each(ctx, list, metav1.ListOptions{}, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
		dropAnnotations(u, func(key string) bool { return o.Table.ReadsAnnotation(k.Kind, key) })
		snap.Referrers = append(snap.Referrers, referrer(o.Table, k, u))
		return nil
	})
	if err != nil {
		return c.apiError("list", k.GroupVersionResource, ns, err)
	}
	return nil
}

func referrer(table *refs.Table, k listed, u *unstructured.Unstructured) gc.Referrer {
	r := gc.Referrer{
		Owner:     gc.Owner{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Name: u.GetName(), UID: string(u.GetUID())},
		Namespace: u.GetNamespace(),
		Role:      roleOf(k, u),
	}
	if r.APIVersion == "" { // list items may come without them
		r.APIVersion, r.Kind = k.GroupVersion().String(), k.Kind
	}
	view := u.Object
	if k.Kind == "ControllerRevision" {
		view = gc.RevisionView(u.Object, revisionOf(u))
	}
	r.Refs = gc.References(table, gc.Object(view), r.Namespace)
	return r
}

// roleOf tells desired state from what controllers made: a ReplicaSet,
// ControllerRevision or Job with a controller is a revision, a Pod with
// one is its controller's; every other object, and those three when no
// controller owns them, someone applied.
func roleOf(k listed, u *unstructured.Unstructured) gc.Role {
	if k.Group != "" && k.Group != "apps" && k.Group != "batch" || metav1.GetControllerOfNoCopy(u) == nil {
		return gc.Pinned
	}
	switch k.Kind {
	case "Pod":
		return gc.PodOf
	case "ReplicaSet", "ControllerRevision", "Job":
		return gc.Revision
	}
	return gc.Pinned
}

// dropAnnotations removes, right after listing, every annotation but
// those keep names (the reference table's fields): a client-side
// `kubectl apply` leaves the whole object in
// kubectl.kubernetes.io/last-applied-configuration, and gc holds no more
// of what it lists than it reads.
func dropAnnotations(m metav1.Object, keep func(string) bool) {
	a := m.GetAnnotations()
	if len(a) == 0 {
		return
	}
	for k := range a {
		if !keep(k) {
			delete(a, k)
		}
	}
	if len(a) == 0 {
		a = nil
	}
	m.SetAnnotations(a)
}

// revisionOf is the kind of the workload a ControllerRevision belongs to.
func revisionOf(u *unstructured.Unstructured) string {
	if c := metav1.GetControllerOfNoCopy(u); c != nil && (c.Kind == "DaemonSet" || c.Kind == "StatefulSet") {
		return c.Kind
	}
	return "StatefulSet"
}

// listHashed lists the metadata of the ConfigMaps or Secrets krender
// renamed: the label selects them, and a metadata list never carries a
// Secret's data.
func (c *Clients) listHashed(ctx context.Context, k listed, ns string, snap *gc.Snapshot) error {
	ri := c.Metadata.Resource(k.GroupVersionResource).Namespace(ns)
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) { return ri.List(ctx, opts) }
	err := each(ctx, list, metav1.ListOptions{LabelSelector: contenthash.NameLabel}, func(obj runtime.Object) error {
		m, err := meta.Accessor(obj)
		if err != nil {
			return err
		}
		snap.Hashed = append(snap.Hashed, hashed(k.Kind, m))
		return nil
	})
	if err != nil {
		return c.apiError("list", k.GroupVersionResource, ns, err)
	}
	return nil
}

// hashed is m as gc reads it; its annotations are dropped.
func hashed(kind string, m metav1.Object) *gc.Hashed {
	dropAnnotations(m, func(string) bool { return false })
	h := &gc.Hashed{
		Target:          gc.Target{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName()},
		UID:             string(m.GetUID()),
		ResourceVersion: m.GetResourceVersion(),
		Created:         m.GetCreationTimestamp().Time,
		BaseName:        m.GetLabels()[contenthash.NameLabel],
		Managed:         managedOwners(m.GetManagedFields()),
	}
	for _, o := range m.GetOwnerReferences() {
		h.Owners = append(h.Owners, gc.Owner{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: string(o.UID)})
	}
	return h
}
