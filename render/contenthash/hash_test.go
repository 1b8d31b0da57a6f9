package contenthash_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/kustomize/api/hasher"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/render/contenthash"
)

// sumByText is the other way across the yaml/v4 -> kyaml boundary: print the
// object and let kyaml parse it. Sum must agree with it on every input.
func sumByText(t testing.TB, o *manifest.Object) string {
	t.Helper()
	text, err := manifest.Marshal([]*manifest.Object{o})
	if err != nil {
		t.Fatal(err)
	}
	rn, err := kyaml.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	h, err := (&hasher.Hasher{}).Hash(rn)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func parseFile(t testing.TB, path string) []*manifest.Object {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Parse(manifest.NewSource(path, text))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

const aliases = `apiVersion: v1
kind: ConfigMap
metadata:
  name: anchors
data:
  first: &v "1"
  second: *v
  number-like: "0x10"
  folded: >
    one
    two
`

func TestSumAgreesWithTextRoute(t *testing.T) {
	files, _ := filepath.Glob("testdata/parity/*.yaml")
	var objs []*manifest.Object
	for _, f := range files {
		objs = append(objs, parseFile(t, f)...)
	}
	more, err := manifest.Parse(manifest.NewSource("aliases.yaml", []byte(aliases)))
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, more...)
	n := 0
	for _, o := range objs {
		if k := o.Kind(); k != "ConfigMap" && k != "Secret" {
			continue
		}
		n++
		got, err := contenthash.Sum(o.Node)
		if err != nil {
			t.Fatal(err)
		}
		if want := sumByText(t, o); got != want {
			t.Errorf("%s %s: field copy gives %s, text gives %s", o.Kind(), o.Name(), got, want)
		}
	}
	if n < 15 {
		t.Fatalf("only %d ConfigMaps/Secrets found in the corpus", n)
	}
}

// sumText hashes the first object of a YAML text.
func sumText(t *testing.T, text string) string {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("s.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := contenthash.Sum(objs[0].Node)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An alias whose anchor is outside the hashed fields hashes as its value
// (kustomize's hasher fails there: it prints data alone, anchor missing).
func TestSumResolvesAliases(t *testing.T) {
	aliased := sumText(t, "kind: ConfigMap\nmetadata:\n  labels: {team: &team payments}\ndata:\n  owner: *team\n  again: *team\n")
	expanded := sumText(t, "kind: ConfigMap\ndata:\n  owner: payments\n  again: payments\n")
	if aliased != expanded {
		t.Errorf("aliased data hashes %s, the same data written out %s", aliased, expanded)
	}
}

// The name, labels and annotations are not content: changing them must not
// change the hash; any data change must.
func TestSumIsContentOnly(t *testing.T) {
	base := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\ntype: Opaque\ndata:\n  k: dg==\n"
	b := sumText(t, base)
	for _, same := range []string{
		strings.Replace(base, "name: a", "name: b\n  labels: {x: y}\n  annotations: {z: w}", 1),
		strings.Replace(base, "apiVersion: v1\n", "apiVersion: v1\nimmutable: true\n", 1),
	} {
		if s := sumText(t, same); s != b {
			t.Errorf("metadata changed the hash (%s -> %s):\n%s", b, s, same)
		}
	}
	for _, other := range []string{
		strings.Replace(base, "dg==", "dw==", 1),
		strings.Replace(base, "Opaque", "kubernetes.io/basic-auth", 1),
		base + "stringData:\n  extra: x\n",
	} {
		if s := sumText(t, other); s == b {
			t.Errorf("content change kept the hash %s:\n%s", b, other)
		}
	}
}

const rollTemplates = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    release: ${RELEASE}
data:
  level: ${LEVEL}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
        - name: app
          image: app:1
          env:
            - name: LEVEL
              valueFrom:
                configMapKeyRef: {name: settings, key: level}
`

func renderRoll(t *testing.T, mode string, set ...string) (cm, podTemplate map[string]any) {
	t.Helper()
	fsys := fstest.MapFS{
		"profile.yaml": {Data: []byte("vars: {LEVEL: info, RELEASE: r1}\nhash: {mode: " + mode + "}\n")},
		"app.yaml":     {Data: []byte(rollTemplates)},
	}
	e, err := action.Engine(filesys.NewMem(fsys), action.Options{Profile: "profile.yaml", Paths: []string{"app.yaml"}, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := output.WriteStream(e, &out); err != nil {
		t.Fatal(err)
	}
	objs := decodeAll(t, out.Bytes())
	if len(objs) != 2 {
		t.Fatalf("want 2 objects, got %d", len(objs))
	}
	tpl, _ := field(objs[1], "spec", "template").(map[string]any)
	return objs[0], tpl
}

// A changed value must change what the Deployment's pods are made from, so
// Kubernetes rolls them; a changed label must not.
func TestChangedValueRollsPods(t *testing.T) {
	t.Run("suffix", func(t *testing.T) {
		cm1, tpl1 := renderRoll(t, "suffix")
		cm2, tpl2 := renderRoll(t, "suffix", "LEVEL=debug")
		n1, n2 := str(cm1, "metadata", "name"), str(cm2, "metadata", "name")
		if n1 == n2 || !strings.HasPrefix(n1, "settings-") || !strings.HasPrefix(n2, "settings-") {
			t.Fatalf("names %q and %q: want two different settings-<hash>", n1, n2)
		}
		for _, c := range []struct {
			tpl  map[string]any
			name string
		}{{tpl1, n1}, {tpl2, n2}} {
			if ref := str(c.tpl, "spec", "containers", "0", "env", "0", "valueFrom", "configMapKeyRef", "name"); ref != c.name {
				t.Errorf("pod template refers to %q, want %q", ref, c.name)
			}
		}
		if cmp.Equal(tpl1, tpl2) {
			t.Error("pod template unchanged: the pods would not roll")
		}
		cm3, tpl3 := renderRoll(t, "suffix", "RELEASE=r2")
		if str(cm3, "metadata", "name") != n1 || !cmp.Equal(tpl1, tpl3) {
			t.Errorf("a label change renamed the ConfigMap (%s -> %s) or changed the pod template", n1, str(cm3, "metadata", "name"))
		}
	})
	t.Run("annotation", func(t *testing.T) {
		cm1, tpl1 := renderRoll(t, "annotation")
		cm2, tpl2 := renderRoll(t, "annotation", "LEVEL=debug")
		if str(cm1, "metadata", "name") != "settings" || str(cm2, "metadata", "name") != "settings" {
			t.Fatalf("annotation mode renamed the ConfigMap: %q, %q", str(cm1, "metadata", "name"), str(cm2, "metadata", "name"))
		}
		h1 := str(tpl1, "metadata", "annotations", contenthash.ConfigHashKey)
		h2 := str(tpl2, "metadata", "annotations", contenthash.ConfigHashKey)
		if h1 == "" || h2 == "" || h1 == h2 {
			t.Errorf("config-hash %q then %q: want two different values", h1, h2)
		}
		_, tpl3 := renderRoll(t, "annotation", "RELEASE=r2")
		if h3 := str(tpl3, "metadata", "annotations", contenthash.ConfigHashKey); h3 != h1 {
			t.Errorf("a label change moved config-hash %s -> %s", h1, h3)
		}
	})
}
