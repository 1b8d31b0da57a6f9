package validator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	kjson "sigs.k8s.io/json"
	k8syaml "sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install" // each group's defaults and conversions
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	"k8s.io/kubernetes/pkg/capabilities"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"

	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/lint/verdict"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
)

// strategy is what the API server's registry does with one kind: the
// create and update strategies of k8s.io/kubernetes/pkg/registry, and
// where the kind keeps what its controller rolls out.
type strategy struct {
	rest.RESTCreateUpdateStrategy
	template func(runtime.Object) any // the pod template (a pointer into the object); nil: none
}

// The API server's pod validation refuses privileged containers unless it
// runs with --allow-privileged=true, as kubeadm, kind and the managed
// clusters run it: judged so, a DaemonSet of a node agent is no refusal.
func init() { capabilities.Setup(true, 0) }

var strategies = map[schema.GroupKind]strategy{
	{Group: "apps", Kind: "Deployment"}:  {deployment.Strategy, func(o runtime.Object) any { return &o.(*apps.Deployment).Spec.Template }},
	{Group: "apps", Kind: "StatefulSet"}: {statefulset.Strategy, func(o runtime.Object) any { return &o.(*apps.StatefulSet).Spec.Template }},
	{Group: "apps", Kind: "DaemonSet"}:   {daemonset.Strategy, func(o runtime.Object) any { return &o.(*apps.DaemonSet).Spec.Template }},
	{Group: "apps", Kind: "ReplicaSet"}:  {replicaset.Strategy, func(o runtime.Object) any { return &o.(*apps.ReplicaSet).Spec.Template }},
	{Group: "batch", Kind: "Job"}:        {job.Strategy, func(o runtime.Object) any { return &o.(*batch.Job).Spec.Template }},
	{Group: "batch", Kind: "CronJob"}:    {cronjob.Strategy, func(o runtime.Object) any { return &o.(*batch.CronJob).Spec.JobTemplate }},
	{Kind: "Pod"}:                        {pod.Strategy, func(o runtime.Object) any { return &o.(*api.Pod).Spec }},
	{Kind: "ConfigMap"}:                  {configmap.Strategy, nil},
	{Kind: "Secret"}:                     {secret.Strategy, nil},
	{Kind: "Service"}:                    {service.Strategy, nil},
	{Kind: "PersistentVolumeClaim"}:      {persistentvolumeclaim.Strategy, nil},
	{Kind: "PersistentVolume"}:           {persistentvolume.Strategy, nil},
	{Kind: "ReplicationController"}: {replicationcontroller.Strategy, func(o runtime.Object) any {
		return o.(*api.ReplicationController).Spec.Template
	}},
	{Kind: "Namespace"}:     {namespace.Strategy, nil},
	{Kind: "ResourceQuota"}: {resourcequota.Strategy, nil},
	{Kind: "LimitRange"}:    {limitrange.Strategy, nil},
	// A binding's roleRef, a StorageClass's provisioner and parameters, a
	// PriorityClass's value, an IngressClass's controller, a CSIDriver's
	// attachRequired: immutable, and kubectl apply fails on them.
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        {rolebinding.Strategy, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: {clusterrolebinding.Strategy, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               {role.Strategy, nil},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        {clusterrole.Strategy, nil},
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                  {storageclass.Strategy, nil},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                     {csidriver.Strategy, nil},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:              {priorityclass.Strategy, nil},
	// The rest of what a chart commonly ships: refused where the API
	// server validates (an Ingress path with no pathType, a budget with
	// both minAvailable and maxUnavailable, a webhook with no sideEffects).
	{Group: "networking.k8s.io", Kind: "Ingress"}:                                   {ingress.Strategy, nil},
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                              {ingressclass.Strategy, nil},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                             {networkpolicy.Strategy, nil},
	{Group: "policy", Kind: "PodDisruptionBudget"}:                                  {poddisruptionbudget.Strategy, nil},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                         {horizontalpodautoscaler.Strategy, nil},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: {validatingwebhookconfiguration.Strategy, nil},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:   {mutatingwebhookconfiguration.Strategy, nil},
}

// Update judges new applied over old as the API server does: each is
// decoded into its versioned type, defaulted (SetObjectDefaults_*) and
// converted to the internal type, old as its create stored it, then new
// through the registry's update (rest.BeforeUpdate: PrepareForUpdate and
// the kind's Validate*Update). The pod templates are compared as stored.
// new is read as the API server reads what `kubectl apply` sends, with
// unknown fields refused (kubectl's default --validate=strict): a field it
// does not decode into stops the update there (patched).
//
// An Argo Rollout is a custom resource: the API server stores it as
// written (its CRD defaults nothing in the template). Its controller finds
// the ReplicaSet of its template by the template's hash, else by
// comparing the template defaulted as the API server defaults a
// PodTemplate (SetObjectDefaults_PodTemplate) with each ReplicaSet's,
// which the API server defaulted when it stored the ReplicaSet
// (replicaset.FindNewReplicaSet): so each side's spec.template is decoded
// into a core/v1 PodTemplateSpec, defaulted so, and the two compared
// semantically (1Gi equals 1024Mi). Only Template is said of a Rollout;
// its CRD's rules, if given, judge the rest (crd.Catalog.Update).
func (APIServer) Update(old, new *manifest.Object) (verdict.Update, error) {
	if gv, err := schema.ParseGroupVersion(new.APIVersion()); err == nil && gv.WithKind(new.Kind()).GroupKind() == rollout {
		return rolloutUpdate(old, new)
	}
	gvk, st, ok := strategyOf(new)
	if !ok { // unjudged, but kubectl must read it to send it
		_, err := sent(new)
		return verdict.Update{Refused: notSent(err)}, nil
	}
	ns := namespaceOf(new, st)
	ctx := request(ns, gvk, "update")
	stored, err := internal(old, gvk, false)
	if unapplied(err) {
		// The cluster cannot hold the base as written: the head's apply
		// creates the object.
		refused, err := APIServer{}.Create(new)
		return verdict.Update{Refused: refused}, err
	}
	if err != nil {
		return verdict.Update{}, err
	}
	applied, refused, err := patched(old, new, gvk)
	if err != nil || refused != nil {
		// The API server stops at the decoding: nothing is validated, and
		// the template is compared as written.
		return verdict.Update{Refused: refused}, err
	}
	asCreated(ns, stored, applied)
	keepPullPolicies(old, new, podSpecOf(st, stored), podSpecOf(st, applied))
	st.PrepareForCreate(ctx, stored)
	st.Canonicalize(stored)
	// What the server wrote into the stored object (a Job's selector and
	// pod labels) stays under a client-side apply that never named it.
	st.PrepareForCreate(ctx, applied)
	// The Service registry keeps what it allocated, or the client once
	// set, where the update leaves it empty (see patchAllocatedValues).
	var kept map[string]string
	if svc, ok := applied.(*api.Service); ok {
		old := stored.(*api.Service)
		normalizeClusterIPs(old, nil)
		written := allocated(old)
		allocateHealthCheckNodePort(old) // as its create did
		before := allocated(svc)
		patchAllocatedValues(svc, old)
		kept = keptValues(before, allocated(svc), written)
		normalizeClusterIPs(svc, old)
		allocateHealthCheckNodePort(svc) // what the update needs anew
	}
	u := verdict.Update{Known: true, Kept: kept}
	if err := rest.BeforeUpdate(st, ctx, applied, stored); err != nil {
		u.Refused = problems(err)
	}
	if st.template != nil {
		u.Template = !apiequality.Semantic.DeepEqual(st.template(stored), st.template(applied))
	}
	if u.Template { // stored and applied are not written after this
		if u.Stored, err = storedAt(stored, applied, gvk.GroupVersion()); err != nil {
			return verdict.Update{}, err
		}
	}
	return u, nil
}

// Create judges o created as `kubectl apply` creates an object it does not
// find: the request body decoded as the API server's JSON decoder does,
// unknown fields refused (kubectl's default --validate=strict), defaulted,
// converted, then the registry's create (rest.BeforeCreate: PrepareForCreate,
// the kind's Validate, the object meta's). Kinds without a registry
// strategy here are accepted unjudged, unless kubectl cannot read them.
func (APIServer) Create(o *manifest.Object) ([]verdict.Problem, error) {
	gvk, st, ok := strategyOf(o)
	if !ok { // unjudged, but kubectl must read it to send it
		_, err := sent(o)
		return notSent(err), nil
	}
	versioned, derr, err := decoded(o, gvk)
	if refused := notSent(err); refused != nil {
		return refused, nil
	}
	if err != nil {
		return nil, err
	}
	if derr != nil { // as the create handler says it (transformDecodeError)
		return []verdict.Problem{{Kind: verdict.Invalid, Msg: fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, derr)}}, nil
	}
	obj, err := defaulted(o, versioned, gvk)
	if err != nil {
		return nil, err
	}
	if svc, ok := obj.(*api.Service); ok { // REST.beginCreate, before validation
		normalizeClusterIPs(svc, nil)
		allocateHealthCheckNodePort(svc)
	}
	ns := namespaceOf(o, st)
	asCreated(ns, obj)
	obj.(metav1.Object).SetResourceVersion("") // what a create request carries
	if err := rest.BeforeCreate(st, request(ns, gvk, "create"), obj); err != nil {
		return problems(err), nil
	}
	return nil, nil
}

// strategyOf is o's kind and its registry's strategy; false for a kind
// judged by none here.
func strategyOf(o *manifest.Object) (schema.GroupVersionKind, strategy, bool) {
	gv, err := schema.ParseGroupVersion(o.APIVersion())
	if err != nil {
		return schema.GroupVersionKind{}, strategy{}, false
	}
	gvk := gv.WithKind(o.Kind())
	st, ok := strategies[gvk.GroupKind()]
	return gvk, st, ok && legacyscheme.Scheme.Recognizes(gvk)
}

// request is the context the API server's handlers give a strategy: the
// namespace, and the request's group and version, which its declarative
// validation reads (without them it logs an error and validates nothing).
func request(ns string, gvk schema.GroupVersionKind, verb string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: gvk.Group, APIVersion: gvk.Version, Namespace: ns})
}

// decoded is o decoded into its versioned type as the API server's strict
// JSON decoder decodes a request body; derr is its refusal (an unknown or
// duplicate field, a value of the wrong type).
func decoded(o *manifest.Object, gvk schema.GroupVersionKind) (versioned runtime.Object, derr, err error) {
	js, err := sent(o)
	if err != nil {
		return nil, nil, err
	}
	if versioned, err = legacyscheme.Scheme.New(gvk); err != nil {
		return nil, nil, err
	}
	strict, derr := kjson.UnmarshalStrict(js, versioned)
	if derr == nil && len(strict) > 0 {
		derr = runtime.NewStrictDecodingError(strict)
	}
	return versioned, derr, nil
}

// keepPullPolicies gives each container of ap (the applied pod spec) the
// imagePullPolicy sp (the stored one) holds where neither side writes one:
// the one default of a pod spec that another field decides (Always for a
// :latest image), which the API server wrote into the stored object at its
// create. kubectl's patch carries only what the sides write, and
// defaulting fills only what is empty, so the cluster keeps it whatever
// the head's image: a bare Pod's new image is accepted, not refused for a
// pull policy it never changes.
func keepPullPolicies(old, new *manifest.Object, sp, ap *api.PodSpec) {
	if sp == nil || ap == nil {
		return
	}
	written := func(o *manifest.Object, list, name string) bool {
		l := manifest.Value(workload.PodSpec(o), list)
		if l == nil {
			return false
		}
		for _, c := range l.Content {
			if manifest.ScalarAt(c, "name") == name && manifest.Value(c, "imagePullPolicy") != nil {
				return true
			}
		}
		return false
	}
	for _, l := range []struct {
		name     string
		from, to []api.Container
	}{{"initContainers", sp.InitContainers, ap.InitContainers}, {"containers", sp.Containers, ap.Containers}} {
		for i := range l.to {
			c := &l.to[i]
			j := slices.IndexFunc(l.from, func(s api.Container) bool { return s.Name == c.Name })
			if j >= 0 && !written(old, l.name, c.Name) && !written(new, l.name, c.Name) {
				c.ImagePullPolicy = l.from[j].ImagePullPolicy
			}
		}
	}
}

// podSpecOf is the pod spec in o's pod template (st.template), or nil.
func podSpecOf(st strategy, o runtime.Object) *api.PodSpec {
	if st.template == nil {
		return nil
	}
	switch t := st.template(o).(type) {
	case *api.PodSpec:
		return t
	case *api.PodTemplateSpec:
		if t != nil { // a ReplicationController's may be missing
			return &t.Spec
		}
	case *batch.JobTemplateSpec:
		return &t.Spec.Template.Spec
	}
	return nil
}

// namespaceOf is the namespace o is stored in: a manifest that names none
// goes to kubectl's (the context's, or -n); the API server requires one of
// what it stores, not of the manifest, and which one judges nothing here.
// None for a cluster-scoped kind.
func namespaceOf(o *manifest.Object, st strategy) string {
	switch ns := o.Namespace(); {
	case !st.NamespaceScoped():
		return ""
	case ns == "":
		return metav1.NamespaceDefault
	default:
		return ns
	}
}

// asCreated gives both objects what the API server sets on what it
// creates, and their namespace.
func asCreated(ns string, objs ...runtime.Object) {
	created := metav1.Now()
	for _, o := range objs {
		m := o.(metav1.Object)
		m.SetUID(types.UID("00000000-0000-0000-0000-000000000001"))
		m.SetCreationTimestamp(created)
		m.SetResourceVersion("1")
		m.SetNamespace(ns)
	}
}

// rollout is Argo Rollouts' workload.
var rollout = schema.GroupKind{Group: "argoproj.io", Kind: "Rollout"}

// rolloutUpdate says whether a Rollout's pod template differs as its
// controller compares it; not Known where a side's template does not
// decode into a PodTemplateSpec (then it is compared as written).
func rolloutUpdate(old, new *manifest.Object) (verdict.Update, error) {
	a, ok := rolloutTemplate(old)
	if !ok {
		return verdict.Update{}, nil
	}
	b, ok := rolloutTemplate(new)
	if !ok {
		return verdict.Update{}, nil
	}
	u := verdict.Update{Known: true, Template: !apiequality.Semantic.DeepEqual(a, b)}
	if u.Template {
		u.Stored = reader(inRollout(a), inRollout(b))
	}
	return u, nil
}

// inRollout is t where a Rollout keeps it (spec.template), so that paths
// from the object's root read it.
func inRollout(t *corev1.PodTemplateSpec) any {
	var r struct {
		Spec struct {
			Template *corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	r.Spec.Template = t
	return r
}

// rolloutTemplate is a Rollout's spec.template defaulted as the API server
// defaults a PodTemplate.
func rolloutTemplate(o *manifest.Object) (*corev1.PodTemplateSpec, bool) {
	js, err := sent(o)
	if err != nil {
		return nil, false
	}
	var r struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &r); err != nil {
		return nil, false
	}
	pt := &corev1.PodTemplate{Template: r.Spec.Template}
	legacyscheme.Scheme.Default(pt)
	return &pt.Template, true
}

// internal is o decoded into its versioned Go type, defaulted and converted
// to the API server's internal type; strict: an unknown field is an error.
func internal(o *manifest.Object, gvk schema.GroupVersionKind, strict bool) (runtime.Object, error) {
	js, err := sent(o)
	if err != nil {
		return nil, err
	}
	versioned, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	var unknown []error
	if strict {
		unknown, err = kjson.UnmarshalStrict(js, versioned, kjson.DisallowUnknownFields)
	} else {
		err = kjson.UnmarshalCaseSensitivePreserveInts(js, versioned)
	}
	if err == nil && len(unknown) > 0 {
		err = runtime.NewStrictDecodingError(unknown)
	}
	if err != nil {
		return nil, &unapplicable{pos: o.Pos(o.Node).String(), err: err}
	}
	return defaulted(o, versioned, gvk)
}

// defaulted is versioned, o as decoded, defaulted and converted to the
// API server's internal type. No copy: the internal object may share
// memory with versioned, which is dropped.
func defaulted(o *manifest.Object, versioned runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	legacyscheme.Scheme.Default(versioned)
	out, err := legacyscheme.Scheme.UnsafeConvertToVersion(versioned, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", o.Pos(o.Node), err)
	}
	return out, nil
}

// patched is new as the API server decodes what `kubectl apply` sends
// over old (handlers.applyPatchToObject): the patched object read from its
// map form with unknown fields reported, as kubectl's default
// --validate=strict asks, then defaulted and converted to the internal
// type. refused is the API server's refusal of a field new does not decode
// into (an unknown field, a wrong type); a field old already had the same
// way is none, as kubectl's patch carries only what changed.
func patched(old, new *manifest.Object, gvk schema.GroupVersionKind) (obj runtime.Object, refused []verdict.Problem, err error) {
	if obj, err := internal(new, gvk, true); err == nil {
		return obj, nil, nil // the JSON decoder's fields are all known and typed: nothing to refuse
	}
	versioned, derr, err := fromMap(new, gvk)
	if refused := notSent(err); refused != nil {
		return nil, refused, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if derr != nil {
		if refused = decodeRefusal(old, new, gvk, derr); refused != nil {
			return nil, refused, nil
		}
		if !isStrict(derr) { // the base's error too: read as before
			return internalOf(new, gvk)
		}
	}
	obj, err = defaulted(new, versioned, gvk)
	return obj, nil, err
}

// internalOf is internal with no refusal.
func internalOf(o *manifest.Object, gvk schema.GroupVersionKind) (runtime.Object, []verdict.Problem, error) {
	obj, err := internal(o, gvk, false)
	return obj, nil, err
}

// fromMap is o decoded into its versioned type from its map form, as the
// API server reads a patched object (runtime's FromUnstructuredWithValidation,
// unknown fields reported); derr is what the decoding said.
func fromMap(o *manifest.Object, gvk schema.GroupVersionKind) (versioned runtime.Object, derr, err error) {
	m, err := unstructured(o)
	if err != nil {
		return nil, nil, err
	}
	if versioned, err = legacyscheme.Scheme.New(gvk); err != nil {
		return nil, nil, err
	}
	return versioned, runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, versioned, true), nil
}

// unstructured is o as a map, as the API server reads kubectl's JSON.
func unstructured(o *manifest.Object) (map[string]any, error) {
	if v, ok := fieldcheck.Value(o.Node); ok {
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
	}
	js, err := sent(o)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", o.Pos(o.Node), err)
	}
	return m, nil
}

func isStrict(err error) bool {
	_, ok := runtime.AsStrictDecodingError(err)
	return ok
}

// decodeRefusal is the API server's refusal of new's decoding error derr,
// less what old's decoding says alike (a field the patch leaves out); nil
// when nothing is left. The message is the API server's (with no value:
// it may be a Secret's); a wrong type's field is named as the JSON decoder
// names it, since the message does not.
func decodeRefusal(old, new *manifest.Object, gvk schema.GroupVersionKind, derr error) []verdict.Problem {
	var before error
	if _, d, err := fromMap(old, gvk); err == nil {
		before = d
	}
	strict, ok := runtime.AsStrictDecodingError(derr)
	if !ok {
		if before != nil && before.Error() == derr.Error() {
			return nil
		}
		return []verdict.Problem{{Kind: verdict.Invalid, Path: typeErrorField(new, gvk), Msg: derr.Error()}}
	}
	had := map[string]bool{}
	if b, ok := runtime.AsStrictDecodingError(before); ok {
		for _, e := range b.Errors() {
			had[e.Error()] = true
		}
	}
	var brought []error
	for _, e := range strict.Errors() {
		if !had[e.Error()] {
			brought = append(brought, e)
		}
	}
	if len(brought) == 0 {
		return nil
	}
	return []verdict.Problem{{Kind: verdict.Invalid, Msg: runtime.NewStrictDecodingError(brought).Error()}}
}

// typeErrorField is the field the JSON decoder finds of the wrong type in
// o, or "".
func typeErrorField(o *manifest.Object, gvk schema.GroupVersionKind) string {
	js, err := sent(o)
	if err != nil {
		return ""
	}
	v, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return ""
	}
	var te *json.UnmarshalTypeError
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, v); errors.As(err, &te) {
		return te.Field
	}
	return ""
}

// problems are an update's refusal as the API server words it: each
// cause's field and message.
func problems(err error) []verdict.Problem {
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) == 0 {
		return []verdict.Problem{{Kind: verdict.Invalid, Msg: err.Error()}}
	}
	var out []verdict.Problem
	for _, c := range se.ErrStatus.Details.Causes {
		out = append(out, verdict.Problem{Kind: verdict.Invalid, Path: c.Field, Msg: c.Message})
	}
	return out
}

// sent is o as JSON, as kubectl sends it: read from the node tree where
// fieldcheck.Value is sure of every value, else the bytes kubectl reads
// (krender's printer) read as kubectl reads them (sigs.k8s.io/yaml).
func sent(o *manifest.Object) ([]byte, error) {
	if v, ok := fieldcheck.Value(o.Node); ok {
		return fieldcheck.ValueJSON(v)
	}
	text, err := manifest.MarshalObject(o)
	if err != nil {
		return nil, err
	}
	js, err := k8syaml.YAMLToJSON(text)
	if err != nil {
		return nil, &unapplicable{pos: o.Pos(o.Node).String(), err: err, notSent: true}
	}
	return js, nil
}

// unapplicable is an object that cannot be applied as written: kubectl
// cannot read it into JSON (notSent: a flow mapping as a key, such as a
// template language's {{name}}), or the API server's decoder refuses it.
type unapplicable struct {
	pos     string
	err     error
	notSent bool
}

func (e *unapplicable) Error() string { return e.pos + ": " + e.err.Error() }

// unapplied: err says the object cannot have been applied as written.
func unapplied(err error) bool {
	var u *unapplicable
	return errors.As(err, &u)
}

// notSent is kubectl's refusal of an object it cannot read into JSON, in
// its words, where err is one.
func notSent(err error) []verdict.Problem {
	var u *unapplicable
	if !errors.As(err, &u) || !u.notSent {
		return nil
	}
	return []verdict.Problem{{Kind: verdict.Invalid, Msg: "kubectl cannot send it: error converting YAML to JSON: " + u.err.Error()}}
}

// The Service registry (k8s.io/kubernetes/pkg/registry/core/service/storage)
// fixes up an update before it validates it (REST.beginUpdate runs before
// rest.BeforeUpdate): a value it allocated, or the client once set, that
// the update leaves empty is kept. Its functions are unexported, so
// patchAllocatedValues, normalizeClusterIPs and their helpers below mirror
// them (v1.35). Without them the stored object lacks the clusterIPs its
// create wrote, so a head that keeps an explicit clusterIP (None too) and
// changes a port, or that omits a healthCheckNodePort, is judged refused
// where the API server accepts it, and a changed clusterIP is refused for
// the wrong reason.

// patchAllocatedValues copies the stored clusterIP, clusterIPs, each
// port's nodePort (matched by port name, unless another port of the update
// already uses it) and healthCheckNodePort into an update that leaves them
// empty, where both sides' types need them. As storage.patchAllocatedValues.
func patchAllocatedValues(newSvc, oldSvc *api.Service) {
	if needsClusterIP(oldSvc) && needsClusterIP(newSvc) {
		if newSvc.Spec.ClusterIP == "" {
			newSvc.Spec.ClusterIP = oldSvc.Spec.ClusterIP
		}
		if len(newSvc.Spec.ClusterIPs) == 0 && len(oldSvc.Spec.ClusterIPs) > 0 {
			newSvc.Spec.ClusterIPs = oldSvc.Spec.ClusterIPs
		}
	}
	if needsNodePort(oldSvc) && needsNodePort(newSvc) {
		patchNodePorts(newSvc, oldSvc)
	}
	if needsHCNodePort(oldSvc) && needsHCNodePort(newSvc) {
		if newSvc.Spec.HealthCheckNodePort == 0 {
			newSvc.Spec.HealthCheckNodePort = oldSvc.Spec.HealthCheckNodePort
		}
	}
}

// patchNodePorts gives each port of the update that leaves its nodePort
// empty the stored port's of the same name, unless that nodePort is one
// both sides already use. As the node port part of
// storage.patchAllocatedValues.
func patchNodePorts(newSvc, oldSvc *api.Service) {
	nodePortsUsed := func(svc *api.Service) sets.Set[int32] {
		used := sets.New[int32]()
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				used.Insert(p.NodePort)
			}
		}
		return used
	}
	used := nodePortsUsed(oldSvc).Intersection(nodePortsUsed(newSvc))
	np := map[string]int32{}
	for _, p := range oldSvc.Spec.Ports {
		np[p.Name] = p.NodePort
	}
	for i := range newSvc.Spec.Ports {
		p := &newSvc.Spec.Ports[i]
		if p.NodePort == 0 {
			if oldVal := np[p.Name]; !used.Has(oldVal) {
				p.NodePort = oldVal
			}
		}
	}
}

// allocated are the values patchAllocatedValues may fill in, by their
// paths as a diff names them: a port by its name, or by its index where
// it has none (a Service of one port); clusterIPs as a list prints.
func allocated(svc *api.Service) map[string]string {
	m := map[string]string{}
	put := func(path, v string) {
		if v != "" && v != "0" {
			m[path] = v
		}
	}
	put("spec.clusterIP", svc.Spec.ClusterIP)
	if len(svc.Spec.ClusterIPs) > 0 {
		put("spec.clusterIPs", fmt.Sprint(svc.Spec.ClusterIPs))
	}
	put("spec.healthCheckNodePort", strconv.Itoa(int(svc.Spec.HealthCheckNodePort)))
	for i, p := range svc.Spec.Ports {
		key := p.Name
		if key == "" {
			key = strconv.Itoa(i)
		}
		put("spec.ports["+key+"].nodePort", strconv.Itoa(int(p.NodePort)))
	}
	return m
}

// keptValues are the values after holds that before lacks: those the
// registry kept from the stored object, of those the base wrote (one the
// cluster allocated is kept too, but its value is the cluster's).
func keptValues(before, after, written map[string]string) map[string]string {
	var kept map[string]string
	for path, v := range after {
		if _, ok := before[path]; !ok && written[path] == v {
			if kept == nil {
				kept = map[string]string{}
			}
			kept[path] = v
		}
	}
	return kept
}

// allocateHealthCheckNodePort gives a Service that needs a health check
// node port and names none one, as the Service registry's allocator does
// before it validates a create or an update (which requires one): the
// first free port of the default range. Which one judges nothing.
func allocateHealthCheckNodePort(svc *api.Service) {
	if !needsHCNodePort(svc) || svc.Spec.HealthCheckNodePort != 0 {
		return
	}
	for port := int32(30000); port <= 32767; port++ {
		if !slices.ContainsFunc(svc.Spec.Ports, func(p api.ServicePort) bool { return p.NodePort == port }) {
			svc.Spec.HealthCheckNodePort = port
			return
		}
	}
}

func needsClusterIP(svc *api.Service) bool {
	return svc.Spec.Type != api.ServiceTypeExternalName
}

func needsNodePort(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeNodePort ||
		svc.Spec.Type == api.ServiceTypeLoadBalancer &&
			(svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts)
}

func needsHCNodePort(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeLoadBalancer &&
		svc.Spec.ExternalTrafficPolicy == api.ServiceExternalTrafficPolicyLocal
}

// normalizeClusterIPs keeps clusterIP and clusterIPs in step: on create
// (oldSvc nil) a lone clusterIP becomes clusterIPs; on update clusterIPs
// left empty under the same clusterIP are the stored ones, and a cleared
// or changed clusterIP over the stored clusterIPs clears or follows them.
// As storage.normalizeClusterIPs.
func normalizeClusterIPs(newSvc, oldSvc *api.Service) {
	if oldSvc == nil {
		if len(newSvc.Spec.ClusterIP) > 0 && len(newSvc.Spec.ClusterIPs) == 0 {
			newSvc.Spec.ClusterIPs = []string{newSvc.Spec.ClusterIP}
		}
		return
	}
	if len(oldSvc.Spec.ClusterIPs) > 0 && len(newSvc.Spec.ClusterIPs) == 0 && oldSvc.Spec.ClusterIP == newSvc.Spec.ClusterIP {
		newSvc.Spec.ClusterIPs = oldSvc.Spec.ClusterIPs
	}
	if oldSvc.Spec.ClusterIP != newSvc.Spec.ClusterIP {
		if len(oldSvc.Spec.ClusterIP) > 0 && len(newSvc.Spec.ClusterIP) == 0 {
			if slices.Equal(oldSvc.Spec.ClusterIPs, newSvc.Spec.ClusterIPs) {
				newSvc.Spec.ClusterIPs = nil
			}
		} else if slices.Equal(oldSvc.Spec.ClusterIPs, newSvc.Spec.ClusterIPs) {
			newSvc.Spec.ClusterIPs = []string{newSvc.Spec.ClusterIP}
		}
	}
}
