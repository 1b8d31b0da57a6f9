package inject

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/render/inject/yqexpr"
)

// injectInto renders template with one merge-mode entry that puts frag into
// the container named container or at the yq path into, and returns the
// first object as YAML.
func injectInto(t *testing.T, template, frag, container, into string) string {
	t.Helper()
	in := profiles.Inject{Container: profiles.Str{Value: container}, Into: profiles.Str{Value: into}}
	s := applyEntry(t, template, frag, in)
	out, err := manifest.Marshal(s.Objects[:1])
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// applyEntry applies one entry in, named x and written at p.yaml:3:5,
// with frag as its fragment, to the objects of template.
func applyEntry(t *testing.T, template, frag string, in profiles.Inject) *manifest.Set {
	t.Helper()
	read := func(p string) ([]byte, error) {
		if p == "frag.yaml" {
			return []byte(frag), nil
		}
		return nil, os.ErrNotExist
	}
	at := filepos.Pos{File: "p.yaml", Line: 3, Col: 5}
	in.Name, in.Fragment, in.FragmentPath, in.Pos = profiles.Str{Value: "x", Pos: at}, profiles.Str{Value: "frag.yaml", Pos: at}, "frag.yaml", at
	st, err := New(read, &profiles.Profile{Inject: []profiles.Inject{in}}, yqexpr.Syntax{})
	if err != nil {
		t.Fatal(err)
	}
	return applyTo(t, st, template)
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  template:
    spec:
      containers:
        - name: app
          image: app:1
          env:
            - name: A
              value: "1"
            - name: B
              value: "2"
          ports:
            - name: http
              containerPort: 8080
            - name: admin
              containerPort: 9090
          volumeMounts:
            - name: data
              mountPath: /data
            - name: cache
              mountPath: /cache
      volumes:
        - name: data
          persistentVolumeClaim: {claimName: shared}
        - name: cache
          emptyDir: {}
`

// TestMergeContainerByKubernetesKeys: in a container, volumeMounts merge on
// mountPath and ports on containerPort (their patchMergeKey in k8s.io/api),
// so the fragment's item replaces the one at the same path or port instead
// of adding a second the API server rejects; env still merges on name.
func TestMergeContainerByKubernetesKeys(t *testing.T) {
	got := injectInto(t, deployment, `env:
  - name: B
    valueFrom: {fieldRef: {fieldPath: status.hostIP}}
  - name: C
    value: "3"
ports:
  - name: web
    containerPort: 8080
    protocol: TCP
volumeMounts:
  - name: efs
    mountPath: /data
    readOnly: true
`, "app", "")
	want := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  template:
    spec:
      containers:
        - name: app
          image: app:1
          env:
            - name: A
              value: "1"
            - name: B
              valueFrom: {fieldRef: {fieldPath: status.hostIP}}
            - name: C
              value: "3"
          ports:
            - name: web
              containerPort: 8080
              protocol: TCP
            - name: admin
              containerPort: 9090
          volumeMounts:
            - name: efs
              mountPath: /data
              readOnly: true
            - name: cache
              mountPath: /cache
      volumes:
        - name: data
          persistentVolumeClaim: {claimName: shared}
        - name: cache
          emptyDir: {}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestMergeIntoPathByKubernetesKeys: an `into:` target gets its type from
// the object's kind and the path down to it: volumes of a pod spec merge on
// name, and the mounts of a container inside the fragment on mountPath.
func TestMergeIntoPathByKubernetesKeys(t *testing.T) {
	got := injectInto(t, deployment, `volumes:
  - name: data
    emptyDir: {}
  - name: efs
    nfs: {server: fs-1.example.com, path: /}
containers:
  - name: app
    volumeMounts:
      - name: efs
        mountPath: /cache
`, "", ".spec.template.spec")
	for _, want := range []string{`      containers:
        - name: app
          image: app:1
`, `          volumeMounts:
            - name: data
              mountPath: /data
            - name: efs
              mountPath: /cache
      volumes:
        - name: data
          emptyDir: {}
        - name: cache
          emptyDir: {}
        - name: efs
          nfs: {server: fs-1.example.com, path: /}
`} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to contain\n%s", got, want)
		}
	}
}

// TestMergeIntoCustomResourceByName: a kind k8s.io/api does not have keeps
// the merge on name, even for a field Kubernetes would merge on another key.
func TestMergeIntoCustomResourceByName(t *testing.T) {
	got := injectInto(t, `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  volumeMounts:
    - name: data
      mountPath: /data
`, `volumeMounts:
  - name: efs
    mountPath: /data
`, "", ".spec")
	want := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  volumeMounts:
    - name: data
      mountPath: /data
    - name: efs
      mountPath: /data
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestShapeAt(t *testing.T) {
	objs, err := manifest.Parse(manifest.NewSource("app.yaml", []byte(deployment)))
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	spec := manifest.Lookup(o.Node, "spec", "template", "spec")
	c := manifest.Value(spec, "containers").Content[0]
	cases := []struct {
		name string
		n    *yaml.Node
		key  string // "name" for an unknown shape
	}{
		{"volumes", manifest.Value(spec, "volumes"), "name"},
		{"volumeMounts", manifest.Value(c, "volumeMounts"), "mountPath"},
		{"ports", manifest.Value(c, "ports"), "containerPort"},
		{"not in the object", &yaml.Node{Kind: yaml.SequenceNode}, "name"},
	}
	for _, tc := range cases {
		if got := shapeAt(o, tc.n).mergeKey(); got != tc.key {
			t.Errorf("%s: merge key %q, want %q", tc.name, got, tc.key)
		}
	}
	if s := shapeAt(o, c).field("args", true); s == nil || s.mergeKey() != "" {
		t.Errorf("args: want a known list without merge key, got %+v", s)
	}
}
