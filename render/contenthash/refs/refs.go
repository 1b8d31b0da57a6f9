// Package refs knows which fields of which objects name a ConfigMap or a
// Secret: kustomize's nameReference entries for those two kinds, plus the
// places kustomize misses, plus whatever a profile adds for its own CRDs.
package refs

import (
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
)

// The kinds a reference can point at.
const (
	ConfigMap = "ConfigMap"
	Secret    = "Secret"
)

// Ref is one field that names a ConfigMap or Secret.
type Ref struct {
	Kind  string // kind of the referring object
	Group string // its API group; "" matches any group, as in kustomize's field specs
	// Path is kustomize's field-spec syntax: keys separated by '/', lists
	// crossed without saying so (a trailing "[]" is allowed), `\/` for a '/'
	// inside a key (annotation names).
	Path string
	To   string // ConfigMap or Secret
	// Pod marks fields inside the pod template: pods read them when they
	// start, so a change must roll them.
	Pod bool
	// Consumes marks fields through which the referent's content is read,
	// so a new name there brings the new content in. Only a ConfigMap or
	// Secret named by such a field is renamed by default: renaming anything
	// else rolls nothing and breaks software that reads it by name.
	Consumes bool
	// Quiet fields may well name objects made elsewhere (pull secrets,
	// cert-manager's TLS secrets, RBAC rules): no warning when absent.
	Quiet bool
	// Cluster is set for cluster-scoped referrers: the referent is looked
	// up by name in every namespace of the render.
	Cluster bool
	// Guard, when set, must accept the mapping holding the field.
	Guard func(holder *yaml.Node) bool
	Pos   filepos.Pos // where a profile wrote the entry; zero for built-ins

	keys []string
}

// Found is one reference in an object.
type Found struct {
	Ref    *Ref
	Name   *yaml.Node // the scalar holding the referent's name
	Holder *yaml.Node // the mapping the field is in (where `optional` and `namespace` live)
}

// Namespace is the referent's namespace: the one the holder names (a
// profile's field may sit beside a namespace key), else ns, the referrer's.
func (f Found) Namespace(ns string) string {
	if n := manifest.Value(f.Holder, "namespace"); n != nil && n.Kind == yaml.ScalarNode && n.Value != "" {
		return n.Value
	}
	return ns
}

// podRefs are the fields of a pod spec that name a ConfigMap or Secret.
// kustomize covers volumes, projected sources, env and envFrom of containers
// and init containers, and image pull secrets; krender adds ephemeral
// containers and CSI volumes' nodePublishSecretRef.
func podRefs() []Ref {
	var out []Ref
	for _, v := range volumeRefs() {
		v.Path = "volumes/" + v.Path
		out = append(out, v.Ref)
	}
	// Pulling happens once per node; a changed pull secret needs no roll.
	out = append(out, Ref{Path: "imagePullSecrets/name", To: Secret, Quiet: true})
	for _, c := range workload.ContainerLists {
		out = append(out,
			Ref{Path: c + "/env/valueFrom/configMapKeyRef/name", To: ConfigMap, Consumes: true},
			Ref{Path: c + "/envFrom/configMapRef/name", To: ConfigMap, Consumes: true},
			Ref{Path: c + "/env/valueFrom/secretKeyRef/name", To: Secret, Consumes: true},
			Ref{Path: c + "/envFrom/secretRef/name", To: Secret, Consumes: true},
		)
	}
	return out
}

// volumeRef is a field of a pod's volume that names a ConfigMap or Secret.
type volumeRef struct {
	Ref
	mounted bool // the referent's content appears as files in the pod
}

func volumeRefs() []volumeRef {
	return []volumeRef{
		{Ref{Path: "configMap/name", To: ConfigMap, Consumes: true}, true},
		{Ref{Path: "secret/secretName", To: Secret, Consumes: true}, true},
		{Ref{Path: "projected/sources/configMap/name", To: ConfigMap, Consumes: true}, true},
		{Ref{Path: "projected/sources/secret/name", To: Secret, Consumes: true}, true},
		// Credentials the CSI driver reads, not files in the pod.
		{Ref{Path: "csi/nodePublishSecretRef/name", To: Secret, Consumes: true}, false},
	}
}

// mountedTrie holds the volume fields whose referent a pod sees as files.
var mountedTrie = sync.OnceValue(func() *trie {
	root := &trie{}
	for _, v := range volumeRefs() {
		if v.mounted {
			r := v.Ref
			r.keys, _ = manifest.SplitPath(r.Path) // fixed paths, never malformed
			root.insert(&r)
		}
	}
	return root
})

// Mounted calls f for every ConfigMap and Secret whose content volume, a
// volume of o's pod spec, mounts as files: to is ConfigMap or Secret, name
// the scalar holding the referent's name.
func Mounted(o *manifest.Object, volume *yaml.Node, f func(to string, name *yaml.Node)) {
	w := &walker{root: o.Node, f: func(fd Found) { f(fd.Ref.To, fd.Name) }}
	w.walk(volume, mountedTrie(), nil)
}

// rbacGuard keeps kustomize's `rules/resourceNames` entries from renaming a
// resource name that happens to equal a ConfigMap's in a rule about
// Deployments: the rule must be about the core group's configmaps or secrets.
func rbacGuard(resource string) func(*yaml.Node) bool {
	return func(rule *yaml.Node) bool {
		return listHas(manifest.Value(rule, "apiGroups"), "", "*") &&
			listHas(manifest.Value(rule, "resources"), resource, "*")
	}
}

func listHas(l *yaml.Node, want ...string) bool {
	if l == nil || l.Kind != yaml.SequenceNode {
		return false
	}
	for _, e := range l.Content {
		for _, w := range want {
			if e.Kind == yaml.ScalarNode && e.Value == w {
				return true
			}
		}
	}
	return false
}

// Builtin is krender's default table.
func Builtin() []Ref {
	var out []Ref
	for _, pk := range workload.Kinds() {
		prefix := strings.Join(append(pk.Template, "spec"), "/") + "/"
		for _, r := range podRefs() {
			r.Kind, r.Group, r.Pod = pk.Kind, pk.Group, true
			r.Path = prefix + r.Path
			out = append(out, r)
		}
	}
	quiet := func(kind, group, path, to string) Ref {
		return Ref{Kind: kind, Group: group, Path: path, To: to, Quiet: true}
	}
	cluster := func(r Ref) Ref { r.Cluster = true; return r }
	out = append(out,
		quiet("Ingress", "", "spec/tls/secretName", Secret),
		quiet("Ingress", "", `metadata/annotations/ingress.kubernetes.io\/auth-secret`, Secret),
		quiet("Ingress", "", `metadata/annotations/nginx.ingress.kubernetes.io\/auth-secret`, Secret),
		quiet("Ingress", "", `metadata/annotations/nginx.ingress.kubernetes.io\/auth-tls-secret`, Secret),
		quiet("Ingress", "", `metadata/annotations/nginx.ingress.kubernetes.io\/fastcgi-params-configmap`, ConfigMap),
		quiet("ServiceAccount", "", "imagePullSecrets/name", Secret),
		quiet("ServiceAccount", "", "secrets/name", Secret),
		cluster(quiet("StorageClass", "", "parameters/secretName", Secret)),
		cluster(quiet("StorageClass", "", "parameters/adminSecretName", Secret)),
		cluster(quiet("StorageClass", "", "parameters/userSecretName", Secret)),
		cluster(quiet("StorageClass", "", "parameters/secretRef", Secret)),
		cluster(quiet("PersistentVolume", "", "spec/azureFile/secretName", Secret)),
		// A new name in a Knative Service's template makes a new revision, whose pods read it.
		Ref{Kind: "Service", Group: "serving.knative.dev", Path: "spec/template/spec/containers/env/valueFrom/secretKeyRef/name", To: Secret, Consumes: true},
	)
	for _, role := range []string{"Role", "ClusterRole"} {
		for _, to := range []string{ConfigMap, Secret} {
			r := quiet(role, "", "rules/resourceNames", to)
			r.Guard = rbacGuard(strings.ToLower(to) + "s")
			r.Cluster = role == "ClusterRole"
			out = append(out, r)
		}
	}
	return out
}

// Table finds references in objects. Paths of one kind share one trie, so
// an object is walked once however many fields its kind has.
type Table struct {
	byKind map[string][]groupTrie
	kinds  []Referrer
}

// Referrer is a kind of object the table reads references in.
type Referrer struct {
	Kind  string
	Group string // "" matches any group
	// Cluster: objects of the kind are cluster-scoped.
	Cluster bool
}

// Referrers are the kinds the table reads, in the order first added: what
// a reader of the cluster must list to see every reference the render
// rewrote.
func (t *Table) Referrers() []Referrer { return slices.Clone(t.kinds) }

// ReadsAnnotation reports whether a field of the table is the annotation
// key on objects of kind: one who drops annotations keeps those.
func (t *Table) ReadsAnnotation(kind, key string) bool {
	for _, g := range t.byKind[kind] {
		if n := g.root.find("metadata", "annotations", key); n != nil {
			return true
		}
	}
	return false
}

func (n *trie) find(keys ...string) *trie {
	for _, k := range keys {
		i := slices.Index(n.keys, k)
		if i < 0 {
			return nil
		}
		n = n.next[i]
	}
	return n
}

type groupTrie struct {
	group string
	root  *trie
}

type trie struct {
	keys []string
	next []*trie
	refs []*Ref
}

// Compile checks every entry and builds the table.
func Compile(entries []Ref) (*Table, error) {
	t := &Table{byKind: map[string][]groupTrie{}}
	var errs filepos.List
	for i := range entries {
		r := &entries[i]
		if err := r.check(); err != nil {
			errs = append(errs, err)
			continue
		}
		t.add(r)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func (r *Ref) check() *filepos.Error {
	if r.Kind == "" {
		return filepos.Errorf(r.Pos, "hash reference needs a kind")
	}
	if r.To != ConfigMap && r.To != Secret {
		return filepos.Errorf(r.Pos, "hash reference to %q: want to: ConfigMap or to: Secret", r.To)
	}
	keys, err := manifest.SplitPath(r.Path)
	if err != nil {
		return filepos.Errorf(r.Pos, "%v", err)
	}
	r.keys = keys
	// A profile's field under a known pod template counts as a pod field.
	if p := workload.TemplatePath(r.Kind, r.Group); p != nil && len(keys) > len(p) {
		r.Pod = r.Pod || strings.Join(keys[:len(p)], "/") == strings.Join(p, "/")
	}
	return nil
}

func (t *Table) add(r *Ref) {
	k := Referrer{Kind: r.Kind, Group: r.Group, Cluster: r.Cluster}
	if !slices.Contains(t.kinds, k) {
		t.kinds = append(t.kinds, k)
	}
	var root *trie
	for _, g := range t.byKind[r.Kind] {
		if g.group == r.Group {
			root = g.root
		}
	}
	if root == nil {
		root = &trie{}
		t.byKind[r.Kind] = append(t.byKind[r.Kind], groupTrie{r.Group, root})
	}
	root.insert(r)
}

func (n *trie) insert(r *Ref) {
	for _, k := range r.keys {
		n = n.child(k)
	}
	n.refs = append(n.refs, r)
}

func (n *trie) child(k string) *trie {
	for i, key := range n.keys {
		if key == k {
			return n.next[i]
		}
	}
	c := &trie{}
	n.keys = append(n.keys, k)
	n.next = append(n.next, c)
	return c
}

// Each calls f for every reference in o, in document order per field.
//
// The walk is over krender's go.yaml.in/yaml/v4 nodes, not through
// kustomize's filters/fieldspec: that filter needs kyaml (yaml/v3) nodes, and
// converting every workload there and back would cost a copy per object and
// lose the template positions that warnings point at. The semantics are
// fieldspec's: lists are crossed implicitly, aliases followed, absent or null
// fields skipped.
func (t *Table) Each(o *manifest.Object, f func(Found)) {
	gs := t.byKind[o.Kind()]
	if len(gs) == 0 {
		return
	}
	group := o.Group()
	w := &walker{root: o.Node, f: f}
	for _, g := range gs {
		if g.group == "" || g.group == group {
			w.walk(o.Node, g.root, nil)
		}
	}
}

type walker struct {
	root    *yaml.Node
	aliases map[*yaml.Node]*yaml.Node // resolved when the first alias is met
	f       func(Found)
}

func (w *walker) walk(n *yaml.Node, t *trie, holder *yaml.Node) {
	if n.Kind == yaml.AliasNode {
		if w.aliases == nil {
			w.aliases = manifest.Aliases(w.root)
		}
		if n = w.aliases[n]; n == nil {
			return
		}
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, e := range n.Content {
			w.walk(e, t, holder)
		}
	case yaml.MappingNode:
		for i, k := range t.keys {
			if v := manifest.Value(n, k); v != nil {
				w.walk(v, t.next[i], n)
			}
		}
	case yaml.ScalarNode:
		if n.Value == "" || n.Tag == "!!null" {
			return
		}
		for _, r := range t.refs {
			if r.Guard == nil || r.Guard(holder) {
				w.f(Found{Ref: r, Name: n, Holder: holder})
			}
		}
	}
}
