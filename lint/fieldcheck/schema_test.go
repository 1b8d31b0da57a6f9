package fieldcheck

import (
	"fmt"
	"slices"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

func parse(t *testing.T, text string) *manifest.Object {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("a.yaml", []byte(text)))
	if err != nil || len(objs) != 1 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	return objs[0]
}

// check runs Check and renders each problem as "line:col: message".
func check(t *testing.T, text string) []string {
	t.Helper()
	problems, err := Check(parse(t, text))
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	var out []string
	for _, p := range problems {
		if p.Node == nil {
			t.Fatalf("problem %q has no node", p.Msg)
		}
		out = append(out, fmt.Sprintf("%d:%d: %s", p.Node.Line, p.Node.Column, p.Msg))
	}
	return out
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      hostAliases:
      - ip: 10.0.0.1
        hostnames: [db]
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
        resources:
          limits:
            cpu: 500m
            memory: 128Mi
`

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		want []string
	}{
		{"valid Deployment", deployment, nil},
		{"valid Service", `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
    targetPort: http
`, nil},
		{"valid ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: b\n", nil},
		{"misspelled field in a list item", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      hostAliases:
      - ip: 10.0.0.1
        hostname: db
`, []string{`10:9: unknown field "spec.template.spec.hostAliases[0].hostname": apps/v1 Deployment has no such field (did you mean hostnames?)`}},
		{"unknown field in the second container", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: a
    image: a
  - name: b
    imagee: b
`, []string{`10:5: unknown field "spec.containers[1].imagee": v1 Pod has no such field (did you mean image?)`}},
		{"unknown top-level field", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nspecs: {}\n",
			[]string{`5:1: unknown field "specs": v1 ConfigMap has no such field`}},
		{"unknown fields in document order", `apiVersion: batch/v1
kind: CronJob
metadata:
  name: j
  nmae: j
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: j
            image: j
            commnad: [run]
`, []string{
			`5:3: unknown field "metadata.nmae": batch/v1 CronJob has no such field (did you mean name?)`,
			`16:13: unknown field "spec.jobTemplate.spec.template.spec.containers[0].commnad": batch/v1 CronJob has no such field (did you mean command?)`,
		}},
		{"wrongly typed field", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: "two"
`, []string{"6:3: apps/v1 Deployment: spec.replicas must be int32, not string"}},
		{"wrongly typed field in a list item", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: a
    ports:
    - containerPort: http
`, []string{"9:7: v1 Pod: spec.containers.ports.containerPort must be int32, not string"}},
		// The path has no indices: the item holding the wrong type is meant,
		// not the first item with the key.
		{"wrongly typed field in a later list item", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: a
    ports:
    - containerPort: 80
  - name: b
    ports:
    - containerPort: 81
    - containerPort: http
`, []string{"13:7: v1 Pod: spec.containers.ports.containerPort must be int32, not string"}},
		{"wrongly typed list element", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: a
    args: [run]
  - name: b
    args: [run, 1]
`, []string{"10:17: v1 Pod: spec.containers.args must be string, not number"}},
		{"number too large in a later list item", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: a
    ports:
    - containerPort: 80
    - containerPort: 99999999999
`, []string{"10:7: v1 Pod: spec.containers.ports.containerPort must be int32, not number 99999999999"}},
		// Kubernetes reads yes as a boolean (YAML 1.1); the node says string.
		{"YAML 1.1 boolean is reported at its key", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  hostname: yes\n",
			[]string{"6:3: v1 Pod: spec.hostname must be string, not bool"}},
		// The path names the embedded Go struct; the deepest key found is used.
		{"type error under an inline struct is reported at the list", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  volumes:
  - name: c
    configMap:
      defaultMode: rw
`, []string{"6:3: v1 Pod: spec.volumes.VolumeSource.configMap.defaultMode must be int32, not string"}},
		// A type error's path names no map key: it is reported at the map.
		{"wrongly typed label is reported at labels", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    app.kubernetes.io/name: 1\n",
			[]string{"5:3: v1 Pod: metadata.labels must be string, not number"}},
		// A type's own decoder (resource.Quantity) gives no field path.
		{"bad quantity is reported at the object", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: a
    resources:
      limits:
        cpu: lots
`, []string{"1:1: v1 Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}},
		{"key JSON cannot hold is reported at the object", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  ? [a, b]\n  : c\n",
			[]string{`1:1: yaml: invalid map key: []interface {}{"a", "b"}`}},
		// manifest.Parse makes each item of a List an object of its own, and
		// Check judges that item like any object.
		{"a List's item is checked as its own object", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
  spec:
    bogus: 1
`, []string{`9:5: unknown field "spec.bogus": v1 Pod has no such field`}},
		{"List's own fields are checked", "apiVersion: v1\nkind: List\nitemz: []\n",
			[]string{`3:1: unknown field "itemz": v1 List has no such field (did you mean items?)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.text); !slices.Equal(got, c.want) {
				t.Errorf("Check problems:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// Kinds Check does not know pass whatever they hold: Known is false and
// Check returns neither problems nor an error.
func TestCheckPassesUnknownKinds(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"custom resource", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  anything: [1, 2]\n"},
		{"unknown kind in the core group", "apiVersion: v1\nkind: Widget\nspecc: 1\n"},
		{"built-in kind at a version not in the scheme", "apiVersion: apps/v1beta1\nkind: Deployment\nspec:\n  replicas: two\n"},
		{"no apiVersion", "kind: Pod\nspecc: 1\n"},
		{"no kind", "apiVersion: v1\nspecc: 1\n"},
		{"malformed apiVersion", "apiVersion: a/b/c\nkind: Pod\nspecc: 1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := parse(t, c.text)
			if Known(o) {
				t.Errorf("Known = true, want false")
			}
			problems, err := Check(o)
			if problems != nil || err != nil {
				t.Errorf("Check = %v, %v; want nil, nil", problems, err)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	for _, c := range []struct {
		apiVersion, kind string
	}{
		{"v1", "Pod"},
		{"v1", "ConfigMap"},
		{"v1", "List"},
		{"apps/v1", "Deployment"},
		{"batch/v1", "CronJob"},
		{"autoscaling/v2", "HorizontalPodAutoscaler"},
		{"networking.k8s.io/v1", "Ingress"},
		{"policy/v1", "PodDisruptionBudget"},
		{"rbac.authorization.k8s.io/v1", "ClusterRole"},
		{"storage.k8s.io/v1", "StorageClass"},
		{"scheduling.k8s.io/v1", "PriorityClass"},
		{"coordination.k8s.io/v1", "Lease"},
		{"discovery.k8s.io/v1", "EndpointSlice"},
		{"node.k8s.io/v1", "RuntimeClass"},
	} {
		o := parse(t, "apiVersion: "+c.apiVersion+"\nkind: "+c.kind+"\n")
		if !Known(o) {
			t.Errorf("Known(%s %s) = false, want true", c.apiVersion, c.kind)
		}
	}
}

// Check must not change what it checks: stages read tags (zones' replicas
// must be !!int, istio's flags !!bool), and quoting follows styles.
func TestCheckLeavesTagsAndStyles(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"valid", deployment},
		{"with problems", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicass: 2\n  paused: \"true\"\n"},
		{"with an alias", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: &l {app: p}\n  annotations: *l\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := parse(t, c.text)
			// A string that reads as a number, as a stage makes one.
			manifest.Put(manifest.Ensure(manifest.Ensure(o.Node, "metadata"), "labels"), "port", manifest.String("80"))
			type state struct {
				tag   string
				style yaml.Style
			}
			var before []state
			manifest.Walk(o.Node, func(n *yaml.Node) { before = append(before, state{n.Tag, n.Style}) })
			if _, err := Check(o); err != nil {
				t.Fatal(err)
			}
			i, changed := 0, 0
			manifest.Walk(o.Node, func(n *yaml.Node) {
				if now := (state{n.Tag, n.Style}); now != before[i] {
					if changed++; changed == 1 {
						t.Errorf("node %d:%d %q is now %+v, was %+v", n.Line, n.Column, n.Value, now, before[i])
					}
				}
				i++
			})
			if changed > 1 {
				t.Errorf("and %d more nodes changed", changed-1)
			}
		})
	}
}

func TestAt(t *testing.T) {
	o := parse(t, `apiVersion: v1
kind: Pod
metadata:
  name: p
  labels:
    app.kubernetes.io/name: web
spec:
  containers:
  - name: a
  - name: b
    image: x
`)
	for path, want := range map[string]string{
		"metadata.labels[app.kubernetes.io/name]": "6:5",
		"spec.containers[1].image":                "11:5",
		"spec.containers[1]":                      "10:5",
		"spec.containers[5].image":                "8:3", // no such item: the list's key
		"spec.nothing.here":                       "7:1",
		"":                                        "1:1",
	} {
		n := At(o.Node, path)
		if got := fmt.Sprintf("%d:%d", n.Line, n.Column); got != want {
			t.Errorf("At(%q) = %s, want %s", path, got, want)
		}
	}
}
