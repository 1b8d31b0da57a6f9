package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/manifest"
)

func mapFS(files map[string]string) *filesys.Mem {
	m := fstest.MapFS{}
	for name, text := range files {
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return filesys.NewMem(m)
}

func renderErr(t *testing.T, files map[string]string, paths ...string) string {
	t.Helper()
	e, err := load(mapFS(files), Options{Profile: "p.yaml", Paths: paths})
	if err == nil {
		var out bytes.Buffer
		_, err = Map(e, func(s *manifest.Set) ([]byte, error) { return manifest.Marshal(s.Objects) },
			func(b []byte) error { _, err := out.Write(b); return err })
		if err == nil {
			t.Fatalf("rendered:\n%s", out.String())
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("more than one error:\n%v", err)
	}
	return err.Error()
}

const twoObjects = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"

// Tenants times templates past limits.objects is refused before any unit
// renders, at the first tenant past the limit, with the way to raise it.
func TestObjectLimitKnownBeforeRendering(t *testing.T) {
	e, err := load(mapFS(map[string]string{
		"p.yaml": "limits: {objects: 5}\nhash: {mode: off}\ntenants:\n  t1: {}\n  t2: {}\n  t3: {}\n",
		"a.yaml": twoObjects,
	}), Options{Profile: "p.yaml", Paths: []string{"a.yaml"}})
	want := "p.yaml:6:3: 3 tenants of 2 templates make at least 6 objects, more than 5; rendering would stop here: " +
		"raise it in the profile (limits: {objects: 6}) or render fewer tenants at once (-t, --shard) (limits.objects; see docs/limits.md)"
	if err == nil || err.Error() != want {
		t.Fatalf("New: %v, %v\nwant %s", e, err, want)
	}
	// Within the limit, the same fleet renders.
	if _, err := load(mapFS(map[string]string{
		"p.yaml": "limits: {objects: 6}\nhash: {mode: off}\ntenants:\n  t1: {}\n  t2: {}\n  t3: {}\n",
		"a.yaml": twoObjects,
	}), Options{Profile: "p.yaml", Paths: []string{"a.yaml"}}); err != nil {
		t.Fatal(err)
	}
}

// A limit only zone splits cross is found while rendering: the object past
// it is named, in the unit that reaches it.
func TestObjectLimitAcrossTenants(t *testing.T) {
	got := renderErr(t, map[string]string{
		"p.yaml": `limits: {objects: 5}
tenants: {t1: {}, t2: {}}
zones:
  z-a: {hostAliases: []}
  z-b: {hostAliases: []}
  z-c: {hostAliases: []}
zoneHosts: {strategy: split}
`,
		"d.yaml": splitDeployment,
	}, "d.yaml")
	want := "d.yaml:1:1: the render produces more than 5 objects; this one is past the limit (limits.objects; see docs/limits.md) (tenant t2)"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

const splitDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: app, image: x}]}\n"

// With Config.Once the last unit takes the templates rather than a copy:
// the output is the same, however many units render at once, and the
// engine refuses to render again.
func TestOnceRendersAsMany(t *testing.T) {
	files := mapFS(map[string]string{
		"p.yaml": "vars: {X: x}\ntenants: {t1: {vars: {X: one}}, t2: {}, t3: {vars: {X: three}}}\n",
		"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {k: $X}\n---\n" + twoObjects,
	})
	render := func(once bool, workers int) (string, *Engine) {
		e, err := load(files, Options{Profile: "p.yaml", Paths: []string{"a.yaml"}, Once: once})
		if err != nil {
			t.Fatal(err)
		}
		e.Workers = workers
		var out bytes.Buffer
		if _, err := Map(e, func(s *manifest.Set) ([]byte, error) { return manifest.Marshal(s.Objects) },
			func(b []byte) error { _, err := out.Write(b); return err }); err != nil {
			t.Fatal(err)
		}
		return out.String(), e
	}
	want, _ := render(false, 1)
	if !strings.Contains(want, "k: one") || !strings.Contains(want, "k: three") {
		t.Fatalf("unexpected output:\n%s", want)
	}
	for _, w := range []int{1, 2, 3} {
		got, e := render(true, w)
		if got != want {
			t.Fatalf("with Once and %d workers:\n%s\nwant\n%s", w, got, want)
		}
		for i, tpl := range e.Templates {
			if tpl != nil {
				t.Fatalf("template %d still held after the last unit", i)
			}
		}
		if _, err := e.Each(func(*manifest.Set) error { return nil }); err == nil {
			t.Fatal("an engine with Once rendered twice")
		}
	}
}

// Splitting by zone is refused before the copies are made.
func TestObjectLimitBeforeZoneSplit(t *testing.T) {
	got := renderErr(t, map[string]string{
		"p.yaml": `limits: {objects: 3}
zones:
  z-a: {hostAliases: []}
  z-b: {hostAliases: []}
  z-c: {hostAliases: []}
zoneHosts: {strategy: split}
`,
		"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {app: d}}\n  template:\n    metadata: {labels: {app: d}}\n    spec: {containers: [{name: app, image: x}]}\n",
		"c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
	}, "c.yaml", "d.yaml")
	if !strings.HasPrefix(got, "d.yaml:1:1: the render produces more than 3 objects") {
		t.Fatalf("got %s", got)
	}
}

// An injection that takes an object past limits.nodes is stopped before
// any later stage walks the object.
func TestInjectionHeldToNodeLimit(t *testing.T) {
	got := renderErr(t, map[string]string{
		"p.yaml": "limits: {nodes: 35}\ninject:\n  - {name: big, fragment: f.yaml, container: app}\n",
		"f.yaml": "env: [{name: A, value: a}, {name: B, value: b}, {name: C, value: c}]\n",
		"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec: {containers: [{name: app, image: x}]}\n",
	}, "d.yaml")
	if !strings.Contains(got, ": Deployment d has more than 35 nodes (limits.nodes; see docs/limits.md)") {
		t.Fatalf("got %s", got)
	}
}

// All templates of a run share one budget of nodes: a file of many small
// documents cannot hold more than one large one would.
func TestInputNodesAcrossFiles(t *testing.T) {
	list := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\nitems: [" + strings.Repeat("x, ", 40) + "x]\n"
	got := renderErr(t, map[string]string{
		"p.yaml": "limits: {inputNodes: 100}\n",
		"a.yaml": strings.Replace(list, "%s", "a", 1),
		"b.yaml": strings.Replace(list, "%s", "b", 1),
	}, "a.yaml", "b.yaml")
	if !strings.HasPrefix(got, "b.yaml:4:") || !strings.Contains(got, "the templates and fragments hold more than 100 nodes in all (limits.inputNodes") {
		t.Fatalf("got %s", got)
	}
}

// The bytes of all templates share one budget too.
func TestInputBytesAcrossFiles(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {k: " + strings.Repeat("x", 600) + "}\n"
	got := renderErr(t, map[string]string{
		"p.yaml": "limits: {inputBytes: 1000}\n",
		"a.yaml": strings.Replace(cm, "%s", "a", 1),
		"b.yaml": strings.Replace(cm, "%s", "b", 1),
	}, "a.yaml", "b.yaml")
	if !strings.HasPrefix(got, "b.yaml:4:") || !strings.Contains(got, "the templates and fragments are larger than 1000 in all (limits.inputBytes") {
		t.Fatalf("got %s", got)
	}
}

// limits.objects crossed by the objects of the first, a middle or the
// last template file, in the second tenant's render, with one worker and
// with several: the error names file k's object past the limit.
func TestObjectLimitInEveryFile(t *testing.T) {
	const n = 4
	files := map[string]string{}
	var paths []string
	for i := range n {
		name := fmt.Sprintf("d%d.yaml", i)
		files[name] = strings.Replace(splitDeployment, "{name: d}", fmt.Sprintf("{name: d%d}", i), 1)
		paths = append(paths, name)
	}
	for _, k := range []int{0, 1, n - 1} {
		// Each tenant makes 2n objects (each Deployment split in two
		// zones); the second tenant's 2k+2nd object is past the limit.
		files["p.yaml"] = fmt.Sprintf("limits: {objects: %d}\ntenants: {t1: {}, t2: {}}\nzones:\n  z-a: {hostAliases: []}\n  z-b: {hostAliases: []}\nzoneHosts: {strategy: split}\n", 2*n+2*k+1)
		for _, workers := range []int{1, 2} {
			e, err := load(mapFS(files), Options{Profile: "p.yaml", Paths: paths})
			if err != nil {
				t.Fatal(err)
			}
			e.Workers = workers
			_, err = e.Each(func(*manifest.Set) error { return nil })
			want := fmt.Sprintf("d%d.yaml:1:1: the render produces more than %d objects; this one is past the limit (limits.objects; see docs/limits.md) (tenant t2)", k, 2*n+2*k+1)
			if err == nil || err.Error() != want {
				t.Errorf("file %d, %d workers: got %v\nwant %s", k, workers, err, want)
			}
		}
	}
}
