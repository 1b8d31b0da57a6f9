package refs

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/workload"
)

func parse(t *testing.T, text string) *manifest.Object {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	return objs[0]
}

func found(t *testing.T, tab *Table, text string) []string {
	t.Helper()
	var out []string
	tab.Each(parse(t, text), func(f Found) {
		out = append(out, fmt.Sprintf("%s %s pod=%v quiet=%v line=%d", f.Ref.To, f.Name.Value, f.Ref.Pod, f.Ref.Quiet, f.Name.Line))
	})
	sort.Strings(out)
	return out
}

func builtin(t *testing.T) *Table {
	t.Helper()
	tab, err := Compile(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// podSpec names a distinct referent in every pod-spec field of the table, so
// that a field the walker misses shows up by name.
const podSpec = `
imagePullSecrets: [{name: pull}]
initContainers:
  - name: i
    envFrom: [{configMapRef: {name: init-cm}}, {secretRef: {name: init-secret}}]
    env:
      - {name: A, valueFrom: {configMapKeyRef: {name: init-cm-key, key: a}}}
      - {name: B, valueFrom: {secretKeyRef: {name: init-secret-key, key: b}}}
containers:
  - name: c
    envFrom: [{configMapRef: {name: c-cm}}, {secretRef: {name: c-secret}}]
    env:
      - {name: A, valueFrom: {configMapKeyRef: {name: c-cm-key, key: a}}}
      - {name: B, valueFrom: {secretKeyRef: {name: c-secret-key, key: b}}}
      - {name: C, value: not-a-reference}
      - {name: D, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
ephemeralContainers:
  - name: e
    envFrom: [{configMapRef: {name: e-cm}}]
volumes:
  - {name: v1, configMap: {name: vol-cm}}
  - {name: v2, secret: {secretName: vol-secret}}
  - {name: v3, projected: {sources: [{configMap: {name: proj-cm}}, {secret: {name: proj-secret}}, {downwardAPI: {items: []}}]}}
  - {name: v4, csi: {driver: d, nodePublishSecretRef: {name: csi-secret}}}
  - {name: v5, persistentVolumeClaim: {claimName: not-a-reference}}
`

var podWant = []string{
	"ConfigMap c-cm", "ConfigMap c-cm-key", "ConfigMap e-cm", "ConfigMap init-cm", "ConfigMap init-cm-key",
	"ConfigMap proj-cm", "ConfigMap vol-cm",
	"Secret c-secret", "Secret c-secret-key", "Secret csi-secret", "Secret init-secret", "Secret init-secret-key",
	"Secret proj-secret", "Secret pull", "Secret vol-secret",
}

func TestEveryPodKindEveryField(t *testing.T) {
	tab := builtin(t)
	for _, pk := range workload.Kinds() {
		t.Run(pk.Kind, func(t *testing.T) {
			path := append(append([]string(nil), pk.Template...), "spec")
			var b strings.Builder
			group := pk.Group
			if group == "" {
				group = "example.io"
			}
			fmt.Fprintf(&b, "apiVersion: %s/v1\nkind: %s\nmetadata: {name: x}\n", group, pk.Kind)
			indent := ""
			for _, k := range path {
				fmt.Fprintf(&b, "%s%s:\n", indent, k)
				indent += "  "
			}
			for _, line := range strings.Split(strings.TrimPrefix(podSpec, "\n"), "\n") {
				b.WriteString(indent + line + "\n")
			}
			var got []string
			tab.Each(parse(t, b.String()), func(f Found) {
				if !f.Ref.Pod {
					t.Errorf("%s %s: not marked as a pod field", f.Ref.To, f.Name.Value)
				}
				if f.Ref.Quiet != (f.Name.Value == "pull") {
					t.Errorf("%s %s: quiet=%v", f.Ref.To, f.Name.Value, f.Ref.Quiet)
				}
				if f.Ref.Consumes == (f.Name.Value == "pull") {
					t.Errorf("%s %s: consumes=%v (every pod field but the pull secret consumes)", f.Ref.To, f.Name.Value, f.Ref.Consumes)
				}
				got = append(got, f.Ref.To+" "+f.Name.Value)
			})
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(podWant, "\n") {
				t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(podWant, "\n"))
			}
		})
	}
}

func TestRolloutMustBeArgos(t *testing.T) {
	tab := builtin(t)
	doc := "apiVersion: %s\nkind: Rollout\nspec:\n  template:\n    spec:\n      volumes: [{name: v, configMap: {name: cm}}]\n"
	if got := found(t, tab, fmt.Sprintf(doc, "argoproj.io/v1alpha1")); len(got) != 1 {
		t.Errorf("Argo Rollout: %v", got)
	}
	if got := found(t, tab, fmt.Sprintf(doc, "example.com/v1")); len(got) != 0 {
		t.Errorf("another group's Rollout: %v", got)
	}
}

func TestRBACRulesAboutConfigMapsOnly(t *testing.T) {
	tab := builtin(t)
	got := found(t, tab, `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
rules:
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [settings, other]
  - apiGroups: [apps]
    resources: [deployments]
    resourceNames: [settings]
  - apiGroups: [""]
    resources: [secrets, pods]
    resourceNames: [token]
`)
	want := []string{
		"ConfigMap other pod=false quiet=true line=6",
		"ConfigMap settings pod=false quiet=true line=6",
		"Secret token pod=false quiet=true line=12",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAliasesFollowed(t *testing.T) {
	tab := builtin(t)
	got := found(t, tab, `apiVersion: apps/v1
kind: Deployment
metadata:
  annotations: {volumes: &vols [{name: v, configMap: {name: via-alias}}]}
spec:
  template:
    spec:
      volumes: *vols
`)
	if len(got) != 1 || !strings.HasPrefix(got[0], "ConfigMap via-alias") {
		t.Errorf("got %v", got)
	}
}

func TestProfileEntries(t *testing.T) {
	pos := filepos.Pos{File: "p.yaml", Line: 3, Col: 5}
	tab, err := Compile(append(Builtin(),
		Ref{Kind: "Widget", Group: "example.com", Path: `spec/sources[]/secret/name`, To: Secret, Pos: pos},
		Ref{Kind: "Deployment", Path: "spec/template/spec/volumes/azureFile/secretName", To: Secret, Pos: pos},
	))
	if err != nil {
		t.Fatal(err)
	}
	got := found(t, tab, "apiVersion: example.com/v1\nkind: Widget\nspec:\n  sources: [{secret: {name: a}}, {secret: {name: b}}]\n")
	if len(got) != 2 || strings.Contains(got[0], "pod=true") {
		t.Errorf("Widget: %v", got)
	}
	got = found(t, tab, "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      volumes: [{name: v, azureFile: {secretName: az}}]\n")
	if len(got) != 1 || !strings.Contains(got[0], "Secret az pod=true quiet=false") {
		t.Errorf("profile path under a pod template: %v", got)
	}

	_, err = Compile([]Ref{{Kind: "Widget", Path: "spec/x", To: "Service", Pos: pos}, {Path: "spec/x", To: Secret, Pos: pos}})
	if err == nil || !strings.Contains(err.Error(), `p.yaml:3:5: hash reference to "Service"`) || !strings.Contains(err.Error(), "needs a kind") {
		t.Errorf("errors: %v", err)
	}
}

// TestMounted: the volume fields whose referent a pod sees as files, in the
// order written, and not CSI's nodePublishSecretRef or empty names.
func TestMounted(t *testing.T) {
	o := parse(t, `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  volumes:
  - name: all
    configMap: {name: cm}
    secret: {secretName: s}
    projected:
      sources:
      - configMap: {name: pcm}
      - secret: {name: ps}
      - serviceAccountToken: {path: t}
    csi: {driver: d, nodePublishSecretRef: {name: creds}}
  - name: empty
    configMap: {name: ""}
`)
	for _, c := range []struct {
		volume int
		want   string
	}{
		{0, "ConfigMap cm, Secret s, ConfigMap pcm, Secret ps"},
		{1, ""},
	} {
		var got []string
		Mounted(o, manifest.Lookup(o.Node, "spec", "volumes").Content[c.volume], func(to string, name *yaml.Node) {
			got = append(got, to+" "+name.Value)
		})
		if g := strings.Join(got, ", "); g != c.want {
			t.Errorf("volume %d: got %q, want %q", c.volume, g, c.want)
		}
	}
}
