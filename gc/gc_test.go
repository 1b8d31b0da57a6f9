package gc

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/krender/krender/contenthash"
	"github.com/krender/krender/profiles"
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
// garbage collector deletes it after the ReplicaSet; v2 gets both users.
func TestPlanRollout(t *testing.T) {
	dep, rs1, rs2 := owner("Deployment", "app"), owner("ReplicaSet", "app-1"), owner("ReplicaSet", "app-2")
	s := &Snapshot{
		Hashed: []*Hashed{
			cm("cfg-v1", "cfg", 0, []Owner{dep, rs1}, dep.UID, rs1.UID),
			cm("cfg-v2", "cfg", 1, nil),
		},
		Referrers: []Referrer{uses(dep, "cfg-v2"), uses(rs1, "cfg-v1"), uses(rs2, "cfg-v2")},
	}
	ds := Plan(s)
	v1 := decisionOf(t, ds, "cfg-v1")
	if v1.Action != Own || names(v1.Owners) != "ReplicaSet/app-1" || names(v1.Removed) != "Deployment/app" || len(v1.Added) != 0 {
		t.Errorf("v1: %+v", v1)
	}
	v2 := decisionOf(t, ds, "cfg-v2")
	if v2.Action != Own || names(v2.Owners) != "Deployment/app,ReplicaSet/app-2" || names(v2.Added) != "Deployment/app,ReplicaSet/app-2" {
		t.Errorf("v2: %+v", v2)
	}
}

// TestPlanSecondRunChangesNothing: once applied, the same cluster plans no change.
func TestPlanSecondRunChangesNothing(t *testing.T) {
	dep, rs := owner("Deployment", "app"), owner("ReplicaSet", "app-1")
	s := &Snapshot{
		Hashed:    []*Hashed{cm("cfg-v1", "cfg", 0, []Owner{dep, rs}, dep.UID, rs.UID)},
		Referrers: []Referrer{uses(dep, "cfg-v1"), uses(rs, "cfg-v1")},
	}
	r := NewReport(Plan(s), false)
	if r.Changed() || len(r.Objects) != 0 || r.Summary.Unchanged != 1 {
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
		Referrers: []Referrer{uses(rs, "shared", "cfg-v1")},
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

// TestPlanUnowned: an object no listed object uses is deleted only when a
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
			{Owner: owner("Job", "elsewhere"), Namespace: "other", Refs: []Target{{Kind: "ConfigMap", Namespace: "shop", Name: "remote"}}},
		},
	}
	ds := Plan(s)
	for name, want := range map[string]Action{"cfg-v1": Delete, "cfg-v2": Own, "cfg-v3": Keep, "lone-v1": Keep, "remote": Keep, "was-used": Delete} {
		if d := decisionOf(t, ds, name); d.Action != want {
			t.Errorf("%s: %s (%s), want %s", name, d.Action, d.Reason, want)
		}
	}
	if d := decisionOf(t, ds, "was-used"); names(d.Removed) != "Deployment/app" {
		t.Errorf("was-used loses its owner first: %+v", d)
	}
}

// TestReportNamesNoData: the report names objects and owners and says what
// happened; --dry-run says it changed nothing.
func TestReportNamesNoData(t *testing.T) {
	dep := owner("Deployment", "app")
	s := &Snapshot{
		Hashed:    []*Hashed{cm("cfg-v1", "cfg", 0, nil), cm("cfg-v2", "cfg", 1, nil)},
		Referrers: []Referrer{uses(dep, "cfg-v2")},
	}
	var text, js bytes.Buffer
	r := NewReport(Plan(s), true)
	if err := r.Write(&text, "text"); err != nil {
		t.Fatal(err)
	}
	want := `shop/configmap/cfg-v1: would delete; owners: none; nothing listed uses it and a newer version, cfg-v2, is in use
shop/configmap/cfg-v2: would set owners; owners: Deployment/app (+Deployment/app); in use: the garbage collector deletes it once its last owner is gone
gc: would change (dry run: nothing changed) 2 of 2 hashed objects: 1 owner updates, 1 deleted; 0 kept unproven, 0 unchanged
`
	if text.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), want)
	}
	if err := r.Write(&js, "json"); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || !back.DryRun || back.Summary.Deleted != 1 || len(back.Objects) != 2 {
		t.Errorf("json: %v %s", err, js.String())
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
