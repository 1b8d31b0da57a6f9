package diff

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
)

const profile = "vars: {TAG: \"1\"}\n"

func repoOf(cm, deploy string) fstest.MapFS {
	return fstest.MapFS{
		"p.yaml":     {Data: []byte(profile)},
		"t/cm.yaml":  {Data: []byte(cm)},
		"t/web.yaml": {Data: []byte(deploy)},
	}
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: REPLICAS
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "registry.example.com/web:${TAG}"}]
`

func cm(v string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata: {level: " + v + "}\n"
}

func run(t *testing.T, base, head fstest.MapFS) (*Result, error) {
	t.Helper()
	d := &Diff{Options: action.Options{Paths: []string{"t"}}, Profiles: []string{"p.yaml"}, Head: head, Base: base, BaseName: "main"}
	return d.Run(context.Background())
}

// TestLeanSettlesWhatTheFieldsSettle: without the API server's code, a
// mutable ConfigMap's data and a workload's labels are judged; a change
// the API server must judge (replicas, a template) asks for it.
func TestLeanSettlesWhatTheFieldsSettle(t *testing.T) {
	dep := func(r string) string { return replace(deployment, "REPLICAS", r) }
	res, err := run(t, repoOf(cm("info"), dep("2")), repoOf(cm("debug"), strings.Replace(dep("2"), "labels: {app: web}}", "labels: {app: web, team: a}}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 2 || res.Changes[0].Reasons[0] != "key level changed" || res.Changes[1].Verdict() != None {
		t.Fatalf("got %+v", res.Changes)
	}
	if _, err := run(t, repoOf(cm("info"), dep("2")), repoOf(cm("info"), dep("3"))); !errors.Is(err, ErrNeedsValidator) {
		t.Fatalf("replicas changed: %v, want ErrNeedsValidator", err)
	}
	res, err = run(t, repoOf(cm("info"), dep("2")), repoOf(cm("info"), dep("2")))
	if err != nil || len(res.Changes) != 0 {
		t.Fatalf("the same on both sides: %+v, %v", res, err)
	}
}

func replace(s, old, new string) string { return strings.ReplaceAll(s, old, new) }
