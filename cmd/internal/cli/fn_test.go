package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/testtool"
)

func TestFnCommand(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": "vars: {A: one}\n"})
	list := func(name string) string {
		return `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: "` + name + `"}
    spec:
      containers: [{name: c, image: busybox, envFrom: [{secretRef: {name: "${TOKEN}"}}]}]
functionConfig:
  apiVersion: krender.io/v1alpha1
  kind: Render
  spec: {profile: p.yaml}
`
	}
	env := &fakeEnv{vars: map[string]string{"TOKEN": "tok-0123456789"}}
	fn := func(in string, args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := runWith(append([]string{"fn"}, args...), strings.NewReader(in), &out, &errb, filesys.Dir(dir), env.get)
		return out.String(), errb.String(), code
	}
	out, errs, code := fn(list("p-${A}"), "--set-env", "TOKEN")
	if code != 0 || !strings.Contains(out, "name: \"p-one\"") || !strings.Contains(out, "kind: ResourceList") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	// The stages' notes are results like check's findings, secret values
	// masked (the manifests themselves hold them); nothing is left for stderr.
	_, results, _ := strings.Cut(out, "results:")
	if !strings.Contains(results, `message: 'Secret "<redacted>" is not in this render`) || !strings.Contains(results, "rule: ref-not-rendered") ||
		strings.Contains(results, "tok-0123456789") || errs != "" {
		t.Fatalf("stderr %q, stdout:\n%s", errs, out)
	}
	out, errs, code = fn(list("p-${B}"), "--set-env", "TOKEN")
	if code != 2 || out != "" || !strings.Contains(errs, "stdin:6:25: Pod/p-${B} metadata.name (items[0]): undefined variable ${B}") {
		t.Fatalf("undefined variable: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if out, errs, code = fn("", "--set-env", "TOKEN"); code != 2 || out != "" || !strings.Contains(errs, "no input") {
		t.Fatalf("no input: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if out, errs, code = fn(list("p"), "--set-env", "MISSING"); code != 2 || out != "" || !strings.Contains(errs, "--set-env #1: the environment variable it names is not set") || strings.Contains(errs, "MISSING") {
		t.Fatalf("missing secret: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if out, errs, code = fn(list("p"), "--set-env", "TOKEN=hunter2-Sup3rSecret"); code != 2 || out != "" || !strings.Contains(errs, "use --set NAME=VALUE") || strings.Contains(errs, "hunter2") {
		t.Fatalf("a value where the variable's name belongs: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// A typo in a workload split by zone is one error, not one per zone copy,
// and a finding in the copies points at the first copy's resource.
func TestFnSplitZonesOneFinding(t *testing.T) {
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"p.yaml": "vars: {TAG: '1'}\nzones: {zone-a: {}, zone-b: {}}\nzoneHosts: {strategy: split}\n"})
	list := func(image, port string) string {
		return `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: api}
    spec:
      selector: {matchLabels: {app: api}}
      template:
        metadata: {labels: {app: api}}
        spec:
          containers: [{name: c, image: "` + image + `", ports: [{containerPort: ` + port + `}]}]
functionConfig:
  apiVersion: krender.io/v1alpha1
  kind: Render
  spec: {profile: p.yaml}
`
	}
	fn := func(in string) (string, string, int) {
		var out, errb bytes.Buffer
		code := runWith([]string{"fn"}, strings.NewReader(in), &out, &errb, filesys.Dir(dir), noEnv)
		return out.String(), errb.String(), code
	}
	out, errs, code := fn(list("app:${TAGG}", "80"))
	if code != 2 || out != "" || strings.Count(errs, "undefined variable ${TAGG}") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	out, errs, code = fn(list("app:${TAG}", "'80'"))
	if code != 0 || strings.Count(out, "rule: unknown-field") != 1 || !strings.Contains(out, "(zones zone-a, zone-b)") || !strings.Contains(out, "name: api-a\n    field:") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
}
