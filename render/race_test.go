package render

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/manifest"
)

// raceFiles are templates and two profiles that differ in every value and
// both inject with mode: append, whose expression the engine compiles while
// it is built.
var raceFiles = map[string]string{
	"app.yaml": `apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  ports:
    - port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  template:
    spec:
      containers:
        - name: api
          image: api:1.0
`,
	"frag.yaml": "env:\n  - name: PORT\n    value: \"__PORT__\"\n",
	"a.yaml": `inject:
  - name: port
    fragment: frag.yaml
    into: .spec.template.spec.containers[0]
    where: .kind == "Deployment"
    mode: append
    values:
      PORT: {value: "8080", type: int}
`,
	"b.yaml": `inject:
  - name: port
    fragment: frag.yaml
    into: .spec.template.spec.containers[] | select(.name == "api")
    mode: append
    values:
      PORT: {value: "9090", type: int}
`,
}

// renderProfile builds an engine for profile and renders every unit.
func renderProfile(fsys fstest.MapFS, profile string) ([]byte, error) {
	e, err := load(filesys.NewMem(fsys), Options{Profile: profile, Paths: []string{"app.yaml"}})
	if err != nil {
		return nil, err
	}
	e.Workers = 2
	var out bytes.Buffer
	_, err = e.Each(func(s *manifest.Set) error {
		b, err := manifest.Marshal(s.Objects)
		out.Write(b)
		return err
	})
	return out.Bytes(), err
}

// TestEnginesBuiltAndRunAtOnce builds and runs engines for two profiles at
// the same time, as a program serving several renders does; under -race it
// fails on any package state that building or rendering writes, and in
// any case each engine must render what it renders alone.
func TestEnginesBuiltAndRunAtOnce(t *testing.T) {
	fsys := fstest.MapFS{}
	for name, text := range raceFiles {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	// At once first: the engines of a fresh process, before anything is cached.
	var mu sync.Mutex
	got := map[string][][]byte{}
	var wg sync.WaitGroup
	for range 4 {
		for _, profile := range []string{"a.yaml", "b.yaml"} {
			wg.Go(func() {
				b, err := renderProfile(fsys, profile)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					t.Errorf("%s: %v", profile, err)
				}
				got[profile] = append(got[profile], b)
			})
		}
	}
	wg.Wait()
	want := map[string][]byte{}
	for profile, port := range map[string]string{"a.yaml": "8080", "b.yaml": "9090"} {
		b, err := renderProfile(fsys, profile)
		if err != nil {
			t.Fatalf("%s: %v", profile, err)
		}
		if !strings.Contains(string(b), "value: \""+port+"\"") {
			t.Fatalf("%s rendered without its port %s:\n%s", profile, port, b)
		}
		want[profile] = b
	}
	for profile, outs := range got {
		for _, b := range outs {
			if !bytes.Equal(b, want[profile]) {
				t.Errorf("%s rendered beside another engine:\n%s\nalone:\n%s", profile, b, want[profile])
			}
		}
	}
}
