package action_test

import (
	"bytes"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/output"
	"github.com/krender/krender/model/ruleid"
)

// TestQuietRendersTheSameObjects: a quiet engine (krender diff's) keeps no
// note and skips the analyses that only note, and renders every object
// byte for byte as the engine that notes does. The fixture sets off each
// such analysis: a text naming a renamed ConfigMap by its old name, a
// variable no template uses, a ConfigMap no pod consumes, and a `$` left
// for the program that reads it.
func TestQuietRendersTheSameObjects(t *testing.T) {
	fixture := fstest.MapFS{
		"p.yaml": {Data: []byte("vars: {LEVEL: info, UNUSED: x}\ntenants:\n  a: {}\n  b: {vars: {LEVEL: debug}}\n")},
		"t/app.yaml": {Data: []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {level: "${LEVEL}"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unread}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1
          args: ["--configmap=settings"]
          envFrom: [{configMapRef: {name: settings}}]
---
apiVersion: example.com/v1
kind: Job
metadata: {name: report}
spec: {script: "echo $HOME"}
`)},
	}
	for _, c := range []struct {
		name    string
		fsys    filesys.Reader
		profile string
		paths   []string
		rules   []string // rules the loud render notes
	}{
		{"fixture", filesys.NewMem(fixture), "p.yaml", []string{"t"}, []string{ruleid.OldNameText, ruleid.UnusedVar, ruleid.HashKeepsName, ruleid.UnresolvedVar}},
		{"the sample profile", filesys.Dir("../"), "profiles/prod.yaml", []string{"templates"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out [2]bytes.Buffer
			var notes [2]int
			for i, quiet := range []bool{false, true} {
				e, err := action.Engine(c.fsys, action.Options{Profile: c.profile, Paths: c.paths, Quiet: quiet})
				if err != nil {
					t.Fatal(err)
				}
				res, err := output.WriteStream(e, &out[i])
				if err != nil {
					t.Fatal(err)
				}
				notes[i] = len(res.Notes)
				for _, r := range c.rules {
					found := false
					for _, n := range res.Notes {
						found = found || n.Rule == r
					}
					if !quiet && !found {
						t.Errorf("the render notes no %s: the fixture tests nothing", r)
					}
				}
			}
			if out[0].Len() == 0 || out[0].String() != out[1].String() {
				t.Errorf("quiet renders otherwise:\n%s\nloud:\n%s", out[1].String(), out[0].String())
			}
			if notes[1] != 0 {
				t.Errorf("a quiet render kept %d notes", notes[1])
			}
		})
	}
}
