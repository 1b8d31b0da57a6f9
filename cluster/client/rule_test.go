package client

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/krender/krender/cluster/gc"
	"github.com/krender/krender/render/contenthash"
)

// TestEveryTableKindIsListed: gc lists every kind whose references the
// render rewrites, so a field the hash stage's table gains is a field gc
// reads: a kind of the table that gc does not list fails here.
func TestEveryTableKindIsListed(t *testing.T) {
	all := append(slices.Clone(builtinKinds), optionalKinds...)
	refs := options(t).Table.Referrers()
	if len(refs) < 10 {
		t.Fatalf("the table reads %d kinds", len(refs))
	}
	for _, k := range refs {
		if !slices.ContainsFunc(all, func(l listed) bool {
			return l.Kind == k.Kind && (k.Group == "" || l.Group == k.Group) && l.Cluster == k.Cluster
		}) {
			t.Errorf("the reference table reads %s (group %q, cluster-scoped %v), which gc does not list", k.Kind, k.Group, k.Cluster)
		}
	}
}

// owned gives md the owner references owners as gc's field manager
// applied them (an earlier run's, under whatever rule it had).
func owned(md map[string]any, owners ...map[string]any) map[string]any {
	fields := map[string]any{}
	var refs []any
	for _, o := range owners {
		refs = append(refs, o)
		fields[`k:{"uid":"`+o["uid"].(string)+`"}`] = map[string]any{}
	}
	md["ownerReferences"] = refs
	md["managedFields"] = []any{map[string]any{"manager": gc.FieldManager, "operation": "Apply", "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:ownerReferences": fields}}}}
	return md
}

func ref(kind, name string, controller bool) map[string]any {
	return map[string]any{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": "uid-" + kind + "-" + name, "controller": controller}
}

func podSpec(config, secret string) map[string]any {
	return map[string]any{
		"volumes": []any{map[string]any{"name": "cfg", "configMap": map[string]any{"name": config}}},
		"containers": []any{map[string]any{"name": "app", "image": "app:1",
			"envFrom": []any{map[string]any{"secretRef": map[string]any{"name": secret}}}}},
	}
}

// TestPinnedAndOwned is the rule on a cluster as an earlier gc left it,
// with every owner on every version: what the Deployment, the Ingress and
// the ServiceAccount name loses gc's owners, whatever they were (the
// Deployment, its pods, a ReplicaSet); the old version keeps its
// ReplicaSet alone, not one owner per pod; a name the second Deployment
// uses that the cluster lacks is reported. A second run changes nothing.
// Annotations are dropped as listed, but for those the table reads.
func TestPinnedAndOwned(t *testing.T) {
	const (
		oldCfg, newCfg = "app-config-2b8ddgm6tf", "app-config-9tk4hbb2g6"
		secret, tls    = "app-secret-5g2m7h8k9t", "web-tls-7c2kbm5fd4"
		pull, auth     = "pull-h7c2kd6gb5", "auth-b5fd47c2kh"
		missing        = "app2-config-cccc244c5b"
	)
	f := newFakeAPI()
	label := func(name, base string) map[string]any {
		return map[string]any{"name": name, "labels": map[string]any{contenthash.NameLabel: base},
			"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"` + secretValue + `"}}`}}
	}
	dep, rs1, rs2 := ref("Deployment", "app", false), ref("ReplicaSet", "app-1", false), ref("ReplicaSet", "app-2", false)
	var pods []map[string]any
	for i := range 40 {
		pods = append(pods, map[string]any{"apiVersion": "v1", "kind": "Pod", "name": fmt.Sprintf("app-2-%d", i), "uid": fmt.Sprintf("uid-Pod-app-2-%d", i)})
	}
	f.add("/v1/configmaps", "ConfigMap", map[string]any{"metadata": owned(label(oldCfg, "app-config"), dep, rs1)})
	f.add("/v1/configmaps", "ConfigMap", map[string]any{"metadata": owned(label(newCfg, "app-config"), append([]map[string]any{dep, rs2}, pods...)...)})
	for _, s := range []string{secret, tls, pull} {
		f.add("/v1/secrets", "Secret", map[string]any{"metadata": owned(label(s, strings.Split(s, "-")[0]), dep, rs1, rs2)})
	}
	f.add("/v1/secrets", "Secret", map[string]any{"metadata": label(auth, "auth")})
	f.add("apps/v1/deployments", "Deployment", map[string]any{
		"metadata": map[string]any{"name": "app", "annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
		"spec":     map[string]any{"template": map[string]any{"spec": podSpec(newCfg, secret)}}})
	f.add("apps/v1/deployments", "Deployment", map[string]any{
		"metadata": map[string]any{"name": "app2"}, "spec": map[string]any{"template": map[string]any{"spec": podSpec(missing, secret)}}})
	for name, cfg := range map[string]string{"app-1": oldCfg, "app-2": newCfg} {
		f.add("apps/v1/replicasets", "ReplicaSet", map[string]any{
			"metadata": map[string]any{"name": name, "ownerReferences": []any{ref("Deployment", "app", true)}},
			"spec":     map[string]any{"template": map[string]any{"spec": podSpec(cfg, secret)}}})
	}
	for i := range 40 {
		f.add("/v1/pods", "Pod", map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("app-2-%d", i), "ownerReferences": []any{ref("ReplicaSet", "app-2", true)}},
			"spec":     podSpec(newCfg, secret)})
	}
	f.add("networking.k8s.io/v1/ingresses", "Ingress", map[string]any{
		"metadata": map[string]any{"name": "web", "annotations": map[string]any{"nginx.ingress.kubernetes.io/auth-secret": auth}},
		"spec":     map[string]any{"tls": []any{map[string]any{"hosts": []any{"shop.example"}, "secretName": tls}}}})
	f.add("/v1/serviceaccounts", "ServiceAccount", map[string]any{
		"metadata": map[string]any{"name": "app"}, "imagePullSecrets": []any{map[string]any{"name": pull}}})

	c := f.clients(t)
	r, err := Collect(context.Background(), c, "shop", options(t))
	if err != nil {
		t.Fatal(err)
	}
	ownersOf := func(gvr, name string) string {
		_, o := f.find(gvr, name)
		var out []string
		refs, _ := o["metadata"].(map[string]any)["ownerReferences"].([]any)
		for _, x := range refs {
			out = append(out, x.(map[string]any)["kind"].(string)+"/"+x.(map[string]any)["name"].(string))
		}
		return strings.Join(out, ",")
	}
	for gvr, want := range map[[2]string]string{
		{"/v1/configmaps", oldCfg}: "ReplicaSet/app-1",
		{"/v1/configmaps", newCfg}: "",
		{"/v1/secrets", secret}:    "",
		{"/v1/secrets", tls}:       "",
		{"/v1/secrets", pull}:      "",
		{"/v1/secrets", auth}:      "",
	} {
		if got := ownersOf(gvr[0], gvr[1]); got != want {
			t.Errorf("%s: owners %q, want %q", gvr[1], got, want)
		}
	}
	var out bytes.Buffer
	if err := r.Write(&out, "text"); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"shop/configmap/" + newCfg + ": owners set; owners: none (-Deployment/app, Pod/app-2-0, ",
		"shop/secret/" + tls + ": owners set; owners: none (-Deployment/app, ReplicaSet/app-1, ReplicaSet/app-2); pinned: Ingress/web names it",
		"shop/secret/" + pull + ": owners set; owners: none (-Deployment/app, ReplicaSet/app-1, ReplicaSet/app-2); pinned: ServiceAccount/app names it",
		"shop/configmap/" + oldCfg + ": owners set; owners: ReplicaSet/app-1 (-Deployment/app); revisions only",
		"gc: namespace shop: changed 5 of 6 hashed objects: 5 owner updates, 0 deleted; 5 pinned by what is applied, 0 kept unproven, 1 unchanged; 1 named but missing\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if len(r.Missing) != 1 || r.Missing[0].String() != "Deployment shop/app2 names ConfigMap "+missing+", which does not exist: apply the render again" {
		t.Errorf("missing: %v", r.Missing)
	}
	if strings.Contains(text, secretValue) {
		t.Errorf("the report holds a secret value:\n%s", text)
	}

	r, err = Collect(context.Background(), c, "shop", options(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed() || len(r.Missing) != 1 {
		t.Errorf("second run: %+v", r.Summary)
	}
}

// TestDropAnnotations: what gc lists keeps no annotation but those the
// reference table reads; last-applied-configuration, which holds a
// client-side applied object whole, is gone as soon as it is listed.
func TestDropAnnotations(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		"kubectl.kubernetes.io/last-applied-configuration": `{"stringData":{"password":"` + secretValue + `"}}`,
		"nginx.ingress.kubernetes.io/auth-secret":          "auth",
	}}}}
	table := options(t).Table
	dropAnnotations(u, func(k string) bool { return table.ReadsAnnotation("Ingress", k) })
	if a := u.GetAnnotations(); len(a) != 1 || a["nginx.ingress.kubernetes.io/auth-secret"] != "auth" {
		t.Errorf("Ingress: %v", a)
	}
	dropAnnotations(u, func(k string) bool { return table.ReadsAnnotation("Deployment", k) })
	if _, has := u.Object["metadata"].(map[string]any)["annotations"]; has {
		t.Errorf("Deployment: %v", u.Object["metadata"])
	}
}

// TestRunEndsWithMissing: Run returns the report with the names the
// cluster lacks (Report.Missing), which the command line turns into
// warnings and its own exit status, and prints nothing itself.
func TestRunEndsWithMissing(t *testing.T) {
	f := newFakeAPI()
	f.add("apps/v1/deployments", "Deployment", map[string]any{
		"metadata": map[string]any{"name": "app2"}, "spec": map[string]any{"template": map[string]any{"spec": podSpec("app2-config-cccc244c5b", "plain")}}})
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	text := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '" + f.config(t).Host + "'}}]\n" +
		"users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u, namespace: shop}}]\ncurrent-context: x\n"
	if err := os.WriteFile(kc, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	o := options(t)
	o.Kubeconfig = kc
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Missing) != 1 || r.Missing[0].Object.Name != "app2-config-cccc244c5b" {
		t.Errorf("Run: missing %v", r.Missing)
	}
	var out bytes.Buffer
	if err := r.Write(&out, "text"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "gc: namespace shop: nothing to change: 0 hashed objects (0 pinned by what is applied), 0 kept unproven; 1 named but missing\n" {
		t.Errorf("report %q", out.String())
	}
}
