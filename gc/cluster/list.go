package cluster

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/pager"

	"github.com/krender/krender/contenthash"
	"github.com/krender/krender/contenthash/refs"
	"github.com/krender/krender/gc"
)

// listed is a kind gc lists objects of: its resource and kind.
type listed struct {
	schema.GroupVersionResource
	Kind string
}

func res(group, version, resource, kind string) listed {
	return listed{schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, kind}
}

// builtinKinds are the workloads that run pods from a template and the
// revisions `kubectl rollout undo` goes back to: ReplicaSets (Deployments,
// Argo Rollouts), ControllerRevisions (StatefulSets, DaemonSets) and Jobs
// (CronJobs). Pods are owners too: a pod of a deleted revision may still
// run, and a bare Pod has no other owner.
var builtinKinds = []listed{
	res("", "v1", "pods", "Pod"),
	res("", "v1", "replicationcontrollers", "ReplicationController"),
	res("apps", "v1", "deployments", "Deployment"),
	res("apps", "v1", "replicasets", "ReplicaSet"),
	res("apps", "v1", "statefulsets", "StatefulSet"),
	res("apps", "v1", "daemonsets", "DaemonSet"),
	res("apps", "v1", "controllerrevisions", "ControllerRevision"),
	res("batch", "v1", "jobs", "Job"),
	res("batch", "v1", "cronjobs", "CronJob"),
}

// rollouts are Argo Rollouts, listed where the cluster serves them.
var rollouts = res("argoproj.io", "v1alpha1", "rollouts", "Rollout")

// hashedResources are what krender hashes.
var hashedResources = []listed{
	res("", "v1", "configmaps", refs.ConfigMap),
	res("", "v1", "secrets", refs.Secret),
}

// kinds are the built-in kinds, Rollouts where served, and the profile's
// kinds as discovery finds them (their preferred version).
func (c *Clients) kinds(custom []gc.Kind) ([]listed, error) {
	out := slices.Clone(builtinKinds)
	if len(custom) == 0 {
		rl, err := c.Discovery.ServerResourcesForGroupVersion(rollouts.GroupVersion().String())
		if err == nil && slices.ContainsFunc(rl.APIResources, func(r metav1.APIResource) bool { return r.Name == rollouts.Resource }) {
			out = append(out, rollouts)
		}
		return out, nil
	}
	lists, err := c.Discovery.ServerPreferredNamespacedResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, c.apiError("discover", schema.GroupVersionResource{Resource: "API resources"}, "", err)
	}
	want := append(slices.Clone(custom), gc.Kind{Group: rollouts.Group, Kind: rollouts.Kind})
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			k := res(gv.Group, gv.Version, r.Name, r.Kind)
			if wanted(want, gv.Group, r.Kind) && !slices.ContainsFunc(out, func(x listed) bool { return x.GroupResource() == k.GroupResource() }) {
				out = append(out, k)
			}
		}
	}
	return out, nil
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
	ri := c.Dynamic.Resource(k.GroupVersionResource).Namespace(ns)
	list := func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) { return ri.List(ctx, opts) }
	err := each(ctx, list, metav1.ListOptions{}, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
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

func hashed(kind string, m metav1.Object) *gc.Hashed {
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
