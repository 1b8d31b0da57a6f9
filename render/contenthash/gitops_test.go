package contenthash_test

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/render/contenthash"
)

// TestGCSwitchStopsGitOpsPruning: with hash.gc, a renamed ConfigMap tells
// Argo CD and Flux not to prune it (krender gc and the garbage collector
// delete old versions); one that keeps its name, and every object without
// the switch, gets nothing. An Argo CD sync-options annotation the
// template has stays the author's.
func TestGCSwitchStopsGitOpsPruning(t *testing.T) {
	const templates = rollTemplates + `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: read-by-name
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata:
  name: token
  annotations: {argocd.argoproj.io/sync-options: "Prune=false,ServerSideApply=true"}
stringData: {t: x}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i, envFrom: [{secretRef: {name: token}}]}]
`
	render := func(profile string) []map[string]any {
		fsys := fstest.MapFS{"profile.yaml": {Data: []byte(profile)}, "app.yaml": {Data: []byte(templates)}}
		e, err := action.Engine(filesys.NewMem(fsys), action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := output.WriteStream(e, &out); err != nil {
			t.Fatal(err)
		}
		return decodeAll(t, out.Bytes())
	}
	ann := func(o map[string]any, key string) string { return str(o, "metadata", "annotations", key) }
	on := render("vars: {LEVEL: info, RELEASE: r1}\nhash: {gc: true}\n")
	if ann(on[0], contenthash.ArgoSyncOptions) != "Prune=false" || ann(on[0], contenthash.FluxPrune) != "disabled" {
		t.Errorf("renamed ConfigMap %s: annotations %v", str(on[0], "metadata", "name"), field(on[0], "metadata", "annotations"))
	}
	if a := field(on[2], "metadata", "annotations"); a != nil {
		t.Errorf("a ConfigMap that keeps its name got %v", a)
	}
	if ann(on[3], contenthash.ArgoSyncOptions) != "Prune=false,ServerSideApply=true" || ann(on[3], contenthash.FluxPrune) != "disabled" {
		t.Errorf("renamed Secret: annotations %v", field(on[3], "metadata", "annotations"))
	}
	for _, o := range render("vars: {LEVEL: info, RELEASE: r1}\nhash: {gc: false}\n") {
		if ann(o, contenthash.FluxPrune) != "" {
			t.Errorf("%s without hash.gc: %v", str(o, "metadata", "name"), field(o, "metadata", "annotations"))
		}
	}
}
