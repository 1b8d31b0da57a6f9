package zones_test

import (
	"fmt"
	"slices"
	"testing"

	"go.yaml.in/yaml/v4"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/krender/krender/manifest"
	"github.com/krender/krender/render"
	"github.com/krender/krender/workload"
	"github.com/krender/krender/zones"
)

func TestDivide(t *testing.T) {
	cases := []struct {
		total, zones int
		want         []int
	}{
		{0, 2, []int{0, 0}},
		{1, 2, []int{1, 1}},
		{2, 2, []int{1, 1}},
		{3, 2, []int{2, 1}},
		{7, 2, []int{4, 3}},
		{0, 3, []int{0, 0, 0}},
		{1, 3, []int{1, 1, 1}},
		{2, 3, []int{1, 1, 1}},
		{3, 3, []int{1, 1, 1}},
		{7, 3, []int{3, 2, 2}},
	}
	for _, c := range cases {
		floor := 1
		if c.total == 0 {
			floor = 0 // a scaled-down workload stays down
		}
		got := zones.Divide(c.total, c.zones, floor)
		if !slices.Equal(got, c.want) {
			t.Errorf("Divide(%d, %d, %d) = %v, want %v", c.total, c.zones, floor, got, c.want)
		}
	}
}

// TestDivideProperties checks what the table only samples: shares never
// differ by more than one, larger shares come first, and they add up to the
// total unless the floor had to lift some.
func TestDivideProperties(t *testing.T) {
	for k := 1; k <= 6; k++ {
		for total := 0; total <= 40; total++ {
			got := zones.Divide(total, k, 1)
			sum := 0
			for i, v := range got {
				sum += v
				if v < 1 {
					t.Fatalf("Divide(%d, %d, 1)[%d] = %d, below the floor", total, k, i, v)
				}
				if i > 0 && v > got[i-1] {
					t.Fatalf("Divide(%d, %d, 1) = %v: a later zone got more", total, k, got)
				}
			}
			if got[0]-got[k-1] > 1 {
				t.Fatalf("Divide(%d, %d, 1) = %v: uneven by more than one", total, k, got)
			}
			if want := max(total, k); sum != want {
				t.Fatalf("Divide(%d, %d, 1) = %v sums to %d, want %d", total, k, got, sum, want)
			}
		}
	}
}

const profile = `zones:
  ap-northeast-2a:
    hostAliases:
      - {ip: 10.0.1.10, hostnames: [fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com]}
  ap-northeast-2b:
    hostAliases:
      - {ip: 10.0.3.10, hostnames: [fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com]}
  ap-northeast-2c:
    hostAliases:
      - {ip: 10.0.2.10, hostnames: [fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com]}
zoneHosts:
  strategy: split
`

const templates = `apiVersion: v1
kind: Service
metadata:
  name: mo-back
spec:
  selector: {app: mo-back}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mo-back
spec:
  replicas: 5
  selector:
    matchLabels: {app: mo-back}
    matchExpressions:
      - {key: tier, operator: In, values: [backend]}
  template:
    metadata:
      labels: {app: mo-back, tier: backend}
    spec:
      containers:
        - name: app
          image: registry.example.com/mo-back:1.0
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: mo-back
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {app: mo-back}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: mo-back
spec:
  podSelector:
    matchExpressions:
      - {key: app, operator: In, values: [mo-back]}
      - {key: tier, operator: Exists}
`

func renderSplit(t *testing.T) *manifest.Set {
	t.Helper()
	fsys := render.MapFS{
		"profile.yaml": {Data: []byte(profile)},
		"app.yaml":     {Data: []byte(templates)},
	}
	e, err := render.New(fsys, render.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Render(e.Units[0])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSplitSelectors evaluates the selectors with Kubernetes' own label
// matching: whatever selected the original's pods (Service, PDB,
// NetworkPolicy) still selects every copy's pods, and each copy's selector
// selects its own pods only, so the copies never count each other's.
func TestSplitSelectors(t *testing.T) {
	s := renderSplit(t)
	var names []string
	var copies []*manifest.Object
	for _, o := range s.Objects {
		names = append(names, o.Kind()+"/"+o.Name())
		if o.Kind() == "Deployment" {
			copies = append(copies, o)
		}
	}
	wantNames := []string{"Service/mo-back", "Deployment/mo-back-2a", "Deployment/mo-back-2b", "Deployment/mo-back-2c",
		"PodDisruptionBudget/mo-back", "NetworkPolicy/mo-back"}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("objects = %v, want %v (copies in place of the original, in zone order)", names, wantNames)
	}
	selectors := map[string]labels.Selector{}
	for _, o := range s.Objects {
		spec := manifest.Value(o.Node, "spec")
		switch o.Kind() {
		case "Service":
			selectors["Service"] = labels.SelectorFromSet(stringMap(t, manifest.Value(spec, "selector")))
		case "PodDisruptionBudget":
			selectors["PodDisruptionBudget"] = labelSelector(t, manifest.Value(spec, "selector"))
		case "NetworkPolicy":
			selectors["NetworkPolicy"] = labelSelector(t, manifest.Value(spec, "podSelector"))
		}
	}
	for _, c := range copies {
		pod := labels.Set(stringMap(t, manifest.Lookup(workload.PodTemplate(c), "metadata", "labels")))
		for kind, sel := range selectors {
			if !sel.Matches(pod) {
				t.Errorf("%s selector %q does not select the pods of %s (labels %v)", kind, sel, c.Name(), pod)
			}
		}
		for _, other := range copies {
			own := labelSelector(t, manifest.Lookup(other.Node, "spec", "selector"))
			if got, want := own.Matches(pod), other == c; got != want {
				t.Errorf("selector of %s (%q) matches pods of %s: %v, want %v", other.Name(), own, c.Name(), got, want)
			}
		}
	}
}

// TestCopiesKeepPositions: copies are clones, so errors found by later
// stages still name the line the user wrote; entries taken from the profile
// name the profile.
func TestCopiesKeepPositions(t *testing.T) {
	s := renderSplit(t)
	for _, o := range s.Objects {
		if o.Kind() != "Deployment" {
			continue
		}
		img := manifest.Value(workload.Containers(workload.PodSpec(o))[0], "image")
		if got := o.Pos(img).String(); got != "app.yaml:24:18" {
			t.Errorf("%s: image at %s, want app.yaml:24:18", o.Name(), got)
		}
		ha := manifest.Value(workload.PodSpec(o), "hostAliases").Content[0]
		host := manifest.Value(ha, "hostnames").Content[0]
		line := map[string]int{"mo-back-2a": 4, "mo-back-2b": 7, "mo-back-2c": 10}[o.Name()]
		if got, want := o.Pos(host).String(), fmt.Sprintf("profile.yaml:%d:37", line); got != want {
			t.Errorf("%s: hostname at %s, want %s", o.Name(), got, want)
		}
	}
}

func stringMap(t *testing.T, m *yaml.Node) map[string]string {
	t.Helper()
	out := map[string]string{}
	if m == nil {
		return out
	}
	if m.Kind != yaml.MappingNode {
		t.Fatalf("not a mapping: %v", m.Kind)
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		out[m.Content[i].Value] = m.Content[i+1].Value
	}
	return out
}

// labelSelector builds a metav1.LabelSelector's meaning out of requirements.
func labelSelector(t *testing.T, n *yaml.Node) labels.Selector {
	t.Helper()
	sel := labels.NewSelector()
	add := func(key string, op selection.Operator, vals []string) {
		r, err := labels.NewRequirement(key, op, vals)
		if err != nil {
			t.Fatal(err)
		}
		sel = sel.Add(*r)
	}
	for k, v := range stringMap(t, manifest.Value(n, "matchLabels")) {
		add(k, selection.Equals, []string{v})
	}
	if exprs := manifest.Value(n, "matchExpressions"); exprs != nil {
		for _, e := range exprs.Content {
			var vals []string
			if vs := manifest.Value(e, "values"); vs != nil {
				for _, v := range vs.Content {
					vals = append(vals, v.Value)
				}
			}
			op := map[string]selection.Operator{"In": selection.In, "NotIn": selection.NotIn,
				"Exists": selection.Exists, "DoesNotExist": selection.DoesNotExist}[manifest.ScalarAt(e, "operator")]
			add(manifest.ScalarAt(e, "key"), op, vals)
		}
	}
	return sel
}
