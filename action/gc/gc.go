// Package gc decides which workloads and revisions own each hashed
// ConfigMap and Secret, so that Kubernetes' garbage collector deletes an old
// version once no revision that `kubectl rollout undo` can go back to uses
// it. It reads a snapshot of the cluster and plans; package gc/cluster lists
// and patches, and is linked only by krender-check, since client-go would
// cost every other command its start-up.
package gc

import (
	"context"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/krender/krender/render/contenthash/refs"
)

// FieldManager owns, in server-side apply's managedFields, the owner
// references gc sets: they are told apart from any other tool's by it.
const FieldManager = "krender-gc"

// Options are the command line's.
type Options struct {
	Namespace     string // -n; "" means the kubeconfig's namespace
	AllNamespaces bool   // -A
	DryRun        bool
	Kubeconfig    string
	Context       string
	Output        string // text or json
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

// Collector runs gc against a cluster and writes its report; krender-check
// has one (gc/cluster.Run), krender hands the command over to it.
type Collector func(ctx context.Context, o Options, stdout io.Writer) error

// Owner is an object as an owner reference names it.
type Owner struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
}

func (o Owner) String() string { return o.Kind + "/" + o.Name }

// Target is a ConfigMap or Secret by namespace and name.
type Target struct{ Kind, Namespace, Name string }

// Referrer is a listed workload or revision and the ConfigMaps and Secrets
// its pod template (or the profile's fields) names.
type Referrer struct {
	Owner
	Namespace string
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
}

// Plan decides every hashed object of s. An owner is a listed object whose
// pod template names it; a managed owner gc did not list (deleted since,
// or of a kind this run did not list) stays for the garbage collector to
// judge. An object left with no owner at all is deleted only when a newer
// version of the same name is in use.
func Plan(s *Snapshot) []Decision {
	users, listed := Users(s)
	out := make([]Decision, 0, len(s.Hashed))
	for _, h := range s.Hashed {
		out = append(out, decide(h, users, listed))
	}
	newer := newestInUse(s.Hashed, users)
	for i := range out {
		settleUnowned(&out[i], users, newer)
	}
	return out
}

// Users indexes s: the listed objects that name each ConfigMap and Secret
// from its own namespace (a key with no owners: named only from another
// namespace, where no owner reference can point), and every UID listed.
func Users(s *Snapshot) (users map[Target][]Owner, listed map[string]bool) {
	users = map[Target][]Owner{}
	listed = make(map[string]bool, len(s.Referrers))
	for _, r := range s.Referrers {
		listed[r.UID] = true
		for _, t := range r.Refs {
			if t.Namespace == r.Namespace {
				users[t] = appendOwner(users[t], r.Owner)
			} else if _, ok := users[t]; !ok {
				users[t] = nil
			}
		}
	}
	return users, listed
}

func appendOwner(l []Owner, o Owner) []Owner {
	if slices.ContainsFunc(l, func(x Owner) bool { return x.UID == o.UID }) {
		return l
	}
	return append(l, o)
}

// Decide plans one object from the owners that name it now and the UIDs
// listed in this run (a retry after a conflict plans again with these).
func Decide(h *Hashed, users map[Target][]Owner, listed map[string]bool) Decision {
	return decide(h, users, listed)
}

func decide(h *Hashed, users map[Target][]Owner, listed map[string]bool) Decision {
	d := Decision{Object: h}
	others := map[string]bool{}
	for _, o := range h.Owners {
		if !h.managed(o.UID) {
			others[o.UID] = true
		}
	}
	inUse := len(users[h.Target])
	for _, o := range users[h.Target] {
		if !others[o.UID] { // another tool's reference to the same owner already holds it
			d.Owners = append(d.Owners, o)
		}
	}
	for _, o := range h.Owners {
		if !h.managed(o.UID) || slices.ContainsFunc(d.Owners, func(x Owner) bool { return x.UID == o.UID }) {
			continue
		}
		if listed[o.UID] {
			d.Removed = append(d.Removed, o) // listed and no longer naming it
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
	d.Reason = ownedReason(d, inUse, len(others))
	return d
}

func sortOwners(l []Owner) {
	slices.SortFunc(l, func(a, b Owner) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

func ownedReason(d Decision, inUse, others int) string {
	switch {
	case inUse > 0:
		return "in use: the garbage collector deletes it once its last owner is gone"
	case len(d.Owners) > 0:
		return "no listed object uses it: the garbage collector deletes it once its remaining owners are gone"
	case others > 0:
		return "kept: another tool's owner reference decides"
	}
	return ""
}

// versionKey groups the versions of one name.
type versionKey struct{ kind, ns, base string }

// newestInUse is, per name, the creation time of the newest version some
// listed object uses.
func newestInUse(hs []*Hashed, users map[Target][]Owner) map[versionKey]*Hashed {
	out := map[versionKey]*Hashed{}
	for _, h := range hs {
		if len(users[h.Target]) == 0 {
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
// when a newer version of its name is in use, and otherwise keeps it and
// says why.
func settleUnowned(d *Decision, users map[Target][]Owner, newer map[versionKey]*Hashed) {
	h := d.Object
	if len(d.Owners) > 0 || d.Reason != "" {
		return
	}
	if d.Action == Unchanged {
		d.Action = Keep
	}
	if _, used := users[h.Target]; used {
		d.Reason = "kept: used from another namespace, where no owner reference can point"
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
