package inject

import (
	"strings"
	"testing"

	"github.com/krender/krender/model/filepos"
	"github.com/krender/krender/model/manifest"
	"github.com/krender/krender/model/profiles"
)

// notesOf applies one entry (applyEntry) and returns the notes and the
// rendered objects.
func notesOf(t *testing.T, template, frag string, in profiles.Inject) ([]filepos.Note, string) {
	t.Helper()
	s := applyEntry(t, template, frag, in)
	out, err := manifest.Marshal(s.Objects)
	if err != nil {
		t.Fatal(err)
	}
	return s.Notes, string(out)
}

const unchangedNote = "p.yaml:3:5: warning: inject x changed nothing: each object it reaches already holds what its fragment gives [inject-unused]"

const twoApps = deployment + `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: other
spec:
  template:
    spec:
      containers:
        - name: app
          image: other:1
`

// TestEntryThatChangesNothingWarns: an entry whose fragment every object it
// reaches already holds (as Kubernetes reads it: quoting, comments and key
// order aside) warns under inject-unused, in both modes and at an into:
// path; one that changes a value, adds a field, or deletes something, in
// any object it reaches, does not.
func TestEntryThatChangesNothingWarns(t *testing.T) {
	container := profiles.Inject{Container: profiles.Str{Value: "app"}}
	appendMode := container
	appendMode.Mode = profiles.Str{Value: ModeAppend}
	into := profiles.Inject{Into: profiles.Str{Value: ".spec.template.spec"}}
	onlyApp := container
	onlyApp.Where = profiles.Str{Value: `.metadata.name == "app"`}
	deleting := onlyApp
	deleting.Delete = []profiles.Str{{Value: ".spec.template.spec.volumes[1]"}}
	deletingNothing := onlyApp
	deletingNothing.Delete = []profiles.Str{{Value: ".spec.template.spec.hostAliases"}}
	for _, c := range []struct {
		name, template, frag string
		in                   profiles.Inject
		warns                bool
	}{
		{"same env var", deployment, "env: [{name: A, value: \"1\"}]\n", container, true},
		{"same env var, quoted otherwise, keys reordered, commented", deployment,
			"env:\n  # the template has it\n  - value: '1'\n    name: A\n", container, true},
		{"same image and ports", deployment, "image: app:1\nports:\n  - {name: admin, containerPort: 9090}\n", container, true},
		{"same in append mode", deployment, "image: app:1\n", appendMode, true},
		{"same volume at an into: path", deployment, "volumes:\n  - name: cache\n    emptyDir: {}\n", into, true},
		{"a value changed", deployment, "env: [{name: A, value: \"2\"}]\n", container, false},
		{"a number for a string", deployment, "env: [{name: A, value: 1}]\n", container, false},
		{"a field added", deployment, "env: [{name: A, value: \"1\"}]\nworkingDir: /app\n", container, false},
		{"an env var added", deployment, "env: [{name: C, value: \"3\"}]\n", container, false},
		{"a list replaced in append mode", deployment, "env: [{name: A, value: \"1\"}]\n", appendMode, false}, // B is dropped
		{"an env var of another object's container", twoApps, "env: [{name: A, value: \"1\"}]\n", container, false},
		{"held by the only object selected", twoApps, "env: [{name: A, value: \"1\"}]\n", onlyApp, true},
		{"a deletion", twoApps, "env: [{name: A, value: \"1\"}]\n", deleting, false},
		{"a deletion that finds nothing", twoApps, "env: [{name: A, value: \"1\"}]\n", deletingNothing, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			notes, out := notesOf(t, c.template, c.frag, c.in)
			var got []string
			for _, n := range notes {
				got = append(got, n.String())
			}
			switch {
			case c.warns && (len(got) != 1 || got[0] != unchangedNote):
				t.Errorf("notes %q, want %q", got, unchangedNote)
			case !c.warns && len(got) != 0:
				t.Errorf("notes %q, want none\n%s", got, out)
			}
			if c.warns && c.template == deployment && !strings.Contains(out, "image: app:1") {
				t.Errorf("output lost the template:\n%s", out)
			}
		})
	}
}

// TestEntryThatReachesNothingWarnsAsBefore: the note of an entry that reaches
// no object keeps its own message under the same rule.
func TestEntryThatReachesNothingWarnsAsBefore(t *testing.T) {
	in := profiles.Inject{Container: profiles.Str{Value: "app"}, Where: profiles.Str{Value: `.metadata.name == "none"`}}
	notes, _ := notesOf(t, deployment, "env: [{name: C, value: \"3\"}]\n", in)
	want := "p.yaml:3:5: warning: inject x changed no object: no selected object has its target [inject-unused]"
	if len(notes) != 1 || notes[0].String() != want {
		t.Errorf("notes %v, want %q", notes, want)
	}
}

func TestSame(t *testing.T) {
	big := func(last string) string {
		var b strings.Builder
		for i := range 100 {
			b.WriteString("k" + strings.Repeat("x", i) + ": v\n")
		}
		return b.String() + "last: " + last + "\n"
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"a", "'a'", true},
		{"a # note", "a", true},
		{"{a: 1, b: [x, y]}", "{b: [x, y], a: 1}", true},
		{"~", "null", true},
		{"1", "'1'", false},
		{"[x, y]", "[y, x]", false},
		{"{a: 1}", "{a: 1, b: 2}", false},
		{"{a: 1, b: 2}", "{a: 1, c: 2}", false},
		{"{1: a}", "{'1': a}", false},
		{big("v"), big("v"), true},
		{big("v"), big("w"), false},
		{"[a]", "{a: b}", false},
	} {
		if got := same(parseNode(t, c.a), parseNode(t, c.b)); got != c.want {
			t.Errorf("same(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
