//go:build e2e

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/krender/krender/cluster/gc"
	"github.com/krender/krender/internal/testing/e2eserver"
)

// These tests need only an API server: they make the ReplicaSets and
// Deployments themselves (replicas: 0, no controller running), so what
// they hold is gc's writes, not the garbage collector's work (e2e/gc_test.go).

var kubeconfig string

func TestMain(m *testing.M) { os.Exit(e2eserver.Main(m, &kubeconfig)) }

func kubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// namespace makes a namespace of its own for a test: without
// kube-controller-manager a deleted one stays terminating, so each run
// takes a new name.
func namespace(t *testing.T, base string) string {
	name := base + "-" + strconv.FormatInt(time.Now().UnixNano()%(1<<40), 36)
	kubectl(t, "", "create", "namespace", name)
	t.Cleanup(func() {
		exec.Command("kubectl", "--kubeconfig", kubeconfig, "delete", "namespace", name, "--wait=false").Run()
	})
	return name
}

func restConfig(t *testing.T, user string) *rest.Config {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Impersonate.UserName = user
	return cfg
}

func collect(t *testing.T, cfg *rest.Config, ns string) (*gc.Report, error) {
	c, err := NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return Collect(context.Background(), c, ns, options(t))
}

// app is a hashed ConfigMap version and a Deployment using it.
func app(ns, name, version string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: %[2]s-%[3]s, namespace: %[1]s, labels: {krender.io/name: %[2]s}}
data: {v: %[3]s}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  # Paused: the deployment controller, where the cluster runs one, makes
  # no ReplicaSet of its own, so the revisions are the ones the tests write.
  paused: true
  replicas: 0
  selector: {matchLabels: {app: %[2]s}}
  template:%[4]s
`, ns, name, version, template(name, name+"-"+version))
}

func template(app, cm string) string {
	return fmt.Sprintf(`
    metadata: {labels: {app: %[1]s}}
    spec:
      containers: [{name: c, image: busybox, envFrom: [{configMapRef: {name: %[2]s}}]}]`, app, cm)
}

// oldRevision is the ReplicaSet name-old, a revision of the Deployment
// name (its controller) using version previous, with that version.
func oldRevision(t *testing.T, ns, name, previous string) {
	t.Helper()
	uid := strings.TrimSpace(kubectl(t, "", "get", "-n", ns, "deployment", name, "-o", "jsonpath={.metadata.uid}"))
	kubectl(t, configMap(ns, name, previous)+fmt.Sprintf(`---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: %[2]s-old
  namespace: %[1]s
  # Labelled as its selector says: a deployment controller, where the
  # cluster runs one, releases a ReplicaSet its selector does not match.
  labels: {app: %[2]s}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: %[2]s, uid: %[3]s, controller: true}]
spec:
  replicas: 0
  selector: {matchLabels: {app: %[2]s}}
  template:%[4]s
`, ns, name, uid, template(name, name+"-"+previous)), "apply", "-f", "-")
}

type ownerRef struct {
	Kind, Name, UID    string
	Controller         bool
	BlockOwnerDeletion bool
}

func owners(t *testing.T, ns, kind, name string) []string {
	t.Helper()
	var o struct {
		Metadata struct{ OwnerReferences []ownerRef }
	}
	if err := json.Unmarshal([]byte(kubectl(t, "", "get", "-n", ns, kind, name, "-o", "json")), &o); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range o.Metadata.OwnerReferences {
		if r.Controller || r.BlockOwnerDeletion {
			t.Errorf("%s/%s: owner %s/%s is a controller or blocks deletion", kind, name, r.Kind, r.Name)
		}
		out = append(out, r.Kind+"/"+r.Name)
	}
	slices.Sort(out)
	return out
}

// configMap is app's ConfigMap alone.
func configMap(ns, name, version string) string {
	a := app(ns, name, version)
	return a[:strings.Index(a, "---")]
}

// TestOwnersSurviveKubectlApply: the owners gc sets stay through a later
// `kubectl apply` of the same manifests, client-side and server-side, and
// a second gc run changes nothing. The version the Deployment names is
// pinned (no owner); the one only the old ReplicaSet names is its.
func TestOwnersSurviveKubectlApply(t *testing.T) {
	ns := namespace(t, "gc-apply")
	kubectl(t, app(ns, "client", "v2"), "apply", "-f", "-")
	kubectl(t, app(ns, "server", "v2"), "apply", "--server-side", "-f", "-")
	oldRevision(t, ns, "client", "v1")
	oldRevision(t, ns, "server", "v1")
	if _, err := collect(t, restConfig(t, ""), ns); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"client-v2": nil, "client-v1": {"ReplicaSet/client-old"},
		"server-v2": nil, "server-v1": {"ReplicaSet/server-old"},
	}
	check := func(when string) {
		for cm, w := range want {
			if got := owners(t, ns, "configmap", cm); !slices.Equal(got, w) {
				t.Errorf("%s: %s owners %v, want %v", when, cm, got, w)
			}
		}
	}
	check("after gc")
	// A label changed in the templates: each apply now writes the objects.
	release := func(m string) string {
		return strings.ReplaceAll(m, "labels: {krender.io/name:", "labels: {release: r2, krender.io/name:")
	}
	kubectl(t, release(app(ns, "client", "v2")+"---\n"+configMap(ns, "client", "v1")), "apply", "-f", "-")
	kubectl(t, release(app(ns, "server", "v2")+"---\n"+configMap(ns, "server", "v1")), "apply", "--server-side", "-f", "-")
	for cm := range want {
		if l := kubectl(t, "", "get", "-n", ns, "configmap", cm, "-o", "jsonpath={.metadata.labels.release}"); l != "r2" {
			t.Fatalf("%s: kubectl apply did not write it (label release %q)", cm, l)
		}
	}
	check("after kubectl apply")
	r, err := collect(t, restConfig(t, ""), ns)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed() {
		t.Errorf("a second run changed %+v", r.Summary)
	}
}

// TestConcurrentRunsLoseNoUpdate: two gc runs at once, while another
// writer adds its own owner reference to every ConfigMap: every owner gc
// must set is there, and every one the other writer set.
func TestConcurrentRunsLoseNoUpdate(t *testing.T) {
	const apps = 12
	ns := namespace(t, "gc-race")
	var all strings.Builder
	for i := range apps {
		all.WriteString(app(ns, fmt.Sprintf("a%d", i), "v2") + "---\n")
	}
	kubectl(t, all.String(), "apply", "-f", "-")
	for i := range apps {
		oldRevision(t, ns, fmt.Sprintf("a%d", i), "v1")
	}
	kubectl(t, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: theirs, namespace: "+ns+"}\n", "apply", "-f", "-")
	saUID := strings.TrimSpace(kubectl(t, "", "get", "-n", ns, "serviceaccount", "theirs", "-o", "jsonpath={.metadata.uid}"))

	theirs := func(i int) error {
		for _, v := range []string{"v1", "v2"} {
			patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ServiceAccount","name":"theirs","uid":%q}]}}`, saUID)
			out, err := exec.Command("kubectl", "--kubeconfig", kubeconfig, "patch", "-n", ns, "configmap", fmt.Sprintf("a%d-%s", i, v), "--type=strategic", "-p", patch).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
		}
		return nil
	}
	// The other writer's first half lands before gc lists, the rest while
	// both gc runs write.
	for i := range apps / 2 {
		if err := theirs(i); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 2 {
		wg.Go(func() {
			_, err := collect(t, restConfig(t, ""), ns)
			errs <- err
		})
	}
	wg.Go(func() {
		for i := apps / 2; i < apps; i++ {
			if err := theirs(i); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A run after the race may still have owners to set (a run that met a
	// conflict five times); after it, everything must hold.
	if _, err := collect(t, restConfig(t, ""), ns); err != nil {
		t.Fatal(err)
	}
	for i := range apps {
		for v, w := range map[string]string{"v2": "", "v1": "ReplicaSet/a%d-old"} {
			got := owners(t, ns, "configmap", fmt.Sprintf("a%d-%s", i, v))
			want := []string{"ServiceAccount/theirs"}
			if w != "" { // v2 is pinned: the Deployment names it
				want = append(want, fmt.Sprintf(w, i))
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("a%d-%s: owners %v, want %v", i, v, got, want)
			}
		}
	}
}

// roleFromDocs is the Role docs/gc.md gives, as written there, and the
// ClusterRole of cluster-scoped reads with its binding, for user.
func roleFromDocs(t *testing.T, ns, user string) (role, cluster string) {
	root, err := e2eserver.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(root + "/docs/gc.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n.*?)```").FindSubmatch(doc)
	c := regexp.MustCompile("(?s)```yaml\n(apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n.*?)```").FindSubmatch(doc)
	if m == nil || c == nil {
		t.Fatal("docs/gc.md has no Role or no ClusterRole")
	}
	name := "krender-gc-cluster-reads-" + ns
	cluster = strings.Replace(string(c[1]), "name: krender-gc-cluster-reads", "name: "+name, 1) +
		"---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: " + name + "}\n" +
		"roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: " + name + "}\n" +
		"subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: " + user + "}]\n"
	t.Cleanup(func() {
		exec.Command("kubectl", "--kubeconfig", kubeconfig, "delete", "clusterrole,clusterrolebinding", name, "--wait=false").Run()
	})
	return strings.ReplaceAll(string(m[1]), "namespace: shop", "namespace: "+ns), cluster
}

// TestLeastPrivilegeRole: gc runs under exactly the Role of docs/gc.md
// (impersonated), and without its patch verb fails with one error naming
// the verb and the resource, having changed nothing.
func TestLeastPrivilegeRole(t *testing.T) {
	ns := namespace(t, "gc-rbac")
	kubectl(t, app(ns, "web", "v2"), "apply", "-f", "-")
	oldRevision(t, ns, "web", "v1")
	kubectl(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: db-x1, namespace: "+ns+", labels: {krender.io/name: db}}\nstringData: {password: "+secretValue+"}\n", "apply", "-f", "-")
	role, cluster := roleFromDocs(t, ns, "gc-user")
	kubectl(t, cluster, "apply", "-f", "-")
	binding := "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: krender-gc, namespace: " + ns + "}\n" +
		"roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: krender-gc}\nsubjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: gc-user}]\n"

	noPatch := strings.Replace(role, "verbs: [get, list, patch, delete]", "verbs: [get, list, delete]", 1)
	if noPatch == role {
		t.Fatal("the Role in docs/gc.md has no [get, list, patch, delete] rule")
	}
	kubectl(t, noPatch+"---\n"+binding, "apply", "-f", "-")
	waitCan(t, ns, "list", "pods")
	waitCan(t, ns, "list", "storageclasses.storage.k8s.io")
	_, err := collect(t, restConfig(t, "gc-user"), ns)
	if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("gc: patch configmaps in namespace %q: ", ns)) || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("without patch: %v", err)
	}
	if got := owners(t, ns, "configmap", "web-v1"); len(got) != 0 {
		t.Errorf("without patch, owners %v were set", got)
	}

	kubectl(t, role+"---\n"+binding, "apply", "-f", "-")
	waitCan(t, ns, "patch", "configmaps")
	r, err := collect(t, restConfig(t, "gc-user"), ns)
	if err != nil {
		t.Fatalf("under the documented Role: %v", err)
	}
	var out strings.Builder
	r.Write(&out, "text")
	r.Write(&out, "json")
	if strings.Contains(out.String(), secretValue) {
		t.Errorf("the report holds a secret value:\n%s", out.String())
	}
	if got := owners(t, ns, "configmap", "web-v1"); !slices.Equal(got, []string{"ReplicaSet/web-old"}) {
		t.Errorf("under the documented Role: owners %v", got)
	}
}

// waitCan waits until the API server's RBAC caches let gc-user do verb on
// resource: a Role takes effect a moment after it is written.
func waitCan(t *testing.T, ns, verb, resource string) {
	t.Helper()
	for range 100 {
		out, _ := exec.Command("kubectl", "--kubeconfig", kubeconfig, "auth", "can-i", verb, resource, "-n", ns, "--as", "gc-user").Output()
		if strings.TrimSpace(string(out)) == "yes" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("gc-user still cannot %s %s", verb, resource)
}
