package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/krender/krender/render"
	"github.com/spf13/afero"
)

func TestFnCommand(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"p.yaml": "vars: {A: one}\n"})
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
		code := runWith(append([]string{"fn"}, args...), strings.NewReader(in), &out, &errb, render.DirFS(dir), afero.NewOsFs(), env.get)
		return out.String(), errb.String(), code
	}
	out, errs, code := fn(list("p-${A}"), "--set-env", "TOKEN")
	if code != 0 || !strings.Contains(out, "name: \"p-one\"") || !strings.Contains(out, "kind: ResourceList") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errs, out)
	}
	// The stages' notes go to stderr, secret values masked.
	if !strings.Contains(errs, `warning: Pod/p-${A} spec.containers[0].envFrom[0].secretRef.name (items[0]): Secret "<redacted>" is not in this render`) || strings.Contains(errs, "tok-0123456789") {
		t.Fatalf("stderr: %q", errs)
	}
	out, errs, code = fn(list("p-${B}"), "--set-env", "TOKEN")
	if code != 2 || out != "" || !strings.Contains(errs, "stdin:6:25: Pod/p-${B} metadata.name (items[0]): undefined variable ${B}") {
		t.Fatalf("undefined variable: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if out, errs, code = fn("", "--set-env", "TOKEN"); code != 2 || out != "" || !strings.Contains(errs, "no input") {
		t.Fatalf("no input: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if out, errs, code = fn(list("p"), "--set-env", "MISSING"); code != 2 || out != "" || !strings.Contains(errs, "MISSING is not set") {
		t.Fatalf("missing secret: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
