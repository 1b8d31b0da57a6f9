package gc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/contenthash"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func owner(kind, name string) Owner {
	return Owner{APIVersion: "apps/v1", Kind: kind, Name: name, UID: "uid-" + name}
}

func cm(name, base string, age int, owners []Owner, managed ...string) *Hashed {
	return &Hashed{
		Target: Target{Kind: "ConfigMap", Namespace: "shop", Name: name},
		UID:    "uid-" + name, ResourceVersion: "1",
		Created: t0.Add(time.Duration(age) * time.Minute), BaseName: base,
		Owners: owners, Managed: managed,
	}
}

func uses(o Owner, names ...string) Referrer {
	r := Referrer{Owner: o, Namespace: "shop"}
	for _, n := range names {
		r.Refs = append(r.Refs, Target{Kind: "ConfigMap", Namespace: "shop", Name: n})
	}
	return r
}

// revision is uses for a revision a controller made.
func revision(o Owner, names ...string) Referrer {
	r := uses(o, names...)
	r.Role = Revision
	return r
}

func decisionOf(t *testing.T, ds []Decision, name string) Decision {
	t.Helper()
	for _, d := range ds {
		if d.Object.Name == name {
			return d
		}
	}
	t.Fatalf("no decision for %s", name)
	return Decision{}
}

func names(os []Owner) string {
	var s []string
	for _, o := range os {
		s = append(s, o.String())
	}
	return strings.Join(s, ",")
}

// TestPlanRollout: a Deployment moved from v1 to v2; its old ReplicaSet
// still uses v1. v1 loses the Deployment and keeps the ReplicaSet, so the
// garbage collector deletes it after the ReplicaSet; v2, which the
// Deployment names, is pinned: gc removes its own owners (a Deployment
// and a pod of an earlier run's rule) and gives it none.
func TestPlanRollout(t *testing.T) {
	dep, rs1, rs2, pod := owner("Deployment", "app"), owner("ReplicaSet", "app-1"), owner("ReplicaSet", "app-2"), owner("Pod", "app-2-x")
	podRef := uses(pod, "cfg-v2")
	podRef.Role = PodOf
	s := &Snapshot{
		Hashed: []*Hashed{
			cm("cfg-v1", "cfg", 0, []Owner{dep, rs1}, dep.UID, rs1.UID),
			cm("cfg-v2", "cfg", 1, []Owner{dep, pod}, dep.UID, pod.UID),
		},
		Referrers: []Referrer{uses(dep, "cfg-v2"), revision(rs1, "cfg-v1"), revision(rs2, "cfg-v2"), podRef},
	}
	ds := Plan(s)
	v1 := decisionOf(t, ds, "cfg-v1")
	if v1.Action != Own || v1.Pinned || names(v1.Owners) != "ReplicaSet/app-1" || names(v1.Removed) != "Deployment/app" || len(v1.Added) != 0 {
		t.Errorf("v1: %+v", v1)
	}
	v2 := decisionOf(t, ds, "cfg-v2")
	if v2.Action != Own || !v2.Pinned || len(v2.Owners)+len(v2.Added) != 0 || names(v2.Removed) != "Deployment/app,Pod/app-2-x" ||
		!strings.HasPrefix(v2.Reason, "pinned: Deployment/app names it") {
		t.Errorf("v2: %+v", v2)
	}
}

// TestPlanPinnedByWhatIsApplied: whatever someone applied pins what it
// names, whatever else names it and whichever owners gc gave it before:
// a ServiceAccount's pull secret, an Ingress's TLS secret, a bare Pod or
// Job, a ReplicaSet no Deployment controls (Role Pinned), a cluster-scoped
// object naming it without a namespace. Another tool's owners stay.
func TestPlanPinnedByWhatIsApplied(t *testing.T) {
	rs, other := owner("ReplicaSet", "app-1"), owner("Thing", "theirs")
	secret := func(name string, owners []Owner, managed ...string) *Hashed {
		h := cm(name, name, 0, owners, managed...)
		h.Kind = "Secret"
		return h
	}
	named := func(kind, name, secretName string) Referrer {
		return Referrer{Owner: owner(kind, name), Namespace: "shop", Refs: []Target{{Kind: "Secret", Namespace: "shop", Name: secretName}}}
	}
	wide := Referrer{Owner: owner("StorageClass", "fast"), Refs: []Target{{Kind: "Secret", Name: "csi-creds"}}}
	s := &Snapshot{
		Hashed: []*Hashed{
			secret("pull", []Owner{rs}, rs.UID),
			secret("tls", []Owner{rs, other}, rs.UID),
			secret("bare", nil),
			secret("csi-creds", []Owner{rs}, rs.UID),
		},
		Referrers: []Referrer{
			named("ServiceAccount", "app", "pull"), named("Ingress", "web", "tls"), named("Pod", "debug", "bare"), named("Job", "migrate", "bare"),
			wide,
			{Owner: rs, Namespace: "shop", Role: Revision, Refs: []Target{{Kind: "Secret", Namespace: "shop", Name: "pull"}, {Kind: "Secret", Namespace: "shop", Name: "tls"}}},
		},
	}
	ds := Plan(s)
	for name, want := range map[string]struct {
		action  Action
		removed string
	}{"pull": {Own, "ReplicaSet/app-1"}, "tls": {Own, "ReplicaSet/app-1"}, "bare": {Unchanged, ""}, "csi-creds": {Own, "ReplicaSet/app-1"}} {
		d := decisionOf(t, ds, name)
		if !d.Pinned || d.Action != want.action || names(d.Removed) != want.removed || len(d.Owners) != 0 {
			t.Errorf("%s: %+v, want pinned, %s, removed %q", name, d, want.action, want.removed)
		}
	}
	if d := decisionOf(t, ds, "bare"); d.Reason != "pinned: Job/migrate, Pod/debug names it; no owner of gc's, so no delete, replace or prune of a workload takes it" {
		t.Errorf("bare: %q", d.Reason)
	}
}

// TestPlanPodsAreNeverOwners: a ConfigMap that 300 pods of one ReplicaSet
// name gets one owner, the ReplicaSet; the pods an earlier rule made
// owners lose that, and the report line names one owner. A version only
// pods name is kept, never deleted, while they run.
func TestPlanPodsAreNeverOwners(t *testing.T) {
	rs := owner("ReplicaSet", "app-1")
	s := &Snapshot{Hashed: []*Hashed{cm("cfg-v1", "cfg", 0, nil), cm("cfg-v0", "cfg", -1, nil)}, Referrers: []Referrer{revision(rs, "cfg-v1")}}
	var managed []string
	for i := range 300 {
		p := owner("Pod", fmt.Sprintf("app-1-%d", i))
		s.Hashed[0].Owners = append(s.Hashed[0].Owners, p)
		managed = append(managed, p.UID)
		r := uses(p, "cfg-v1")
		if i == 0 {
			r.Refs = append(r.Refs, Target{Kind: "ConfigMap", Namespace: "shop", Name: "cfg-v0"}) // a pod of a revision already gone
		}
		r.Role = PodOf
		s.Referrers = append(s.Referrers, r)
	}
	s.Hashed[0].Managed = managed
	ds := Plan(s)
	d := decisionOf(t, ds, "cfg-v1")
	if d.Action != Own || names(d.Owners) != "ReplicaSet/app-1" || len(d.Removed) != 300 {
		t.Errorf("cfg-v1: %s, owners %s, %d removed", d.Action, names(d.Owners), len(d.Removed))
	}
	if d := decisionOf(t, ds, "cfg-v0"); d.Action != Keep || !strings.Contains(d.Reason, "Pod/app-1-0 still names it") {
		t.Errorf("cfg-v0: %+v", d)
	}
}

// TestPlanSecondRunChangesNothing: once applied, the same cluster plans no change.
func TestPlanSecondRunChangesNothing(t *testing.T) {
	dep, rs := owner("Deployment", "app"), owner("ReplicaSet", "app-1")
	s := &Snapshot{
		Hashed:    []*Hashed{cm("cfg-v1", "cfg", 0, []Owner{rs}, rs.UID), cm("cfg-v2", "cfg", 1, nil)},
		Referrers: []Referrer{uses(dep, "cfg-v2"), revision(rs, "cfg-v1")},
	}
	r := NewReport(Plan(s), false)
	if r.Changed() || len(r.Objects) != 0 || r.Summary.Unchanged != 2 || r.Summary.Pinned != 1 {
		t.Errorf("second run: %+v", r)
	}
}

// TestPlanKeepsOthersAndGoneOwners: another tool's owner reference is never
// removed or duplicated, and a managed owner that is gone (not listed)
// stays for the garbage collector, which deletes the object after it.
func TestPlanKeepsOthersAndGoneOwners(t *testing.T) {
	other, gone, rs := owner("Thing", "theirs"), owner("ReplicaSet", "app-0"), owner("ReplicaSet", "app-1")
	s := &Snapshot{
		Hashed: []*Hashed{
			cm("theirs", "theirs", 0, []Owner{other}),
			cm("cfg-v0", "cfg", 0, []Owner{gone}, gone.UID),
			cm("shared", "shared", 0, []Owner{rs}), // another tool already names the same owner
		},
		Referrers: []Referrer{revision(rs, "shared", "cfg-v1")},
	}
	ds := Plan(s)
	if d := decisionOf(t, ds, "theirs"); d.Action != Unchanged || len(d.Owners) != 0 {
		t.Errorf("another tool's: %+v", d)
	}
	if d := decisionOf(t, ds, "cfg-v0"); d.Action != Unchanged || names(d.Owners) != "ReplicaSet/app-0" {
		t.Errorf("gone owner: %+v", d)
	}
	if d := decisionOf(t, ds, "shared"); d.Action != Unchanged || len(d.Added) != 0 {
		t.Errorf("owner already named by another tool: %+v", d)
	}
}

// TestPlanUnowned: an object nothing listed names is deleted only when a
// newer version of its name is in use; otherwise kept with the reason.
func TestPlanUnowned(t *testing.T) {
	dep := owner("Deployment", "app")
	s := &Snapshot{
		Hashed: []*Hashed{
			cm("cfg-v1", "cfg", 0, nil),
			cm("cfg-v2", "cfg", 1, nil),
			cm("cfg-v3", "cfg", 2, nil), // newest, unused: kept
			cm("lone-v1", "lone", 0, nil),
			cm("remote", "remote", 0, nil),
			cm("was-used", "cfg", 0, []Owner{dep}, dep.UID),
		},
		Referrers: []Referrer{
			uses(dep, "cfg-v2"),
			{Owner: owner("Job", "elsewhere"), Namespace: "other", Role: Revision, Refs: []Target{{Kind: "ConfigMap", Namespace: "shop", Name: "remote"}}},
		},
	}
	ds := Plan(s)
	for name, want := range map[string]Action{"cfg-v1": Delete, "cfg-v2": Unchanged, "cfg-v3": Keep, "lone-v1": Keep, "remote": Keep, "was-used": Delete} {
		if d := decisionOf(t, ds, name); d.Action != want {
			t.Errorf("%s: %s (%s), want %s", name, d.Action, d.Reason, want)
		}
	}
	if d := decisionOf(t, ds, "was-used"); names(d.Removed) != "Deployment/app" {
		t.Errorf("was-used loses its owner first: %+v", d)
	}
}

// TestReportNamesNoData: the report names objects and owners, its
// namespace, and says what happened; --dry-run says it changed nothing.
func TestReportNamesNoData(t *testing.T) {
	dep, rs := owner("Deployment", "app"), owner("ReplicaSet", "app-1")
	s := &Snapshot{
		Hashed:    []*Hashed{cm("cfg-v0", "cfg", -1, nil), cm("cfg-v1", "cfg", 0, nil), cm("cfg-v2", "cfg", 1, nil)},
		Referrers: []Referrer{uses(dep, "cfg-v2"), revision(rs, "cfg-v1")},
	}
	var text, js bytes.Buffer
	r := NewReport(Plan(s), true)
	r.Scope("shop", s)
	if err := r.Write(&text, "text"); err != nil {
		t.Fatal(err)
	}
	want := `shop/configmap/cfg-v0: would delete; owners: none; nothing listed uses it and a newer version, cfg-v2, is in use
shop/configmap/cfg-v1: would set owners; owners: ReplicaSet/app-1 (+ReplicaSet/app-1); revisions only: the garbage collector deletes it with its last revision
gc: namespace shop: would change (dry run: nothing changed) 2 of 3 hashed objects: 1 owner updates, 1 deleted; 1 pinned by what is applied, 0 kept unproven, 1 unchanged
`
	if text.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), want)
	}
	if err := r.Write(&js, "json"); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || !back.DryRun || back.Summary.Deleted != 1 || len(back.Objects) != 2 || back.Namespace != "shop" {
		t.Errorf("json: %v %s", err, js.String())
	}
}

// TestReportNamesItsNamespaces: -n names the namespace, and an empty one
// with no workloads says so; -A counts the namespaces that hold objects.
func TestReportNamesItsNamespaces(t *testing.T) {
	dep := owner("Deployment", "app")
	full := &Snapshot{Hashed: []*Hashed{cm("cfg-v1", "cfg", 0, nil)}, Referrers: []Referrer{uses(dep, "cfg-v1"), {Owner: owner("Deployment", "b"), Namespace: "web"}}}
	for _, c := range []struct {
		ns   string
		s    *Snapshot
		want string
	}{
		{"nope", &Snapshot{}, "gc: namespace nope: nothing to change: no workloads and no hashed objects in it (is it the namespace meant?)\n"},
		{"quiet", &Snapshot{Referrers: []Referrer{
			{Owner: Owner{APIVersion: "v1", Kind: "ServiceAccount", Name: "default"}, Namespace: "quiet"},
			{Owner: Owner{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "view"}},
		}}, "gc: namespace quiet: nothing to change: no workloads and no hashed objects in it (is it the namespace meant?)\n"},
		{"shop", &Snapshot{Referrers: []Referrer{uses(dep)}}, "gc: namespace shop: nothing to change: 0 hashed objects (0 pinned by what is applied), 0 kept unproven\n"},
		{"", full, "gc: all namespaces (2 hold objects gc lists): nothing to change: 1 hashed objects (1 pinned by what is applied), 0 kept unproven\n"},
		{"", &Snapshot{}, "gc: all namespaces (0 hold objects gc lists): nothing to change: no workloads and no hashed objects\n"},
	} {
		r := NewReport(Plan(c.s), false)
		r.Scope(c.ns, c.s)
		var out bytes.Buffer
		if err := r.Write(&out, "text"); err != nil {
			t.Fatal(err)
		}
		if out.String() != c.want {
			t.Errorf("-n %q: %q, want %q", c.ns, out.String(), c.want)
		}
	}
}

// TestMaybeMissing: a hash-suffixed name desired state names in the
// namespace and gc did not list is a candidate, once; a revision's, a
// listed one's, an unsuffixed one's (made elsewhere) and another
// namespace's are not.
func TestMaybeMissing(t *testing.T) {
	dep, rs := owner("Deployment", "app2"), owner("ReplicaSet", "app2-1")
	s := &Snapshot{
		Hashed: []*Hashed{cm("cfg-5g2m7h8k9t", "cfg", 0, nil)},
		Referrers: []Referrer{
			uses(dep, "cfg-5g2m7h8k9t", "app-config-9tk4hbb2g6", "made-elsewhere", "app-config-9tk4hbb2g6"),
			uses(owner("Deployment", "app3"), "app-config-9tk4hbb2g6"),
			revision(rs, "old-config-2b8ddgm6tf"),
			{Owner: owner("Job", "x"), Namespace: "other", Refs: []Target{{Kind: "ConfigMap", Namespace: "other", Name: "other-cfg-2b8ddgm6tf"}}},
		},
	}
	var got []string
	for _, m := range MaybeMissing(s, "shop") {
		got = append(got, m.String())
	}
	want := []string{"Deployment shop/app2 names ConfigMap app-config-9tk4hbb2g6, which does not exist: apply the render again"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := len(MaybeMissing(s, "")); n != 2 {
		t.Errorf("every namespace: %d candidates, want 2", n)
	}
	for name, want := range map[string]bool{"a-5g2m7h8k9t": true, "5g2m7h8k9t": false, "a-5g2m7h8k9": false, "a-5g2m7h8k9a": false, "a_5g2m7h8k9t": false} {
		if HashSuffixed(name) != want {
			t.Errorf("HashSuffixed(%q) = %v", name, !want)
		}
	}
}

// TestReferencesAsTheHashStageReads: a cluster object's references are
// found by the hash stage's table, projected volumes and env included; a
// StatefulSet's ControllerRevision is read as the template it restores;
// the profile's fields count on custom kinds.
func TestReferencesAsTheHashStageReads(t *testing.T) {
	st, err := contenthash.New(profiles.Hash{References: []profiles.HashReference{{
		Kind: profiles.Str{Value: "Pipeline"}, Path: profiles.Str{Value: "spec/configRef"}, To: profiles.Str{Value: "ConfigMap"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	decode := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	dep := decode(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a","managedFields":[{"manager":"x"}]},
	  "spec":{"template":{"spec":{
	    "volumes":[{"name":"p","projected":{"sources":[{"configMap":{"name":"proj"}},{"secret":{"name":"psec"}}]}}],
	    "imagePullSecrets":[{"name":"pull"}],
	    "containers":[{"name":"c","env":[{"name":"X","valueFrom":{"secretKeyRef":{"name":"envsec","key":"k"}}}],
	      "envFrom":[{"configMapRef":{"name":"from"}}]}]}}},"status":{"replicas":1}}`)
	rev := decode(`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"db-1"},"revision":1,
	  "data":{"spec":{"template":{"$patch":"replace","spec":{"volumes":[{"name":"v","configMap":{"name":"db-cfg"}}]}}}}}`)
	custom := decode(`{"apiVersion":"ci.example/v1","kind":"Pipeline","metadata":{"name":"p"},"spec":{"configRef":"pipe-cfg"}}`)
	for _, c := range []struct {
		obj  map[string]any
		want string
	}{
		{dep, "ConfigMap/from ConfigMap/proj Secret/envsec Secret/psec Secret/pull"},
		{RevisionView(rev, "StatefulSet"), "ConfigMap/db-cfg"},
		{custom, "ConfigMap/pipe-cfg"},
	} {
		var got []string
		for _, r := range References(st.References(), Object(c.obj), "shop") {
			if r.Namespace != "shop" {
				t.Errorf("%v in namespace %s", r, r.Namespace)
			}
			got = append(got, r.Kind+"/"+r.Name)
		}
		slices.Sort(got)
		if strings.Join(got, " ") != c.want {
			t.Errorf("got %v, want %s", got, c.want)
		}
	}
}
