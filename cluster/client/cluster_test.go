package client

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/krender/krender/cluster/gc"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/contenthash"
)

const secretValue = "hunter2-never-printed"

// fleet fills f with apps Deployments, each with versions hashed
// ConfigMaps (a minute apart), one hashed Secret, and rs ReplicaSets that
// spread over the versions, the newest using the newest; the Deployment
// (their controller) uses the newest version and the Secret too. With old, each app also has a version
// older than all, which nothing uses.
func fleet(f *fakeAPI, apps, versions, rs int, old bool) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for a := range apps {
		base := fmt.Sprintf("cfg-%d", a)
		cm := func(v int, name string) {
			f.add("/v1/configmaps", "ConfigMap", map[string]any{
				"metadata": map[string]any{"name": name, "labels": map[string]any{contenthash.NameLabel: base},
					"creationTimestamp": t0.Add(time.Duration(v) * time.Minute).Format(time.RFC3339)},
				"data": map[string]any{"level": "info"},
			})
		}
		if old {
			cm(-1, base+"-old")
		}
		for v := range versions {
			cm(v, fmt.Sprintf("%s-v%d", base, v))
		}
		secret := fmt.Sprintf("db-%d-abc", a)
		f.add("/v1/secrets", "Secret", map[string]any{
			"metadata": map[string]any{"name": secret, "labels": map[string]any{contenthash.NameLabel: fmt.Sprintf("db-%d", a)},
				"creationTimestamp": t0.Format(time.RFC3339)},
			"data": map[string]any{"password": secretValue},
		})
		tpl := func(v int) map[string]any {
			return map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": base}}, "spec": map[string]any{
				"volumes": []any{map[string]any{"name": "cfg", "configMap": map[string]any{"name": fmt.Sprintf("%s-v%d", base, v)}}},
				"containers": []any{map[string]any{"name": "app", "image": "app:1",
					"env":     []any{map[string]any{"name": "PW", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": secret, "key": "password"}}}},
					"command": []any{"sh", "-c", "exec app --config /etc/app"}}},
			}}
		}
		f.add("apps/v1/deployments", "Deployment", map[string]any{
			"metadata": map[string]any{"name": base}, "spec": map[string]any{"replicas": 0, "template": tpl(versions - 1)},
		})
		for r := range rs {
			f.add("apps/v1/replicasets", "ReplicaSet", map[string]any{
				"metadata": map[string]any{"name": fmt.Sprintf("%s-%d", base, r), "ownerReferences": []any{
					map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": base, "uid": "uid-Deployment-" + base, "controller": true}}},
				"spec": map[string]any{"replicas": 0, "template": tpl(r * versions / rs)},
			})
		}
	}
}

func options(t testing.TB) gc.Options {
	st, err := contenthash.New(profiles.Hash{})
	if err != nil {
		t.Fatal(err)
	}
	return gc.Options{Table: st.References()}
}

// TestCollectListsOncePerKindAndConverges: the first run lists each kind
// once, gives the versions only old ReplicaSets name those as owners,
// leaves the versions the Deployments name (pinned) without any, and
// deletes the unused old versions; a second run lists again and changes
// nothing, and says so. Secrets are only ever asked for as metadata.
func TestCollectListsOncePerKindAndConverges(t *testing.T) {
	f := newFakeAPI()
	fleet(f, 3, 4, 4, true)
	c := f.clients(t)
	r, err := Collect(context.Background(), c, "shop", options(t))
	if err != nil {
		t.Fatal(err)
	}
	kinds := int64(len(builtinKinds) + len(hashedResources))
	if f.lists.Load() != kinds || f.patches.Load() != 3*3 || f.deletes.Load() != 3 {
		t.Errorf("first run: %d lists, %d patches, %d deletes; want %d, 9, 3", f.lists.Load(), f.patches.Load(), f.deletes.Load(), kinds)
	}
	if r.Summary.Owned != 9 || r.Summary.Deleted != 3 || r.Summary.Pinned != 6 {
		t.Errorf("first run: %+v", r.Summary)
	}
	var out bytes.Buffer
	if err := r.Write(&out, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "shop/configmap/cfg-0-old: deleted; owners: none; nothing listed uses it and a newer version, cfg-0-v3, is in use") {
		t.Errorf("report:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "shop/configmap/cfg-0-v1: owners set; owners: ReplicaSet/cfg-0-1 (+ReplicaSet/cfg-0-1); revisions only: ") ||
		strings.Contains(out.String(), "db-0-abc") || strings.Contains(out.String(), "shop/configmap/cfg-0-v3:") {
		t.Errorf("report:\n%s", out.String())
	}

	f.lists.Store(0)
	f.patches.Store(0)
	f.deletes.Store(0)
	r, err = Collect(context.Background(), c, "shop", options(t))
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	r.Write(&out, "json")
	if f.lists.Load() != kinds || f.patches.Load()+f.deletes.Load() != 0 || r.Changed() {
		t.Errorf("second run: %d lists, %d patches, %d deletes:\n%s", f.lists.Load(), f.patches.Load(), f.deletes.Load(), out.String())
	}
	out.Reset()
	r.Write(&out, "text")
	if out.String() != "gc: namespace shop: nothing to change: 15 hashed objects (6 pinned by what is applied), 0 kept unproven\n" {
		t.Errorf("second run says %q", out.String())
	}
	for _, a := range f.accepts {
		if !strings.Contains(a, "as=PartialObjectMetadata") {
			t.Errorf("secrets asked for as %q: their data would be read", a)
		}
	}
	if len(f.accepts) == 0 {
		t.Error("no request about secrets seen")
	}
}

// TestWriteBetweenListAndPatch: another writer adds its owner reference
// to every object between gc's list and its patch. gc's preconditioned
// apply meets a conflict, reads the object again, plans it again and
// applies: both writers' owners are there.
func TestWriteBetweenListAndPatch(t *testing.T) {
	f := newFakeAPI()
	fleet(f, 2, 2, 2, false)
	theirs := map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "name": "theirs", "uid": "uid-theirs"}
	f.interfere = func(md map[string]any) {
		refs, _ := md["ownerReferences"].([]any)
		md["ownerReferences"] = append(refs, theirs)
	}
	r, err := Collect(context.Background(), f.clients(t), "shop", options(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Owned != 2 || f.gets.Load() != 2 || f.patches.Load() != 4 {
		t.Errorf("%+v; %d gets, %d patches: want 2 owner updates, each after one conflict and one get", r.Summary, f.gets.Load(), f.patches.Load())
	}
	for _, gvr := range []string{"/v1/configmaps", "/v1/secrets"} {
		for _, o := range f.objs[gvr] {
			md := o["metadata"].(map[string]any)
			if !f.interfered[md["name"].(string)] {
				continue
			}
			var names []string
			for _, x := range md["ownerReferences"].([]any) {
				names = append(names, x.(map[string]any)["kind"].(string)+"/"+x.(map[string]any)["name"].(string))
			}
			if len(names) < 2 || !slices.Contains(names, "ServiceAccount/theirs") {
				t.Errorf("%s: owners %v: an update was lost", md["name"], names)
			}
		}
	}
}

// TestDryRunChangesNothing: --dry-run sends no write and reports what a
// run would do.
func TestDryRunChangesNothing(t *testing.T) {
	f := newFakeAPI()
	fleet(f, 2, 2, 2, true)
	o := options(t)
	o.DryRun = true
	r, err := Collect(context.Background(), f.clients(t), "shop", o)
	if err != nil {
		t.Fatal(err)
	}
	if f.patches.Load()+f.deletes.Load() != 0 || r.Summary.Owned != 2 || r.Summary.Deleted != 2 {
		t.Errorf("dry run: %d patches, %d deletes, %+v", f.patches.Load(), f.deletes.Load(), r.Summary)
	}
}

// TestMissingPermissionNamesVerbAndResource: a 403 is one error naming the
// verb, the resource and the namespace, and pointing at the Role.
func TestMissingPermissionNamesVerbAndResource(t *testing.T) {
	for verb, want := range map[string]string{
		"list":  `gc: list pods in namespace "shop": pods is forbidden: User "ci" cannot list resource "pods"`,
		"patch": `gc: patch configmaps in namespace "shop": configmaps is forbidden: User "ci" cannot patch resource "configmaps"`,
	} {
		f := newFakeAPI()
		fleet(f, 1, 2, 2, false)
		f.forbid = verb
		_, err := Collect(context.Background(), f.clients(t), "shop", options(t))
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(docs/gc.md gives the Role gc needs)") {
			t.Errorf("%s forbidden: %v", verb, err)
		}
	}
}

// BenchmarkCollect: 10,000 hashed ConfigMaps (1,000 names, 10 versions)
// and 50,000 ReplicaSets in one namespace, through client-go against a
// server in memory. first is a run that gives every object its owners;
// again is the run after it, which changes nothing.
func BenchmarkCollect(b *testing.B) {
	const apps, versions, rs = 1000, 10, 50
	run := func(b *testing.B, f *fakeAPI, c *Clients) *gc.Report {
		r, err := Collect(context.Background(), c, "shop", options(b))
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	report := func(b *testing.B, f *fakeAPI) {
		n := float64(b.N)
		b.ReportMetric(float64(f.lists.Load())/n, "lists/op")
		b.ReportMetric(float64(f.patches.Load())/n, "patches/op")
		b.ReportMetric(float64(f.lists.Load()+f.patches.Load()+f.deletes.Load()+f.gets.Load()+f.other.Load())/n, "requests/op")
	}
	b.Run("first", func(b *testing.B) {
		var f *fakeAPI
		for range b.N {
			b.StopTimer()
			f = newFakeAPI()
			fleet(f, apps, versions, rs, false)
			c := f.clients(b)
			b.StartTimer()
			run(b, f, c)
		}
		f.lists.Store(f.lists.Load() * int64(b.N)) // per-iteration servers: scale to /op
		f.patches.Store(f.patches.Load() * int64(b.N))
		f.other.Store(f.other.Load() * int64(b.N))
		report(b, f)
	})
	b.Run("again", func(b *testing.B) {
		f := newFakeAPI()
		fleet(f, apps, versions, rs, false)
		c := f.clients(b)
		run(b, f, c)
		f.lists.Store(0)
		f.patches.Store(0)
		f.other.Store(0)
		b.ResetTimer()
		for range b.N {
			if r := run(b, f, c); r.Changed() {
				b.Fatal("the second run changed something")
			}
		}
		report(b, f)
	})
}
