package krm_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/krender/krender/internal/testing/testtool"
)

func TestMain(m *testing.M) { testtool.Main(m) }

func kustomize(t *testing.T) string {
	root, _ := filepath.Abs("../../..")
	return testtool.Find(t, "KRENDER_KUSTOMIZE", []string{filepath.Join(root, ".cache", "bin", "kustomize"), "kustomize"},
		"the kustomize tier runs krender fn as an exec function in a real kustomize build (hack/tools.sh builds v5.5.0; kubectl kustomize skips exec functions)")
}

// kustomization lays out a kustomization whose transformers: entry runs
// `krender fn` through a wrapper (kustomize's exec spec takes a path, no
// arguments, resolved from the kustomization's directory).
func kustomization(t *testing.T, bin string, resources []string, spec string) string {
	dir := t.TempDir()
	for _, sub := range []string{"templates", "profiles", "inject"} {
		testtool.CopyTree(t, filepath.Join("../../..", sub), filepath.Join(dir, sub))
	}
	files := map[string]string{
		"kustomization.yaml": "resources:\n  - " + strings.Join(resources, "\n  - ") + "\ntransformers:\n  - krender-fn.yaml\n",
		"krender-fn.yaml": `apiVersion: krender.io/v1alpha1
kind: Render
metadata:
  name: krender
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: ./krender-fn
spec:
` + spec,
		"krender-fn": fmt.Sprintf("#!/bin/sh\nexec %q fn --set-env REGISTRY=CI_REGISTRY \"$@\"\n", bin),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var templateFiles = []string{
	"templates/billing-api/configmap.yaml", "templates/billing-api/deployment.yaml",
	"templates/mo-back/deployment.yaml",
	"templates/nginx-gateway/configmap.yaml", "templates/nginx-gateway/deployment.yaml",
	"templates/web-portal/deployment.yaml",
}

func byID(t *testing.T, b []byte) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range testtool.DecodeAll(t, b) {
		md, _ := o["metadata"].(map[string]any)
		out[fmt.Sprintf("%v/%v/%v", o["kind"], md["namespace"], md["name"])] = o
	}
	return out
}

// TestKustomizeExecFunction runs `kustomize build --enable-alpha-plugins
// --enable-exec` on the bundled templates with krender fn as a transformer
// and requires the objects `krender render` writes for the same profile,
// tenant and secret: hashed names, injected fragments, zone host entries.
func TestKustomizeExecFunction(t *testing.T) {
	kz := kustomize(t)
	bin := testtool.Krender(t)
	if help, _ := exec.Command(kz, "build", "--help").Output(); !bytes.Contains(help, []byte("--enable-exec")) {
		t.Fatalf("%s build has no --enable-exec: want the standalone kustomize v5", kz)
	}
	dir := kustomization(t, bin, templateFiles, "  profile: profiles/dev.yaml\n  tenant: tenant-a\n  set: {LOG_LEVEL: trace}\n")
	env := append(os.Environ(), "CI_REGISTRY=registry.ci.example.com/saas")

	start := time.Now()
	build := exec.Command(kz, "build", "--enable-alpha-plugins", "--enable-exec", dir)
	build.Env = env
	var stderr bytes.Buffer
	build.Stderr = &stderr
	got, err := build.Output()
	if err != nil {
		t.Fatalf("kustomize build: %v\n%s", err, stderr.String())
	}
	t.Logf("kustomize build with krender fn: %v", time.Since(start))

	render := exec.Command(bin, "render", "-p", "profiles/dev.yaml", "-t", "tenant-a", "--set", "LOG_LEVEL=trace", "--set-env", "REGISTRY=CI_REGISTRY", "templates")
	render.Dir, render.Env = dir, env
	want, err := render.Output()
	if err != nil {
		t.Fatalf("krender render: %v", err)
	}
	if !bytes.Contains(got, []byte("registry.ci.example.com/saas/")) || !bytes.Contains(got, []byte("krender.io/name:")) {
		t.Fatalf("the function did not run (no substituted registry, no hashed names):\n%s", got)
	}
	g, w := byID(t, got), byID(t, want)
	var ids []string
	for id := range w {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !reflect.DeepEqual(g[id], w[id]) {
			t.Errorf("%s differs:\n--- kustomize\n%v\n--- krender render\n%v", id, g[id], w[id])
		}
	}
	if len(g) != len(w) || len(w) < 6 {
		t.Errorf("kustomize has %d objects, krender render %d", len(g), len(w))
	}
}

// TestKustomizeExecFunctionFails: a render error fails the build with
// krender's message, and kustomize writes no manifests.
func TestKustomizeExecFunctionFails(t *testing.T) {
	kz := kustomize(t)
	bin := testtool.Krender(t)
	dir := kustomization(t, bin, []string{"broken.yaml"}, "  profile: profiles/dev.yaml\n  tenant: tenant-a\n")
	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: ${SERVCE_NAME}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command(kz, "build", "--enable-alpha-plugins", "--enable-exec", dir)
	build.Env = append(os.Environ(), "CI_REGISTRY=r.example.com")
	var stderr bytes.Buffer
	build.Stderr = &stderr
	out, err := build.Output()
	if err == nil || len(out) > 0 {
		t.Fatalf("kustomize build succeeded or wrote output (%v):\n%s", err, out)
	}
	if !strings.Contains(stderr.String(), "undefined variable ${SERVCE_NAME}") {
		t.Fatalf("kustomize's error lacks krender's message:\n%s", stderr.String())
	}
}

// lineCol is where text first occurs in body, 1-based.
func lineCol(t *testing.T, body, text string) string {
	t.Helper()
	i := strings.Index(body, text)
	if i < 0 {
		t.Fatalf("%q not in %q", text, body)
	}
	line := strings.Count(body[:i], "\n") + 1
	return fmt.Sprintf("%d:%d", line, i-strings.LastIndex(body[:i], "\n"))
}

// TestKustomizeExecFunctionNamesTheSource: under a real kustomize build,
// krender fn's errors name the file kustomize read (its origin annotation,
// a base's file included) at the line and column written there, the object
// and the field; functionConfig errors name fn.yaml's key with a
// did-you-mean. Without origin annotations, the object, field and item.
func TestKustomizeExecFunctionNamesTheSource(t *testing.T) {
	kz := kustomize(t)
	bin := testtool.Krender(t)
	root := t.TempDir()
	pod := "# the web pod\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: web\n      image: nginx\n      env:\n        - {name: FLAGS, value: \"--greeting=${GREETING} --level=${LEVEL}\"}\n"
	fn := "apiVersion: krender.io/v1alpha1\nkind: Render\nmetadata:\n  name: krender\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: ./krender-fn\nspec:\n  profile: p.yaml\n"
	files := map[string]string{
		"base/kustomization.yaml": "resources: [pod.yaml]\n",
		"base/pod.yaml":           pod,
		"app/svc.yaml":            "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\nspec:\n  ports: [{port: 80}]\n",
		"app/p.yaml":              "vars: {GREETING: hello}\n",
		"app/fn.yaml":             fn,
		"app/krender-fn":          fmt.Sprintf("#!/bin/sh\nexec %q fn \"$@\"\n", bin),
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	build := func(kustomization, fnYAML string) string {
		t.Helper()
		for name, body := range map[string]string{"app/kustomization.yaml": kustomization, "app/fn.yaml": fnYAML} {
			if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(kz, "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join(root, "app"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err == nil || len(out) > 0 {
			t.Fatalf("kustomize build succeeded or wrote output (%v):\n%s", err, out)
		}
		return stderr.String()
	}
	const origin = "resources: [svc.yaml, ../base]\ntransformers: [fn.yaml]\nbuildMetadata: [originAnnotations]\n"
	field := "Pod/web spec.containers[0].env[0].value: undefined variable ${LEVEL}"
	if errs, want := build(origin, fn), "../base/pod.yaml:"+lineCol(t, pod, "${LEVEL}")+": "+field; !strings.Contains(errs, want) || strings.Contains(errs, "stdin:") {
		t.Errorf("with origin annotations, stderr:\n%s\nwant %s", errs, want)
	}
	typo := strings.Replace(fn, "  profile: p.yaml\n", "  profile: p.yaml\n  tennant: a\n", 1)
	if errs, want := build(origin, typo), "fn.yaml:"+lineCol(t, typo, "tennant")+": functionConfig spec.tennant: unknown key (did you mean tenant?)"; !strings.Contains(errs, want) {
		t.Errorf("functionConfig typo, stderr:\n%s\nwant %s", errs, want)
	}
	if errs, want := build("resources: [svc.yaml, ../base]\ntransformers: [fn.yaml]\n", fn), "Pod/web spec.containers[0].env[0].value (items[1]): undefined variable ${LEVEL}"; !strings.Contains(errs, want) || !strings.Contains(errs, "buildMetadata: [originAnnotations]") {
		t.Errorf("without origin annotations, stderr:\n%s\nwant %s and the hint", errs, want)
	}
}
