package subst

import (
	"fmt"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/krender/krender/model/manifest"
)

var planTemplates = map[string]string{
	"pod": `apiVersion: v1
kind: Pod
metadata:
  name: "q-${A}"
  annotations: {note: "$B and ${UNDEF}"}
spec:
  containers:
    - name: c
      image: img:${TAG:-latest}
      env: [{name: HOME_DIR, value: x}]
      args:
        - |
          X=1; echo $X $HOME_DIR ${A} ${B:-d} $Undefd
        - ${A}
`,
	"custom": `apiVersion: example.com/v1
kind: Thing
metadata: {name: t}
spec:
  script: "{{ $x }} $A $LOWER_NAME"
  count: ${N}
  params: [{name: P, default: "1"}]
  text: $P and $A
`,
	"key": `apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data:
  ${A}: v
  b: $B
`,
	"envName": `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      env: [{name: "${A}", value: x}]
      command: [sh, -c, "echo $B $A"]
`,
}

// TestPlanMatchesWalk: a template's plan substitutes its copies exactly as
// the scalar-by-scalar walk does, whatever each unit's values.
func TestPlanMatchesWalk(t *testing.T) {
	units := []map[string]string{
		{"A": "a1", "B": "yes", "TAG": "v1", "N": "3", "Undef": "u"},
		{"A": "a2", "B": "0x10"},
		{},
	}
	planned := map[string]bool{"pod": true, "custom": true}
	for name, text := range planTemplates {
		objs, err := manifest.Parse(manifest.NewSource(name+".yaml", []byte(text)))
		if err != nil {
			t.Fatal(err)
		}
		tpl := objs[0]
		st := new(Stage)
		for i, vars := range units {
			got, gotRefs := substituted(t, st, tpl.Clone(), vars)
			ref := tpl.Clone()
			off, _ := optOut(ref)
			walked := st.walk(newEnv(ref, vars, nil, off))
			judge(ref, walked, defined(vars, nil), st.silenced(ref))
			want, wantRefs := dump(t, ref), refsText(walked)
			if got != want || gotRefs != wantRefs {
				t.Errorf("%s unit %d: planned\n%s%s\nwalked\n%s%s", name, i, got, gotRefs, want, wantRefs)
			}
		}
		p, _ := st.plans.m.Load(keyOf(tpl))
		if has := p.(*plan) != nil; has != planned[name] {
			t.Errorf("%s: has a plan: %v, want %v", name, has, planned[name])
		}
	}
}

// TestPlanSkipsChangedCopies: an object that is no longer its template's
// copy is walked scalar by scalar.
func TestPlanSkipsChangedCopies(t *testing.T) {
	objs, err := manifest.Parse(manifest.NewSource("pod.yaml", []byte(planTemplates["pod"])))
	if err != nil {
		t.Fatal(err)
	}
	st := new(Stage)
	vars := map[string]string{"A": "1", "B": "2"}
	substituted(t, st, objs[0].Clone(), vars)
	changed := objs[0].Clone()
	manifest.Lookup(changed.Node, "metadata", "name").Value = "$B"
	got, _ := substituted(t, st, changed, vars)
	if manifest.ScalarAt(changed.Node, "metadata", "name") != "2" {
		t.Errorf("a changed copy went through the plan:\n%s", got)
	}
}

func substituted(t *testing.T, st *Stage, o *manifest.Object, vars map[string]string) (string, string) {
	t.Helper()
	refs, err := st.Substitute(o, vars, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if !inTree(o.Node, r.Node) {
			t.Errorf("%s: reference %s names a node outside its object", r.Pos, r.Text)
		}
	}
	return dump(t, o), refsText(refs)
}

func inTree(root, n *yaml.Node) bool {
	found := false
	manifest.Walk(root, func(c *yaml.Node) { found = found || c == n })
	return found
}

func dump(t *testing.T, o *manifest.Object) string {
	t.Helper()
	b, err := yaml.Marshal(o.Node)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func refsText(refs []manifest.Ref) string {
	s := ""
	for _, r := range refs {
		n := r.Node
		r.Node = nil
		s += fmt.Sprintf("%+v %s %s\n", r, n.Value, n.Tag)
	}
	return s
}
