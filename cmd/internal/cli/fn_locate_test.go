package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/action"
	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/files/loadroot"
	"github.com/krender/krender/lint/validator"
)

// located is a ResourceList as kustomize sends it: keys sorted, comments
// and the file's layout gone, the file named by an annotation.
const located = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: Service
  metadata:
    annotations:
      ANNOTATIONS0
    name: svc
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      ANNOTATIONS1
    name: web
  spec:
    containers:
    - env:
      - name: FLAGS
        value: --greeting=${GREETING} --level=${LEVEL}
      image: nginx
      name: web
functionConfig:
  apiVersion: krender.io/v1alpha1
  kind: Render
  metadata:
    annotations:
      FCANNOTATIONS
    name: krender
  spec:
    profile: p.yaml
`

// podFile is the file the items came from, as its author wrote it.
const podFile = `# the app
apiVersion: v1
kind: Service
metadata: {name: svc}
---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      image: nginx
      env:
        - {name: FLAGS, value: "--greeting=${GREETING} --level=${LEVEL}"}
`

func locatedList(ann0, ann1, fc string) string {
	return strings.NewReplacer("ANNOTATIONS0", ann0, "ANNOTATIONS1", ann1, "FCANNOTATIONS", fc).Replace(located)
}

// TestErrorsNameTheFile: a message about an item names the file the
// orchestrator read it from, at the line and column of the same text in
// that file, with the object and the field; kpt's path and index
// annotations and kustomize's origin annotation both say the file.
func TestErrorsNameTheFile(t *testing.T) {
	fsys := fstest.MapFS{
		"p.yaml":       {Data: []byte("vars: {GREETING: hi}\n")},
		"app/pod.yaml": {Data: []byte(podFile)},
		"app/fn.yaml":  {Data: []byte("# krender\napiVersion: krender.io/v1alpha1\nkind: Render\nmetadata:\n  name: krender\nspec:\n  profile: p.yaml\n  tennant: a\n")},
	}
	const want = "app/pod.yaml:15:64: Pod/web spec.containers[0].env[0].value: undefined variable ${LEVEL}"
	for _, c := range []struct{ name, ann0, ann1, want string }{
		{"kpt path and index", "{config.kubernetes.io/path: app/pod.yaml, config.kubernetes.io/index: '0'}",
			"{config.kubernetes.io/path: app/pod.yaml, config.kubernetes.io/index: '1'}", want},
		{"internal path", "{internal.config.kubernetes.io/path: app/pod.yaml}", "{internal.config.kubernetes.io/path: app/pod.yaml}", want},
		{"kustomize origin", "{}", "{config.kubernetes.io/origin: \"path: app/pod.yaml\\n\", config.kubernetes.io/index: '1'}", want},
		// (a MapFS holds no ../ paths; the kustomize tier reads a base's file)
		{"a base's file", "{}", "{config.kubernetes.io/origin: \"path: ../base/pod.yaml\\n\"}", "../base/pod.yaml: Pod/web spec.containers[0].env[0].value: undefined variable ${LEVEL}"},
		// kustomize's index is the item's place in the list: the object is
		// found by kind and name all the same.
		{"wrong index", "{}", "{config.kubernetes.io/path: app/pod.yaml, config.kubernetes.io/index: '7'}", want},
		{"remote base", "{}", "{config.kubernetes.io/origin: \"path: app/pod.yaml\\nrepo: https://github.com/example/deploy\\nref: v1\\n\"}",
			"https://github.com/example/deploy//app/pod.yaml?ref=v1: Pod/web spec.containers[0].env[0].value: undefined variable ${LEVEL}"},
		{"file not readable", "{}", "{config.kubernetes.io/path: gone/pod.yaml}", "gone/pod.yaml: Pod/web spec.containers[0].env[0].value: undefined variable ${LEVEL}"},
		{"a device", "{}", "{config.kubernetes.io/path: ../../../../../../../../dev/zero}", "../../../../../../../../dev/zero: Pod/web spec.containers[0].env[0].value: undefined variable ${LEVEL}"},
		{"no annotation", "{}", "{}", "stdin:20:47: Pod/web spec.containers[0].env[0].value (items[1]): undefined variable ${LEVEL}"},
	} {
		_, _, err := runFn(t, filesys.NewMem(fsys), locatedList(c.ann0, c.ann1, "{}"))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error\n%v\nwant it to start with\n%s", c.name, err, c.want)
		}
	}

	// functionConfig's own file, its YAML key and a did-you-mean.
	in := strings.Replace(locatedList("{}", "{}", `{config.kubernetes.io/origin: "path: app/fn.yaml\n"}`), "    profile: p.yaml\n", "    profile: p.yaml\n    tennant: a\n", 1)
	_, _, err := runFn(t, filesys.NewMem(fsys), in)
	if want := "app/fn.yaml:8:3: functionConfig spec.tennant: unknown key (did you mean tenant?); spec takes profile, tenant, set, check"; err == nil || err.Error() != want {
		t.Errorf("functionConfig typo: %v\nwant %s", err, want)
	}
	_, _, err = runFn(t, filesys.NewMem(fsys), strings.Replace(locatedList("{}", "{}", "{}"), "    profile: p.yaml\n", "    profile: [p.yaml]\n    set: {A: {b: c}}\n", 1))
	if want := "stdin:31:14: functionConfig spec.profile: want a string (to name the file, kustomize: buildMetadata: [originAnnotations])\nstdin:32:14: functionConfig spec.set.A: want a string value for A"; err == nil || err.Error() != want {
		t.Errorf("functionConfig types: %v\nwant %s", err, want)
	}
}

// TestNotesNameTheFile: the stages' notes, the ResourceList's results, are
// located as errors are.
func TestNotesNameTheFile(t *testing.T) {
	fsys := fstest.MapFS{"p.yaml": {Data: []byte("vars: {GREETING: hi, LEVEL: debug}\n")}, "app/pod.yaml": {Data: []byte(podFile)}}
	in := strings.Replace(locatedList("{}", "{config.kubernetes.io/path: app/pod.yaml}", "{}"), "      - name: FLAGS\n        value: --greeting=${GREETING} --level=${LEVEL}\n", "      - {name: A, valueFrom: {secretKeyRef: {name: missing, key: k}}}\n", 1)
	notes, out, err := krmFunction(t.Context(), []byte(in), fsys, &action.Fn{FS: filesys.NewMem(fsys), Validator: validator.APIServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Fatalf("the stages' notes are results, not stderr: %v", notes)
	}
	_, results, _ := strings.Cut(string(out), "\nresults:")
	// The file has no such env entry (an earlier function added it): the
	// object's own line.
	for _, want := range []string{"    file:\n      path: app/pod.yaml\n", "position: app/pod.yaml:6:1\n", "path: spec.containers[0].env[0].valueFrom.secretKeyRef.name\n", `Secret "missing" is not in this render`} {
		if !strings.Contains(results, want) {
			t.Fatalf("results lack %q:\n%s", want, results)
		}
	}
	if strings.Contains(results, "stdin:") {
		t.Fatalf("a result still names stdin:\n%s", results)
	}
}

// TestLocateReadsOnlyRegularFiles: an annotation naming a device (endless)
// or a directory gives the name alone, at once.
func TestLocateReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(p, []byte("vars: {GREETING: hi}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	zero := strings.Repeat("../", 40) + "dev/zero"
	for _, name := range []string{zero, "."} {
		in := strings.Replace(locatedList("{}", "{config.kubernetes.io/path: '"+name+"'}", "{}"), "profile: p.yaml", "profile: "+p, 1)
		none, err := loadroot.New(filesys.OS, "", loadroot.None, "") // the profile is in a temporary directory
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = krmFunction(t.Context(), []byte(in), filesys.OS, &action.Fn{FS: filesys.OS, Root: none, Validator: validator.APIServer{}})
		if want := name + ": Pod/web spec.containers[0].env[0].value: undefined variable ${LEVEL}"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %v, want %s", err, want)
		}
	}
}
