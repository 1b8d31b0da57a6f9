package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/krender/krender/internal/testing/testtool"
)

const helmExample = "../../../examples/helm-post-renderer"

// helmTool finds Helm 3: Helm 4's --post-renderer takes only a plugin name.
func helmTool(t *testing.T) string {
	t.Helper()
	root, _ := filepath.Abs("../../..")
	h := testtool.Find(t, "KRENDER_HELM", []string{filepath.Join(root, ".cache", "bin", "helm"), "helm"},
		"the Helm tier runs krender as the --post-renderer of helm template and helm install on examples/helm-post-renderer (hack/tools.sh builds v3.22.0)")
	v, err := exec.Command(h, "version", "--short").Output()
	if err != nil || !bytes.HasPrefix(v, []byte("v3.")) {
		t.Fatalf("%s version: %q, %v: want Helm 3 (Helm 4's --post-renderer takes a plugin, not a program)", h, v, err)
	}
	return h
}

// discovery is what Helm 3 asks of an API server besides objects: its
// version and resource types (the chart's capabilities).
var discovery = map[string]string{
	"/version": `{"major":"1","minor":"33","gitVersion":"v1.33.0"}`,
	"/api":     `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]}`,
	"/apis": `{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],` +
		`"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}`,
	"/api/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[` +
		`{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","create"]},` +
		`{"name":"services","singularName":"service","namespaced":true,"kind":"Service","verbs":["get","create"]}]}`,
	"/apis/apps/v1": `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[` +
		`{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","create"]}]}`,
}

// discoveryServer answers discovery and nothing else (a request for
// anything more fails the test); it returns a kubeconfig naming it.
func discoveryServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := discovery[r.URL.Path]
		if !ok || r.Method != http.MethodGet {
			t.Errorf("Helm asked the API server for %s %s", r.Method, r.URL)
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"kubeconfig": fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: discovery, cluster: {server: %q}}]
users: [{name: nobody, user: {}}]
contexts: [{name: discovery, context: {cluster: discovery, user: nobody}}]
current-context: discovery
`, srv.URL)})
	return filepath.Join(dir, "kubeconfig")
}

// helmCmd runs Helm with its own empty home and the built krender as the
// example wrapper's $KRENDER, without a cluster: with the memory driver and
// HELM_MEMORY_DRIVER_DATA (here no releases), Helm 3 keeps releases in
// memory and sends objects to a client of its own that prints nothing, the
// way Helm's own command tests run install; only discovery goes out.
func helmCmd(t *testing.T, helm, krender string, args ...string) (string, string, error) {
	t.Helper()
	home := t.TempDir()
	testtool.WriteFiles(t, home, map[string]string{"releases.yaml": "[]\n"})
	cmd := exec.Command(helm, args...)
	cmd.Env = append(os.Environ(), "KRENDER="+krender,
		"HELM_DRIVER=memory", "HELM_MEMORY_DRIVER_DATA="+filepath.Join(home, "releases.yaml"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"), "KUBECONFIG="+discoveryServer(t))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// objectsByID decodes a stream as kubectl does, keyed Kind/name.
func objectsByID(t *testing.T, stream string) map[string]map[string]any {
	t.Helper()
	docs, err := testtool.KubectlDocs([]byte(stream))
	if err != nil {
		t.Fatalf("%v in\n%s", err, stream)
	}
	out := map[string]map[string]any{}
	for _, d := range docs {
		var o map[string]any
		if err := json.Unmarshal(d, &o); err != nil {
			t.Fatal(err)
		}
		md, _ := o["metadata"].(map[string]any)
		out[fmt.Sprintf("%v/%v", o["kind"], md["name"])] = o
	}
	return out
}

// at follows keys and list indexes through decoded JSON.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

var hashedConfig = regexp.MustCompile(`^shop-config-[a-z0-9]{10}$`)

// checkPostRendered: the ConfigMap carries a content hash, the Deployment
// mounts it by its new name, and the pods get the profile zone's hostAliases.
// It returns the ConfigMap's name.
func checkPostRendered(t *testing.T, objs map[string]map[string]any) string {
	t.Helper()
	var cm string
	for id, o := range objs {
		if name, ok := strings.CutPrefix(id, "ConfigMap/"); ok {
			if cm != "" {
				t.Errorf("two ConfigMaps: %s and %s", cm, name)
			}
			cm = name
			if l := at(o, "metadata", "labels", "krender.io/name"); l != "shop-config" {
				t.Errorf("ConfigMap %s: label krender.io/name %v, want shop-config", name, l)
			}
		}
	}
	if !hashedConfig.MatchString(cm) {
		t.Errorf("ConfigMap name %q: want shop-config-<hash>", cm)
	}
	d, ok := objs["Deployment/shop"]
	if !ok {
		t.Fatalf("no Deployment/shop among %v", keys(objs))
	}
	if got := at(d, "spec", "template", "spec", "volumes", 0, "configMap", "name"); got != cm {
		t.Errorf("the Deployment mounts ConfigMap %v, want %s", got, cm)
	}
	want := []any{map[string]any{"ip": "10.0.1.10", "hostnames": []any{"fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com"}}}
	if got := at(d, "spec", "template", "spec", "hostAliases"); !reflect.DeepEqual(got, want) {
		t.Errorf("hostAliases: %v, want %v", got, want)
	}
	if _, ok := objs["Service/shop"]; !ok || len(objs) != 3 {
		t.Errorf("objects %v: want the ConfigMap, Deployment/shop and Service/shop", keys(objs))
	}
	return cm
}

func keys(m map[string]map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestHelmPostRenderer runs the real Helm 3 with the example's wrapper as
// --post-renderer on the example chart: helm template and helm install
// (client-side dry run) write what `krender render -p profile.yaml -` makes
// of the chart's plain output, hashed names, rewritten references and zone
// host entries; a change of values gives a new name; krender's errors, and
// --post-renderer-args reaching it, fail the release with its message.
func TestHelmPostRenderer(t *testing.T) {
	helm := helmTool(t)
	bin := testtool.Krender(t)
	dir, err := filepath.Abs(helmExample)
	if err != nil {
		t.Fatal(err)
	}
	chart, wrapper := filepath.Join(dir, "chart"), filepath.Join(dir, "krender-post-render")

	plain, stderr, err := helmCmd(t, helm, bin, "template", "shop", chart)
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	direct := exec.Command(bin, "render", "-p", filepath.Join(dir, "profile.yaml"), "-")
	direct.Stdin = strings.NewReader(plain)
	want, err := direct.Output()
	if err != nil {
		t.Fatalf("helm template | krender render -p profile.yaml -: %v", err)
	}

	got, stderr, err := helmCmd(t, helm, bin, "template", "shop", chart, "--post-renderer", wrapper)
	if err != nil {
		t.Fatalf("helm template --post-renderer: %v\n%s", err, stderr)
	}
	objs := objectsByID(t, got)
	cm := checkPostRendered(t, objs)
	if w := objectsByID(t, string(want)); !reflect.DeepEqual(objs, w) {
		t.Errorf("helm template --post-renderer differs from helm template | krender render:\n%s\n---\n%s", got, want)
	}

	got, stderr, err = helmCmd(t, helm, bin, "template", "shop", chart, "--post-renderer", wrapper, "--set", "config.logLevel=debug")
	if err != nil {
		t.Fatalf("helm template --set: %v\n%s", err, stderr)
	}
	if cm2 := checkPostRendered(t, objectsByID(t, got)); cm2 == cm {
		t.Errorf("config.logLevel=debug kept the ConfigMap name %s: the hash must follow the data", cm)
	}

	out, stderr, err := helmCmd(t, helm, bin, "install", "shop", chart, "--dry-run=client", "--namespace", "shop", "--post-renderer", wrapper)
	if err != nil {
		t.Fatalf("helm install --dry-run=client --post-renderer: %v\n%s", err, stderr)
	}
	_, manifest, ok := strings.Cut(out, "\nMANIFEST:\n")
	if !ok {
		t.Fatalf("helm install printed no MANIFEST:\n%s", out)
	}
	if objs := objectsByID(t, manifest); checkPostRendered(t, objs) != cm {
		t.Errorf("helm install names the ConfigMap differently from helm template (%s)", cm)
	}

	out, stderr, err = helmCmd(t, helm, bin, "install", "shop", chart, "--dry-run=client", "--post-renderer", wrapper,
		"--post-renderer-args", "--tenant", "--post-renderer-args", "nobody")
	if err == nil {
		t.Fatalf("helm install with a krender error succeeded:\n%s", out)
	}
	if !strings.Contains(stderr, "-t nobody: profile") || strings.Contains(out, "kind:") {
		t.Errorf("want krender's error and no manifests; stdout:\n%s\nstderr:\n%s", out, stderr)
	}
}
