package cli

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loader"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/lint/check"
	"github.com/krender/krender/lint/validator"
	"github.com/krender/krender/model/manifest"
)

// repo reads the repository's bundled profiles and templates.
var repo = filesys.Dir("../../..")

// wrapList wraps objects as an orchestrator would send them.
func wrapList(t *testing.T, objs []*manifest.Object, spec string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, o := range objs {
		text, err := yaml.Dump(o.Node, yaml.WithIndent(2))
		if err != nil {
			t.Fatal(err)
		}
		for j, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
			if j == 0 {
				b.WriteString("  - " + line + "\n")
			} else {
				b.WriteString("    " + line + "\n")
			}
		}
	}
	b.WriteString("functionConfig:\n  apiVersion: krender.io/v1alpha1\n  kind: Render\n  metadata:\n    name: render\n  spec:\n")
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		b.WriteString("    " + line + "\n")
	}
	return b.String()
}

func runFn(t *testing.T, fsys filesys.Reader, in string) (map[string]any, string, error) {
	t.Helper()
	// The notes (stderr's messages) are TestNotesNameTheFile's subject, not these tests'.
	_, out, err := krmFunction(t.Context(), []byte(in), fsys, &action.Fn{FS: fsys, Validator: validator.APIServer{}})
	if err != nil {
		if len(out) > 0 {
			t.Fatalf("wrote output on error: %s", out)
		}
		return nil, "", err
	}
	var list map[string]any
	if err := yaml.Unmarshal(out, &list); err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, out)
	}
	return list, string(out), nil
}

// TestFnSameAsRender: the bundled templates as items, with the dev profile
// and one tenant, come out as `krender render` writes them (substitution,
// injection, zones, hashing and the name label).
func TestFnSameAsRender(t *testing.T) {
	tpls, err := loader.LoadTemplates(repo, []string{"templates"})
	if err != nil {
		t.Fatal(err)
	}
	in := wrapList(t, tpls, "profile: profiles/dev.yaml\ntenant: tenant-a\nset: {LOG_LEVEL: trace}")
	list, _, err := runFn(t, repo, in)
	if err != nil {
		t.Fatal(err)
	}
	e, err := action.Engine(repo, action.Options{Profile: "profiles/dev.yaml", Tenants: []string{"tenant-a"}, Set: []string{"LOG_LEVEL=trace"}, Paths: []string{"templates"}})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := output.WriteStream(e, &want); err != nil {
		t.Fatal(err)
	}
	items, _ := list["items"].([]any)
	var got []map[string]any
	for _, it := range items {
		got = append(got, it.(map[string]any))
	}
	wantObjs := testtool.DecodeAll(t, want.Bytes())
	if len(got) != len(wantObjs) || len(got) < 5 {
		t.Fatalf("%d items, render has %d objects", len(got), len(wantObjs))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], wantObjs[i]) {
			gy, _ := yaml.Dump(got[i])
			wy, _ := yaml.Dump(wantObjs[i])
			t.Errorf("item %d differs:\n--- fn\n%s--- render\n%s", i, gy, wy)
		}
	}
	if !strings.Contains(want.String(), "trace") || !strings.Contains(want.String(), "krender.io/name:") {
		t.Fatal("the comparison does not cover --set and hashing")
	}
}

const small = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  # the settings, read at start-up
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: app-config # as written
      annotations:
        krender.io/hash: suffix # no pod here consumes it: renamed all the same
        config.kubernetes.io/path: app/config.yaml
        config.kubernetes.io/index: '2'
        internal.config.kubernetes.io/path: app/config.yaml
        internal.config.kubernetes.io/index: '2'
        internal.config.kubernetes.io/id: '1'
        config.k8s.io/id: '1'
        kustomize.config.k8s.io/id: |
          kind: ConfigMap
          name: app-config
          version: v1
    data:
      greeting: ${GREETING} # substituted
  - apiVersion: v1
    kind: Pod
    metadata:
      name: web
      annotations:
        internal.config.kubernetes.io/path: app/pod.yaml
    spec:
      containers:
        - name: web
          image: ${IMAGE}
          volumeMounts:
            - {name: c, mountPath: /etc/app/app.conf, subPath: app.conf}
      volumes:
        - {name: c, configMap: {name: external}}
functionConfig:
  apiVersion: krender.io/v1alpha1
  kind: Render
  metadata:
    name: render
    annotations:
      config.kubernetes.io/function: |
        exec:
          path: ./krender-fn
  spec:
    profile: p.yaml
    set:
      IMAGE: nginx:1.27
`

func smallFS() filesys.Reader {
	return filesys.NewMem(fstest.MapFS{"p.yaml": {Data: []byte("vars: {GREETING: hello}\n")}})
}

func TestCommentsAnnotationsAndResults(t *testing.T) {
	list, text, err := runFn(t, smallFS(), small)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  # the settings, read at start-up\n",
		"      name: app-config-", "# as written\n",
		"      greeting: hello # substituted\n",
		"        config.kubernetes.io/index: '2'\n",
		"        internal.config.kubernetes.io/id: '1'\n",
		"        config.k8s.io/id: '1'\n",
		"        kustomize.config.k8s.io/id: |\n",
		"        krender.io/name: app-config\n",
		"          image: nginx:1.27\n",
		"      config.kubernetes.io/function: |\n", // functionConfig as given
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if list["apiVersion"] != "config.kubernetes.io/v1" || list["kind"] != "ResourceList" {
		t.Errorf("not a ResourceList: %v", list["kind"])
	}
	results, _ := list["results"].([]any)
	var subpath map[string]any
	for _, r := range results {
		if m := r.(map[string]any); m["tags"].(map[string]any)["rule"] == "subpath-configmap" {
			subpath = m
		}
	}
	if subpath == nil {
		t.Fatalf("no subpath-configmap result in %v", results)
	}
	want := map[string]any{
		"severity":    "error",
		"resourceRef": map[string]any{"apiVersion": "v1", "kind": "Pod", "name": "web"},
		"field":       map[string]any{"path": "spec.containers[0].volumeMounts[0].subPath"},
		"file":        map[string]any{"path": "app/pod.yaml"},
	}
	for k, v := range want {
		if !reflect.DeepEqual(subpath[k], v) {
			t.Errorf("result %s = %v, want %v", k, subpath[k], v)
		}
	}
	// The position names the item's file (not readable here: no line).
	if pos := subpath["tags"].(map[string]any)["position"]; pos != "app/pod.yaml" {
		t.Errorf("position tag %v, want app/pod.yaml", pos)
	}
	if msg, _ := subpath["message"].(string); !strings.Contains(msg, `ConfigMap "external"`) || !strings.Contains(msg, "Fix: ") {
		t.Errorf("message %q", msg)
	}
}

func TestFnErrors(t *testing.T) {
	fsys := smallFS()
	for _, c := range []struct {
		name, in, want string
	}{
		{"empty", "", "no input"},
		{"not a list", "apiVersion: v1\nkind: ConfigMap\n", "want a ResourceList"},
		{"two documents", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n---\na: b\n", "a second document"},
		{"no functionConfig", "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n", "functionConfig is missing"},
		{"other functionConfig", strings.Replace(small, "kind: Render", "kind: SetLabels", 1), "stdin:38:3: functionConfig: apiVersion krender.io/v1alpha1, kind SetLabels is not krender's"},
		{"unknown key", strings.Replace(small, "    profile: p.yaml", "    profile: p.yaml\n    tenants: [a]", 1), "stdin:48:5: functionConfig spec.tenants: unknown key (did you mean tenant?); spec takes profile, tenant, set"},
		{"no profile", strings.Replace(small, "    profile: p.yaml", "    tenant: a", 1), "functionConfig spec: profile is required"},
		{"missing profile", strings.Replace(small, "profile: p.yaml", "profile: nope.yaml", 1), "nope.yaml: cannot read profile"},
		{"undefined variable", strings.Replace(small, "      IMAGE: nginx:1.27\n", "", 1), "app/pod.yaml: Pod/web spec.containers[0].image: undefined variable ${IMAGE}"},
		{"not an object", strings.Replace(small, "  - apiVersion: v1\n    kind: Pod", "  - apiVersion: v1\n    kin: Pod", 1), "items[1] is not a Kubernetes object"},
		{"bad yaml", small + "  oops: [\n", "invalid YAML"},
	} {
		_, _, err := runFn(t, fsys, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestFnTenants(t *testing.T) {
	fsys := filesys.NewMem(fstest.MapFS{"p.yaml": {Data: []byte("vars: {GREETING: hello, IMAGE: x}\ntenants:\n  a: {vars: {GREETING: hi-a}}\n  b: {}\n")}})
	if _, _, err := runFn(t, fsys, small); err == nil || !strings.Contains(err.Error(), "has tenants (a, b): name one in spec.tenant") {
		t.Fatalf("no tenant: %v", err)
	}
	_, text, err := runFn(t, fsys, strings.Replace(small, "    profile: p.yaml", "    profile: p.yaml\n    tenant: a", 1))
	if err != nil || !strings.Contains(text, "greeting: hi-a") {
		t.Fatalf("tenant a: %v\n%s", err, text)
	}
}

func TestSecretsMaskedInResults(t *testing.T) {
	in := strings.Replace(small, "configMap: {name: external}", "configMap: {name: \"${TOKEN}\"}", 1)
	_, b, err := krmFunction(t.Context(), []byte(in), smallFS(), &action.Fn{FS: smallFS(), Secrets: []action.Secret{{Name: "TOKEN", Value: "tok-0123456789", From: "--set-env TOKEN"}}, Validator: validator.APIServer{}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	i := strings.Index(out, "results:")
	if i < 0 || strings.Contains(out[i:], "tok-0123456789") || !strings.Contains(out[i:], "<redacted>") {
		t.Fatalf("results:\n%s", out[max(i, 0):])
	}
}

// TestFnCheckFalse: spec.check: false renders without the linter (no
// results), and so without the API server's validation even where check
// would need it; with check on and no Validator, a field only that
// validation judges asks for it and nothing is written; check takes a
// boolean only.
func TestFnCheckFalse(t *testing.T) {
	typo := strings.Replace(small, "          image: ${IMAGE}\n", "          image: ${IMAGE}\n          imagePullPolicyy: Always\n", 1)
	off := strings.Replace(typo, "    profile: p.yaml", "    profile: p.yaml\n    check: false", 1)
	_, out, err := krmFunction(t.Context(), []byte(off), smallFS(), &action.Fn{FS: smallFS()})
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	if err := yaml.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	if items, _ := list["items"].([]any); len(items) == 0 || list["results"] != nil {
		t.Errorf("check: false: %d items, results %v; want the items and no results", len(items), list["results"])
	}
	if _, out, err := krmFunction(t.Context(), []byte(typo), smallFS(), &action.Fn{FS: smallFS()}); !errors.Is(err, check.ErrNeedsValidator) || len(out) > 0 {
		t.Errorf("check on, no Validator: %v, %d bytes out; want ErrNeedsValidator and nothing", err, len(out))
	}
	bad := strings.Replace(small, "    profile: p.yaml", "    profile: p.yaml\n    check: \"false\"", 1)
	if _, _, err := runFn(t, smallFS(), bad); err == nil || !strings.Contains(err.Error(), "functionConfig spec.check: want true or false") {
		t.Errorf("check: \"false\": %v", err)
	}
}
