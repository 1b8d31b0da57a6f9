package fastpath_test

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/lint/fieldcheck/fastpath"
	"github.com/krender/krender/model/manifest"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
  creationTimestamp: null
spec:
  replicas: 3
  strategy:
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80, protocol: TCP}]
        resources:
          limits: {cpu: 100m, memory: 1Gi}
          requests: {cpu: 0.5}
`

func parse(t *testing.T, text string) *manifest.Object {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte(text)))
	if err != nil || len(objs) != 1 {
		t.Fatalf("%v: %d objects", err, len(objs))
	}
	return objs[0]
}

// TestObject: what the fast path judges, and which small changes to a
// clean Deployment it no longer calls clean.
func TestObject(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		judged, clean  bool
	}{
		{"as written", "", "", true, true},
		{"core group spelt /v1", "apiVersion: apps/v1", "apiVersion: apps/v1", true, true},
		{"other version", "apps/v1", "apps/v1beta1", false, false},
		{"custom resource", "apps/v1", "argoproj.io/v1alpha1", false, false},
		{"unknown field", "replicas: 3", "replicaz: 3", true, false},
		{"field in other case", "replicas: 3", "Replicas: 3", true, false},
		{"string for an int", "replicas: 3", `replicas: "3"`, true, false},
		{"YAML 1.1 boolean", "replicas: 3", "replicas: yes", true, false},
		{"octal", "replicas: 3", "replicas: 0777", true, false},
		{"int32 overflow", "replicas: 3", "replicas: 2147483648", true, false},
		{"null for a pointer", "replicas: 3", "replicas: null", true, true},
		{"bad quantity", "cpu: 100m", "cpu: 100mm", true, false},
		{"quantity as an int", "cpu: 100m", "cpu: 2", true, true},
		{"int-or-string as a float", "maxUnavailable: 1", "maxUnavailable: 1.5", true, false},
		{"time as text", "creationTimestamp: null", "creationTimestamp: 2024-01-01T00:00:00Z", true, false},
		{"label value YAML 1.1 boolean", "labels: {app: web}\n  creation", "labels: {app: on}\n  creation", true, false},
		{"label value a number", "labels: {app: web}\n  creation", "labels: {app: 1}\n  creation", true, false},
		{"alias", "matchLabels: {app: web}", "matchLabels: &l {app: web}", true, false},
		{"tag", "image: nginx:1.27", "image: !x nginx:1.27", true, false},
		{"a list for a struct", "strategy:\n", "strategy: []\n  x:\n", true, false},
		{"strategic-merge directive", "      - name: web\n", "      - name: web\n        $patch: replace\n", true, true},
		{"directives with lists", "replicas: 3", "replicas: 3\n  $setElementOrder/containers: [{name: web}]\n  $retainKeys: [replicas]", true, true},
		{"directive naming a path", "replicas: 3", "replicas: 3\n  $setElementOrder/a.b: [x]", true, false},
		{"directive with a tagged value", "replicas: 3", "replicas: 3\n  $patch: !x replace", true, false},
		{"a lookalike", "replicas: 3", "replicas: 3\n  $patches: replace", true, false},
	} {
		text := strings.Replace(deployment, tc.old, tc.new, 1)
		if tc.old != "" && text == deployment && tc.old != tc.new {
			t.Fatalf("%s: %q not in the Deployment", tc.name, tc.old)
		}
		judged, clean := fastpath.Object(parse(t, text))
		if judged != tc.judged || clean != tc.clean {
			t.Errorf("%s: judged %v clean %v, want %v %v", tc.name, judged, clean, tc.judged, tc.clean)
		}
	}
}

// TestDuplicateKey: a key twice (which the parser rejects, and a stage
// could still make) is no clean object.
func TestDuplicateKey(t *testing.T) {
	o := parse(t, deployment)
	spec := manifest.Lookup(o.Node, "spec")
	k, v := *spec.Content[0], *spec.Content[1]
	spec.Content = append(spec.Content, &k, &v)
	if _, clean := fastpath.Object(o); clean {
		t.Errorf("spec.%s twice is clean", k.Value)
	}
}

func TestBytesAndAny(t *testing.T) {
	for text, want := range map[string]bool{
		"apiVersion: v1\nkind: ConfigMap\nbinaryData: {a: aGVsbG8=}\n":                    true,
		"apiVersion: v1\nkind: ConfigMap\nbinaryData: {a: aGVsbG8}\n":                     false,
		"apiVersion: v1\nkind: Secret\ndata: {a: aGVsbG8=}\n":                             true,
		"apiVersion: apps/v1\nkind: ControllerRevision\ndata: {any: [1, x, {z: null}]}\n": true,
		"apiVersion: apps/v1\nkind: ControllerRevision\ndata: {any: [1, yes]}\n":          false,
		"apiVersion: apps/v1\nkind: ControllerRevision\ndata: {any: 1}\nrevision: 5\n":    true,
		"apiVersion: apps/v1\nkind: ControllerRevision\nrevision: 9223372036854775807\n":  false,
		"apiVersion: apps/v1\nkind: ControllerRevision\nrevision: 922337203685477580\n":   true,
	} {
		if _, clean := fastpath.Object(parse(t, text)); clean != want {
			t.Errorf("clean %v, want %v:\n%s", clean, want, text)
		}
	}
}

func TestPodTemplate(t *testing.T) {
	o := parse(t, deployment)
	if !fastpath.PodTemplate(o, []string{"spec", "template"}) {
		t.Errorf("the Deployment's template is not clean")
	}
	if fastpath.PodTemplate(o, []string{"spec"}) {
		t.Errorf("the Deployment's spec is a clean pod template")
	}
	if fastpath.PodTemplate(o, []string{"spec", "nothing"}) {
		t.Errorf("no template is a clean one")
	}
}

// TestEmptyNullInFlow: an empty plain scalar tagged !!null is null in a
// block collection, and printed quoted, an empty string, in a flow one, however
// the flow collection around it came to be.
func TestEmptyNullInFlow(t *testing.T) {
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: a\n    image: b\n    command:\n    - x\n    -\n    %s\n"
	for _, c := range []struct {
		field string
		clean bool
	}{
		{"terminationMessagePath:", true},                  // null leaves the string empty
		{"ports: [{containerPort: 1, hostPort: }]", false}, // '' is no int32
		{"ports: [{containerPort: 1, hostPort: ~}]", true},
		{"ports:\n    - {containerPort: 1}\n    - containerPort: 2\n      hostPort:", true},
	} {
		o := parse(t, fmt.Sprintf(pod, c.field))
		if _, clean := fastpath.Object(o); clean != c.clean {
			t.Errorf("%s: clean %v, want %v", c.field, clean, c.clean)
		}
	}
	// A flow sequence the parser did not write: a stage's, or a mutation's.
	o := parse(t, fmt.Sprintf(pod, "ports:\n    - containerPort: 2\n      hostPort:"))
	if _, clean := fastpath.Object(o); !clean {
		t.Fatalf("an empty hostPort in block style is not clean")
	}
	manifest.Lookup(o.Node, "spec", "containers").Style = yaml.FlowStyle
	if _, clean := fastpath.Object(o); clean {
		t.Errorf("an empty hostPort in a flow sequence of containers is clean: it prints as ''")
	}
	// The template of a custom workload held in a flow mapping.
	w := parse(t, "apiVersion: x.io/v1\nkind: W\nspec:\n  template: {spec: {containers: [{name: a, image: b, ports: [{containerPort: 1, hostPort: }]}]}}\n")
	if fastpath.PodTemplate(w, []string{"spec", "template"}) {
		t.Errorf("a pod template in a flow mapping with an empty hostPort is clean: it prints as ''")
	}
	w = parse(t, "apiVersion: x.io/v1\nkind: W\nspec:\n  template:\n    spec:\n      containers:\n      - {name: a, image: b}\n      - name: c\n        image: d\n        ports:\n        - containerPort: 1\n          hostPort:\n")
	if !fastpath.PodTemplate(w, []string{"spec", "template"}) {
		t.Fatalf("a pod template with an empty hostPort in block style is not clean")
	}
	manifest.Lookup(w.Node, "spec").Style = yaml.FlowStyle
	if fastpath.PodTemplate(w, []string{"spec", "template"}) {
		t.Errorf("a pod template in a flow mapping a stage made, with an empty hostPort, is clean: it prints as ''")
	}
}
