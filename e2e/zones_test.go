//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
)

type deployment struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Replicas int `json:"replicas"`
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		Template struct {
			Spec struct {
				HostAliases []struct {
					IP string `json:"ip"`
				} `json:"hostAliases"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

func renderTo(t *testing.T, fsys filesys.Reader, opts action.Options) string {
	t.Helper()
	e, err := action.Engine(fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := output.WriteStream(e, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func newNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%x", prefix, time.Now().UnixNano())
	if out, err := kubectl(t, "", "create", "namespace", ns); err != nil {
		t.Fatalf("create namespace: %v\n%s", err, out)
	}
	return ns
}

// TestZonesSplitApplies applies the bundled prod profile's split output: the
// API server checks each copy's selector against its pod labels, and a zone's
// objects are found by the zone label as the README says.
func TestZonesSplitApplies(t *testing.T) {
	ns := newNamespace(t, "krender-zones")
	stream := renderTo(t, filesys.OS, action.Options{Profile: "../profiles/prod.yaml", Tenants: []string{"tenant-a"},
		Set: []string{"TENANT_NAMESPACE=" + ns}, Paths: []string{"../templates"}})
	if out, err := kubectl(t, stream, "apply", "--validate=strict", "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	var list struct {
		Items []deployment `json:"items"`
	}
	kubectlJSON(t, &list, "get", "-n", ns, "deployments", "-l", "topology.kubernetes.io/zone=ap-northeast-2c")
	var names []string
	for _, d := range list.Items {
		names = append(names, d.Metadata.Name)
		if got := d.Spec.Selector.MatchLabels["topology.kubernetes.io/zone"]; got != "ap-northeast-2c" {
			t.Errorf("%s: selector zone %q", d.Metadata.Name, got)
		}
		if len(d.Spec.Template.Spec.HostAliases) != 1 || d.Spec.Template.Spec.HostAliases[0].IP != "10.0.33.10" {
			t.Errorf("%s: hostAliases %+v, want 10.0.33.10 only", d.Metadata.Name, d.Spec.Template.Spec.HostAliases)
		}
	}
	slices.Sort(names)
	if want := []string{"billing-api-2c", "mo-back-2c"}; !slices.Equal(names, want) {
		t.Errorf("deployments labelled ap-northeast-2c: %v, want %v", names, want)
	}
	replicas := 0
	for _, name := range []string{"mo-back-2a", "mo-back-2c"} {
		var d deployment
		kubectlJSON(t, &d, "get", "-n", ns, "deployment", name)
		replicas += d.Spec.Replicas
	}
	if replicas != 3 { // prod's BACKEND_REPLICAS
		t.Errorf("mo-back copies run %d replicas in all, want 3", replicas)
	}
	if out, err := kubectl(t, "", "get", "-n", ns, "deployment", "web-portal"); err != nil {
		t.Errorf("excluded web-portal was not applied under its own name: %v\n%s", err, out)
	}
}

// TestZonesSplitHPAApplies: the HPA copies are valid autoscaling/v2 objects
// that point at the zone copies with the divided bounds.
func TestZonesSplitHPAApplies(t *testing.T) {
	ns := newNamespace(t, "krender-zones-hpa")
	fsys := fstest.MapFS{
		"profile.yaml": {Data: []byte(`zones:
  zone-a:
  zone-b:
  zone-c:
zoneHosts:
  strategy: split
`)},
		"app.yaml": {Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - {name: app, image: registry.invalid/krender/api:1}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 2
  maxReplicas: 7
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
`)},
	}
	stream := renderTo(t, filesys.NewMem(fsys), action.Options{Profile: "profile.yaml", Namespace: ns, Paths: []string{"app.yaml"}})
	if out, err := kubectl(t, stream, "apply", "-n", ns, "--validate=strict", "-f", "-"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	var got []string
	for _, suffix := range []string{"a", "b", "c"} {
		var hpa struct {
			Spec struct {
				ScaleTargetRef struct {
					Name string `json:"name"`
				} `json:"scaleTargetRef"`
				MinReplicas int `json:"minReplicas"`
				MaxReplicas int `json:"maxReplicas"`
			} `json:"spec"`
		}
		kubectlJSON(t, &hpa, "get", "-n", ns, "hpa", "api-"+suffix)
		got = append(got, fmt.Sprintf("%s %d-%d", hpa.Spec.ScaleTargetRef.Name, hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas))
	}
	if want := "api-a 1-3, api-b 1-2, api-c 1-2"; strings.Join(got, ", ") != want {
		t.Errorf("HPA copies: %s, want %s", strings.Join(got, ", "), want)
	}
}
