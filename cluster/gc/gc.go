// Package gc decides which workloads and revisions own each hashed
// ConfigMap and Secret, so that Kubernetes' garbage collector deletes an old
// version once no revision that `kubectl rollout undo` can go back to uses
// it. It reads a snapshot of the cluster and plans; package cluster/client lists
// and patches, and is linked only by krender-check, since client-go would
// cost every other command its start-up.
package gc

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/krender/krender/render/contenthash/refs"
)

// FieldManager owns, in server-side apply's managedFields, the owner
// references gc sets: they are told apart from any other tool's by it.
const FieldManager = "krender-gc"

// Options are what a run asks of the cluster: the command line's flags but
// -o, and the hash stage's reference table.
type Options struct {
	Namespace     string // -n; "" means the kubeconfig's namespace
	AllNamespaces bool   // -A
	DryRun        bool
	Kubeconfig    string
	Context       string
	// Env looks up KUBECONFIG and HOME, as kubectl reads them; the
	// command line's environment, never the process's own.
	Env func(string) (string, bool)
	// Table finds references: the hash stage's (refs.Builtin and the
	// profile's hash.references).
	Table *refs.Table
	// Custom are the kinds besides the built-in workloads whose objects
	// may own a hashed object: the profile's hash.references kinds.
	Custom []Kind
}

// Kind is a kind gc lists: Group "" matches any group.
type Kind struct{ Group, Kind string }

// Owner is an object as an owner reference names it.
type Owner struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

func (o Owner) String() string { return o.Kind + "/" + o.Name }

// Target is a ConfigMap or Secret by namespace and name.
type Target struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Role is what a listed object's references mean for the objects they name.
type Role int

const (
	// Pinned: desired state, an object someone applied (a workload, a
	// ServiceAccount, an Ingress, a Pod or Job no controller owns, a
	// profile's kind). What it names carries no owner reference of gc's:
	// deleting, replacing or pruning it must never take what a re-apply
	// names again.
	Pinned Role = iota
	// Revision: a revision a controller made and keeps for `kubectl
	// rollout undo` (a ReplicaSet, a ControllerRevision, a Job of a
	// CronJob). What only revisions name is owned by them.
	Revision
	// PodOf: a pod its controller runs. Its controller's revision covers
	// it, so it is never an owner; while it runs, gc deletes nothing it
	// names.
	PodOf
)

// Referrer is a listed object and the ConfigMaps and Secrets its pod
// template (or another field of the reference table) names. A Target with
// no namespace is named from a cluster-scoped object: any namespace's
// object of that name.
type Referrer struct {
	Owner
	Namespace string
	Role      Role
	Refs      []Target
}

// Hashed is a ConfigMap or Secret krender renamed (it has the
// krender.io/name label), as its metadata says: its data is never read.
type Hashed struct {
	Target
	UID, ResourceVersion string
	Created              time.Time
	BaseName             string   // the label's value
	Owners               []Owner  // every owner reference, any tool's
	Managed              []string // UIDs of the owner references FieldManager applied
}

func (h *Hashed) managed(uid string) bool { return slices.Contains(h.Managed, uid) }

// Snapshot is what one run lists: the hashed objects and everything that
// may own them, in the namespaces asked.
type Snapshot struct {
	Hashed    []*Hashed
	Referrers []Referrer
}

// Action is what gc does to one hashed object.
type Action string

const (
	// Own: its managed owner references change; it stays.
	Own Action = "owners"
	// Delete: nothing uses it and a newer version of it is in use.
	Delete Action = "delete"
	// Keep: nothing changes; listed because gc cannot prove it unused.
	Keep Action = "keep"
	// Unchanged: its owners are right already (not reported).
	Unchanged Action = "unchanged"
)

// Decision is the plan for one hashed object.
type Decision struct {
	Object  *Hashed
	Action  Action
	Owners  []Owner // the owner references gc manages once applied
	Added   []Owner
	Removed []Owner
	Reason  string
	// Pinned: desired state names it, so it carries no owner of gc's.
	Pinned bool
}

// Plan decides every hashed object of s. A version that desired state
// names is pinned: gc removes its own owner references from it. A version
// only revisions name is owned by them, one owner reference per revision.
// A managed owner gc did not list (deleted since, or of a kind this run
// did not list) stays for the garbage collector to judge. An object left
// with no owner at all is deleted only when nothing listed names it and a
// newer version of the same name is in use.
func Plan(s *Snapshot) []Decision {
	x := NewIndex(s)
	out := make([]Decision, 0, len(s.Hashed))
	for _, h := range s.Hashed {
		out = append(out, x.Decide(h))
	}
	newer := x.newestInUse(s.Hashed)
	for i := range out {
		x.settleUnowned(&out[i], newer)
	}
	return out
}

// Index is who names each ConfigMap and Secret of a snapshot, by role,
// and every UID listed.
type Index struct {
	pinned map[Target][]Owner // by desired state (any namespace's referrer)
	owned  map[Target][]Owner // by revisions of its own namespace
	used   map[Target][]Owner // by controllers' pods, or by revisions of another namespace
	listed map[string]bool
}

// NewIndex indexes s.
func NewIndex(s *Snapshot) *Index {
	x := &Index{pinned: map[Target][]Owner{}, owned: map[Target][]Owner{}, used: map[Target][]Owner{}, listed: make(map[string]bool, len(s.Referrers))}
	for _, r := range s.Referrers {
		x.listed[r.UID] = true
		for _, t := range r.Refs {
			switch {
			case r.Role == Pinned:
				x.pinned[t] = appendOwner(x.pinned[t], r.Owner)
			case r.Role == Revision && t.Namespace == r.Namespace:
				x.owned[t] = appendOwner(x.owned[t], r.Owner)
			default: // a controller's pod; a revision elsewhere, where no owner reference can point
				x.used[t] = appendOwner(x.used[t], r.Owner)
			}
		}
	}
	return x
}

// pinnedBy are the desired-state objects naming t, those of cluster-scoped
// ones (named without a namespace) included.
func (x *Index) pinnedBy(t Target) []Owner {
	out := x.pinned[t]
	if wild := x.pinned[Target{Kind: t.Kind, Name: t.Name}]; len(wild) > 0 {
		out = append(slices.Clip(out), wild...)
	}
	return out
}

func (x *Index) inUse(t Target) bool {
	return len(x.pinnedBy(t))+len(x.owned[t])+len(x.used[t]) > 0
}

func appendOwner(l []Owner, o Owner) []Owner {
	if slices.ContainsFunc(l, func(x Owner) bool { return x.UID == o.UID }) {
		return l
	}
	return append(l, o)
}

// Decide plans one object (a retry after a conflict plans it again with
// the same index).
func (x *Index) Decide(h *Hashed) Decision {
	if pins := x.pinnedBy(h.Target); len(pins) > 0 {
		return decidePinned(h, pins)
	}
	return x.decideOwned(h)
}

// decidePinned plans an object that what is applied names: gc takes its
// own owner references off, so no delete, replace or prune of a workload
// can take it away.
func decidePinned(h *Hashed, pins []Owner) Decision {
	d := Decision{Object: h, Pinned: true}
	for _, o := range h.Owners {
		if h.managed(o.UID) {
			d.Removed = append(d.Removed, o)
		}
	}
	sortOwners(d.Removed)
	d.Action = Unchanged
	if len(d.Removed) > 0 {
		d.Action = Own
	}
	d.Reason = "pinned: " + ownerNames(pins, 3) + " names it; no owner of gc's, so no delete, replace or prune of a workload takes it"
	return d
}

// decideOwned plans an object nothing applied names: the revisions that
// use it own it, so the garbage collector deletes it with the last of them.
func (x *Index) decideOwned(h *Hashed) Decision {
	d := Decision{Object: h}
	others := map[string]bool{}
	for _, o := range h.Owners {
		if !h.managed(o.UID) {
			others[o.UID] = true
		}
	}
	revs := x.owned[h.Target]
	for _, o := range revs {
		if !others[o.UID] { // another tool's reference to the same owner already holds it
			d.Owners = append(d.Owners, o)
		}
	}
	for _, o := range h.Owners {
		if !h.managed(o.UID) || slices.ContainsFunc(d.Owners, func(x Owner) bool { return x.UID == o.UID }) {
			continue
		}
		if x.listed[o.UID] {
			d.Removed = append(d.Removed, o) // listed, and no revision naming it (a workload, a pod)
		} else {
			d.Owners = append(d.Owners, o) // gone, or not listed: the garbage collector's to judge
		}
	}
	for _, o := range d.Owners {
		if !h.managed(o.UID) {
			d.Added = append(d.Added, o)
		}
	}
	sortOwners(d.Owners)
	sortOwners(d.Added)
	sortOwners(d.Removed)
	d.Action = Unchanged
	if len(d.Added)+len(d.Removed) > 0 {
		d.Action = Own
	}
	d.Reason = ownedReason(len(revs), len(d.Owners), len(others))
	return d
}

// ownedReason says who decides an unpinned object's end: its revisions,
// its remaining owners, or another tool's owner reference.
func ownedReason(revs, owners, others int) string {
	switch {
	case revs > 0:
		return "revisions only: the garbage collector deletes it with its last revision"
	case owners > 0:
		return "no listed object uses it: the garbage collector deletes it once its remaining owners are gone"
	case others > 0:
		return "kept: another tool's owner reference decides"
	}
	return ""
}

func sortOwners(l []Owner) {
	slices.SortFunc(l, func(a, b Owner) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// ownerNames names up to max of l, sorted, and counts the rest.
func ownerNames(l []Owner, max int) string {
	l = slices.Clone(l)
	sortOwners(l)
	names := make([]string, 0, max+1)
	for i, o := range l {
		if i == max {
			names = append(names, fmt.Sprintf("%d more", len(l)-max))
			break
		}
		names = append(names, o.String())
	}
	return strings.Join(names, ", ")
}

// versionKey groups the versions of one name.
type versionKey struct{ kind, ns, base string }

// newestInUse is, per name, the newest version something listed names.
func (x *Index) newestInUse(hs []*Hashed) map[versionKey]*Hashed {
	out := map[versionKey]*Hashed{}
	for _, h := range hs {
		if !x.inUse(h.Target) {
			continue
		}
		k := versionKey{h.Kind, h.Namespace, h.BaseName}
		if cur := out[k]; cur == nil || h.Created.After(cur.Created) {
			out[k] = h
		}
	}
	return out
}

// settleUnowned decides an object left with no owner reference at all:
// the garbage collector never deletes such an object, so gc deletes it
// when nothing listed names it and a newer version of its name is in use,
// and otherwise keeps it and says why.
func (x *Index) settleUnowned(d *Decision, newer map[versionKey]*Hashed) {
	h := d.Object
	if len(d.Owners) > 0 || d.Reason != "" {
		return
	}
	if d.Action == Unchanged {
		d.Action = Keep
	}
	if users := x.used[h.Target]; len(users) > 0 {
		d.Reason = "kept: " + ownerNames(users, 3) + " still names it (a controller's pod, or a revision in another namespace, where no owner reference can point)"
		return
	}
	n := newer[versionKey{h.Kind, h.Namespace, h.BaseName}]
	if n != nil && n.Created.After(h.Created) {
		d.Action = Delete
		d.Reason = "nothing listed uses it and a newer version, " + n.Name + ", is in use"
		return
	}
	d.Reason = "kept: nothing listed uses it and no newer version is in use, so something else may read it"
}
