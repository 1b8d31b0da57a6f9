package subst

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
	"github.com/krender/krender/model/ruleid"
)

func parseSet(t *testing.T, text string) *manifest.Set {
	t.Helper()
	objs, err := manifest.Parse(manifest.NewSource("t.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	return &manifest.Set{Vars: map[string]string{"A": "1"}, Objects: objs}
}

// refsOf lists every reference of the set: position, text and the fields
// that decide what render does with it.
func refsOf(s *manifest.Set) string {
	var b strings.Builder
	for _, o := range s.Objects {
		for _, r := range o.Refs {
			fmt.Fprintf(&b, "%s %s defined=%v runtime=%q kept=%q\n", r.Pos, r.Text, r.Defined, r.Runtime, r.Kept)
		}
	}
	return b.String()
}

func TestOptOutAnnotations(t *testing.T) {
	s := parseSet(t, `kind: ConfigMap
metadata:
  name: mine-$A
  annotations: {krender.io/substitute: disabled}
---
kind: ConfigMap
metadata:
  name: flux-$A
  labels: {kustomize.toolkit.fluxcd.io/substitute: disabled}
---
kind: ConfigMap
metadata:
  name: flux-other-$A
  annotations: {kustomize.toolkit.fluxcd.io/substitute: enabled}
`)
	if err := New(&profiles.Profile{}, false, nil).Apply(s); err != nil {
		t.Fatal(err)
	}
	want := `t.yaml:3:14 $A defined=true runtime="" kept="krender.io/substitute: disabled"
t.yaml:8:14 $A defined=true runtime="" kept="kustomize.toolkit.fluxcd.io/substitute: disabled"
t.yaml:13:20 $A defined=true runtime="" kept=""
`
	if got := refsOf(s); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	var names []string
	for _, o := range s.Objects {
		names = append(names, o.Name())
	}
	if got := strings.Join(names, " "); got != "mine-$A flux-$A flux-other-1" {
		t.Fatalf("names after substitution: %s", got)
	}
}

func TestOptOutNeedsItsOneValue(t *testing.T) {
	s := parseSet(t, "kind: ConfigMap\nmetadata:\n  name: c\n  annotations: {krender.io/substitute: disable}\n")
	err := New(&profiles.Profile{}, false, nil).Apply(s)
	if err == nil || err.Error() != `t.yaml:4:17: krender.io/substitute: "disable": the only value is "disabled" (no substitution in this object)` {
		t.Fatalf("got %v", err)
	}
}

// What silences unresolved-var for check lets render keep the reference;
// a defined name next to it is still substituted.
func TestSilencedUnresolvedIsKept(t *testing.T) {
	text := `kind: ConfigMap
metadata:
  name: c-$A
  annotations: {krender.io/ignore: "inotify-reload, unresolved-var"}
  labels: {x: $NOPE}
---
kind: ConfigMap
metadata:
  name: d
  labels: {x: $NOPE}
`
	s := parseSet(t, text)
	err := New(&profiles.Profile{}, false, nil).Apply(s)
	if err == nil || err.Error() != "t.yaml:10:15: undefined variable $NOPE: not in the profile's vars or --set; "+KeepHint {
		t.Fatalf("only the second object fails: %v", err)
	}
	want := `t.yaml:3:11 $A defined=true runtime="" kept=""
t.yaml:5:15 $NOPE defined=false runtime="" kept="krender.io/ignore: unresolved-var"
t.yaml:10:15 $NOPE defined=false runtime="" kept=""
`
	if got := refsOf(s); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}

	s = parseSet(t, text)
	p := &profiles.Profile{Check: profiles.Check{Disable: []profiles.Str{{Value: ruleid.UnresolvedVar}}}}
	if err := New(p, false, nil).Apply(s); err != nil {
		t.Fatalf("check.disable silences every object: %v", err)
	}
	if got := refsOf(s); !strings.Contains(got, `t.yaml:10:15 $NOPE defined=false runtime="" kept="the profile's check.disable: [unresolved-var]"`) {
		t.Fatal(got)
	}
}

func TestProfileRuntimeFields(t *testing.T) {
	s := parseSet(t, `apiVersion: example.com/v1
kind: Foo
metadata: {name: f}
spec:
  scripts: [{body: echo $RUN $A}]
  other: $RUN
`)
	p := &profiles.Profile{Substitution: profiles.Substitution{RuntimeFields: []profiles.RuntimeField{
		{Kind: profiles.Str{Value: "Foo"}, Group: profiles.Str{Value: "example.com"}, Keys: []string{"spec", "scripts", "body"}},
	}}}
	if err := New(p, false, nil).Apply(s); err != nil {
		t.Fatalf("a custom resource's own field is an unknown reader's, kept with a warning: %v", err)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0].Msg, "Foo/f keeps $RUN (spec.other) as written") {
		t.Fatalf("one warning for the object: %v", s.Notes)
	}
	strict := parseSet(t, string(s.Objects[0].Src.Text))
	st := New(p, false, nil)
	st.Strict = true
	err := st.Apply(strict)
	if err == nil || !strings.HasPrefix(err.Error(), "t.yaml:6:10: undefined variable $RUN") {
		t.Fatalf("under strict, only the field outside the runtime place fails: %v", err)
	}
	want := `t.yaml:5:25 $RUN defined=false runtime="runtime field of the profile" kept=""
t.yaml:5:30 $A defined=true runtime="runtime field of the profile" kept=""
t.yaml:6:10 $RUN defined=false runtime="" kept=""
`
	if got := refsOf(s); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	body := manifest.Value(manifest.Lookup(s.Objects[0].Node, "spec", "scripts").Content[0], "body").Value
	if body != "echo $RUN 1" {
		t.Fatalf("a defined variable is still substituted in a runtime place: %q", body)
	}
}

// TestGroupWithoutVersionIsNotCore: an apiVersion with no version is a
// custom group's, not the core group's, so its strings have an unknown reader.
func TestGroupWithoutVersionIsNotCore(t *testing.T) {
	s := parseSet(t, "apiVersion: fluentbit.fluent.io\nkind: ClusterFilter\nmetadata: {name: f}\nspec:\n  records: ['node_name ${NODE_NAME}']\n")
	if err := New(&profiles.Profile{}, false, nil).Apply(s); err != nil {
		t.Fatalf("an unknown reader's name is no error: %v", err)
	}
	s = parseSet(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\nimmutable: ${IMMUTABLE}\n")
	if err := New(&profiles.Profile{}, false, nil).Apply(s); err == nil {
		t.Fatal("a core object's field is Kubernetes'")
	}
}
