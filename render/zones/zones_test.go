package zones_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8syaml "sigs.k8s.io/yaml"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/lint/fieldcheck"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
	"github.com/krender/krender/render/zones"
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
	fsys := fstest.MapFS{
		"profile.yaml": {Data: []byte(profile)},
		"app.yaml":     {Data: []byte(templates)},
	}
	e, err := action.Engine(filesys.NewMem(fsys), action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.Render(e.Units[0])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSplitSelectors decodes the output into the k8s.io/api types and
// evaluates the selectors with Kubernetes' own matching: whatever selected
// the original's pods (Service, PDB, NetworkPolicy) still selects every
// copy's pods, and each copy's selector selects its own pods only, so the
// copies never count each other's.
func TestSplitSelectors(t *testing.T) {
	s := renderSplit(t)
	var names []string
	var copies []appsv1.Deployment
	selectors := map[string]labels.Selector{}
	for _, o := range s.Objects {
		names = append(names, o.Kind()+"/"+o.Name())
		switch o.Kind() {
		case "Deployment":
			var d appsv1.Deployment
			decode(t, o, &d)
			copies = append(copies, d)
		case "Service":
			var svc corev1.Service
			decode(t, o, &svc)
			selectors["Service"] = labels.SelectorFromSet(svc.Spec.Selector)
		case "PodDisruptionBudget":
			var pdb policyv1.PodDisruptionBudget
			decode(t, o, &pdb)
			selectors["PodDisruptionBudget"] = selector(t, pdb.Spec.Selector)
		case "NetworkPolicy":
			var np networkingv1.NetworkPolicy
			decode(t, o, &np)
			selectors["NetworkPolicy"] = selector(t, &np.Spec.PodSelector)
		}
	}
	wantNames := []string{"Service/mo-back", "Deployment/mo-back-2a", "Deployment/mo-back-2b", "Deployment/mo-back-2c",
		"PodDisruptionBudget/mo-back", "NetworkPolicy/mo-back"}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("objects = %v, want %v (copies in place of the original, in zone order)", names, wantNames)
	}
	for _, c := range copies {
		pod := labels.Set(c.Spec.Template.Labels)
		for kind, sel := range selectors {
			if !sel.Matches(pod) {
				t.Errorf("%s selector %q does not select the pods of %s (labels %v)", kind, sel, c.Name, pod)
			}
		}
		for _, other := range copies {
			own := selector(t, other.Spec.Selector)
			if got, want := own.Matches(pod), other.Name == c.Name; got != want {
				t.Errorf("selector of %s (%q) matches pods of %s: %v, want %v", other.Name, own, c.Name, got, want)
			}
		}
	}
}

// TestOutputDecodesStrictly: every object the golden cases render decodes
// into its k8s.io/api type with no unknown or mistyped field, as `kubectl
// apply --validate=strict` requires.
func TestOutputDecodesStrictly(t *testing.T) {
	for _, dir := range []string{"split", "hpa-split", "pinned", "static", "legacy", "replicas-3-zones", "yaml11-quoting", "split-hash"} {
		raw, err := os.ReadFile(filepath.Join("../../testdata/zones", dir, "args"))
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Fields(string(raw)) // render -p PROFILE PATH...
		e, err := action.Engine(filesys.Dir(filepath.Join("../../testdata/zones", dir)), action.Options{Profile: args[2], Paths: args[3:]})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range e.Units {
			set, err := e.Render(u)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range set.Objects {
				if !fieldcheck.Known(o) {
					continue
				}
				problems, err := fieldcheck.Check(o)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range problems {
					t.Errorf("%s: %s %s: %s", dir, o.Kind(), o.Name(), p.Msg)
				}
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

func decode(t *testing.T, o *manifest.Object, into any) {
	t.Helper()
	b, err := manifest.Marshal([]*manifest.Object{o})
	if err != nil {
		t.Fatal(err)
	}
	if err := k8syaml.UnmarshalStrict(b, into); err != nil {
		t.Fatalf("%s %s: %v", o.Kind(), o.Name(), err)
	}
}

func selector(t *testing.T, ls *metav1.LabelSelector) labels.Selector {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}
