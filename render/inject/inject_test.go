package inject

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/workload"
	"github.com/krender/krender/render/inject/yqexpr"
)

func runShell(t *testing.T, script string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", script, err)
	}
	return string(out)
}

const template = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: mo-back
spec:
  template:
    spec:
      containers:
        - name: log-shipper
          image: fluent-bit:3.1
        - name: app
          image: mo-back:1.0
          env:
            - name: KEEP
              value: "1"
`

const fragmentText = `# header, set off by a blank line

env:
  - name: NODE_IP
    valueFrom:
      fieldRef:
        fieldPath: status.hostIP
args:
  - |
    echo "__IP__ efs" >> /etc/hosts
`

func newStage(t testing.TB, mode string) *Stage {
	t.Helper()
	files := map[string][]byte{"frag.yaml": []byte(fragmentText)}
	read := func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, os.ErrNotExist
	}
	at := func(line int) filepos.Pos { return filepos.Pos{File: "p.yaml", Line: line, Col: 5} }
	p := &profiles.Profile{IstioGuard: true, Inject: []profiles.Inject{{
		Name:         profiles.Str{Value: "efs", Pos: at(2)},
		Fragment:     profiles.Str{Value: "frag.yaml", Pos: at(3)},
		Container:    profiles.Str{Value: "app", Pos: at(4)},
		Mode:         profiles.Str{Value: mode, Pos: at(5)},
		Values:       map[string]profiles.InjectValue{"IP": value("10.0.1.10", "ip", false)},
		FragmentPath: "frag.yaml",
		Pos:          at(2),
	}}}
	st, err := New(read, p, yqexpr.Syntax{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func render(t testing.TB, st *Stage) (*manifest.Set, *manifest.Object) {
	t.Helper()
	s := applyTo(t, st, template)
	return s, s.Objects[0]
}

// applyTo runs st over the objects of text, read as app.yaml.
func applyTo(t testing.TB, st *Stage, text string) *manifest.Set {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("app.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	s := &manifest.Set{Objects: objs}
	if err := st.Apply(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestInjectedNodesNameTheFragment: positions of injected nodes are in the
// fragment file, those of the template stay in the template, in both modes
// (append goes through yqlib, which copies every node it touches).
func TestInjectedNodesNameTheFragment(t *testing.T) {
	for _, mode := range []string{ModeMerge, ModeAppend} {
		t.Run(mode, func(t *testing.T) {
			_, o := render(t, newStage(t, mode))
			app := workload.Container(workload.PodSpec(o), "app")
			args := manifest.Value(app, "args").Content[0]
			if got := o.Pos(args).String(); got != "frag.yaml:9:5" {
				t.Errorf("injected args at %s, want frag.yaml:9:5", got)
			}
			if got := o.Pos(manifest.Value(app, "image")).String(); got != "app.yaml:12:18" {
				t.Errorf("template image at %s, want app.yaml:12:18", got)
			}
			if got := o.Pos(manifest.Value(app, "name")).String(); got != "app.yaml:11:17" {
				t.Errorf("template name at %s, want app.yaml:11:17", got)
			}
			if args.Value != "echo \"10.0.1.10 efs\" >> /etc/hosts\n" {
				t.Errorf("placeholder not filled: %q", args.Value)
			}
		})
	}
}

// TestModesDifferOnlyWhereYqReplacesLists: append is yq's +=, which
// replaces the env list; merge keeps the entry the fragment does not name.
func TestModesDifferOnlyWhereYqReplacesLists(t *testing.T) {
	names := func(mode string) []string {
		_, o := render(t, newStage(t, mode))
		var out []string
		for _, e := range manifest.Value(workload.Container(workload.PodSpec(o), "app"), "env").Content {
			out = append(out, manifest.ScalarAt(e, "name"))
		}
		return out
	}
	if got := fmt.Sprint(names(ModeMerge)); got != "[KEEP NODE_IP]" {
		t.Errorf("merge: env %s, want [KEEP NODE_IP]", got)
	}
	if got := fmt.Sprint(names(ModeAppend)); got != "[NODE_IP]" {
		t.Errorf("append: env %s, want [NODE_IP] (yq's += replaces the list)", got)
	}
}

// TestFragmentIsNotShared: every target gets its own copy, so changing one
// render's output cannot leak into another tenant's.
func TestFragmentIsNotShared(t *testing.T) {
	st := newStage(t, ModeMerge)
	_, a := render(t, st)
	_, b := render(t, st)
	argsOf := func(o *manifest.Object) *yaml.Node {
		return manifest.Value(workload.Container(workload.PodSpec(o), "app"), "args").Content[0]
	}
	argsOf(a).Value = "changed"
	if argsOf(b).Value == "changed" || st.entries[0].frag.node.Content[3].Content[0].Value == "changed" {
		t.Error("injected nodes are shared between renders")
	}
}

// parseNode is the YAML document s's node.
func parseNode(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var d yaml.Node
	if err := yaml.Load([]byte(s), &d); err != nil {
		t.Fatal(err)
	}
	return d.Content[0]
}

func TestMergeNamedLists(t *testing.T) {
	parse := func(s string) *yaml.Node { return parseNode(t, s) }
	dst := parse(`containers:
  - name: app
    image: app:1
    resources: {limits: {cpu: "1"}}
volumes:
  - name: data
    persistentVolumeClaim: {claimName: shared}
  - name: keep
    emptyDir: {}
ports: [80]
`)
	frag := parse(`containers:
  - name: app
    resources: {limits: {memory: 1Gi}}
  - name: sidecar
    image: side:1
volumes:
  - name: data
    emptyDir: {}
ports: [8080]
`)
	o, fsrc := &manifest.Object{Node: dst}, manifest.NewSource("frag.yaml", nil)
	merge(dst, frag, nil, grafter{o, fsrc}) // of unknown type: lists merge on name
	got, err := manifest.Marshal([]*manifest.Object{{Node: dst}})
	if err != nil {
		t.Fatal(err)
	}
	want := `containers:
  - name: app
    image: app:1
    resources: {limits: {cpu: "1", memory: 1Gi}}
  - name: sidecar
    image: side:1
volumes:
  - name: data
    emptyDir: {}
  - name: keep
    emptyDir: {}
ports: [8080]
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	sidecar := manifest.Value(dst, "containers").Content[1]
	for what, n := range map[string]*yaml.Node{"replaced list": manifest.Value(dst, "ports"), "added item": sidecar,
		"its scalar": manifest.Value(sidecar, "image"), "added key": manifest.Lookup(manifest.Value(dst, "containers").Content[0], "resources", "limits").Content[2]} {
		if o.SourceOf(n) != fsrc {
			t.Errorf("%s copied from the fragment does not name it", what)
		}
	}
	if o.SourceOf(manifest.Value(manifest.Value(dst, "containers").Content[0], "image")) == fsrc {
		t.Error("a template node names the fragment")
	}
}
