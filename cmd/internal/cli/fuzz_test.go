package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/model/manifest"
)

// Two fixed profiles: one with every stage that changes names (for crashes
// only), one whose render is a fixed point (hashing off), to render the
// output again.
const (
	fuzzProfile = `vars: {A: "1", B: "2.5", N: "3"}
zones:
  z-a: {hostAliases: [{ip: 10.0.0.1, hostnames: [fs.example.com]}]}
  z-b: {hostAliases: [{ip: 10.0.0.2, hostnames: [fs.example.com]}]}
zoneHosts: {strategy: static, zone: z-a}
inject:
  - name: env
    fragment: f.yaml
    where: .metadata.labels.app != "none"
    container: app
    delete: [.spec.template.spec.dnsConfig]
    values: {V: {value: v1, type: dns-label}}
`
	fuzzFragment = "env: [{name: FROM_FRAGMENT, value: __V__}]\n"
	fixedProfile = fuzzProfile + "hash: {mode: off}\n"
)

// positioned is an error line that names the file and line it is about.
var positioned = regexp.MustCompile(`^[^:\s]+\.yaml:\d+(:\d+)?: `)

// FuzzRender runs the whole pipeline on any template: every command exits
// 0 (or 1 for check's findings) or 2 with positioned errors, never crashes;
// a successful render parses, and rendering it again gives it back.
func FuzzRender(f *testing.F) {
	seeds, _ := filepath.Glob("../../../templates/*/*.yaml")
	seeds = append(seeds, "../../../testdata/render/structure-safe/app.yaml", "../../../testdata/check/list-items/app.yaml")
	for _, s := range seeds {
		if text, err := os.ReadFile(s); err == nil {
			f.Add(text)
		}
	}
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-${A}}\ndata: {n: $N, b: \"${B}\"}\n",
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: s}, stringData: {k: $A}}\n",
		"# c\n---\napiVersion: v1\nkind: ConfigMap # x\nmetadata: &m {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: *m\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers: [{name: app, command: [sh, -c, 'echo $HOME ${A} >> /etc/hosts']}]\n",
		"\xef\xbb\xbfapiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: x}\r\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, labels: &l {app: a}}\nspec:\n  selector: {matchLabels: *l}\n  template:\n    metadata: {labels: {<<: *l}}\n    spec: {containers: [{name: app, image: x}]}\n",
		"a: &x {b: 1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: *x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, tpl []byte) {
		fsys := fstest.MapFS{
			"p.yaml": &fstest.MapFile{Data: []byte(fuzzProfile)},
			"q.yaml": &fstest.MapFile{Data: []byte(fixedProfile)},
			"t.yaml": &fstest.MapFile{Data: tpl},
			"f.yaml": &fstest.MapFile{Data: []byte(fuzzFragment)},
		}
		for _, args := range [][]string{
			{"render", "-p", "p.yaml", "t.yaml"},
			{"check", "-p", "p.yaml", "t.yaml"},
			{"vars", "-p", "p.yaml", "t.yaml"},
		} {
			fuzzRun(t, fsys, tpl, args...)
		}
		out, ok := fuzzRun(t, fsys, tpl, "render", "-p", "q.yaml", "t.yaml")
		if !ok || out == "" {
			return
		}
		if _, err := manifest.Parse(manifest.NewSource("out.yaml", []byte(out))); err != nil {
			t.Fatalf("template %q rendered to output that does not parse: %v\n%s", tpl, err, out)
		}
		fsys["out.yaml"] = &fstest.MapFile{Data: []byte(out)}
		again, ok := fuzzRun(t, fsys, []byte(out), "render", "-p", "q.yaml", "out.yaml")
		if !ok || again != out {
			t.Fatalf("template %q: rendering the output again changes it\nfirst:\n%s\nagain:\n%s", tpl, out, again)
		}
	})
}

// fuzzRun runs one command and fails on anything but a clean outcome; ok
// is exit status 0.
func fuzzRun(t *testing.T, fsys fstest.MapFS, input []byte, args ...string) (string, bool) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb, filesys.NewMem(fsys))
	stderr := errb.String()
	switch {
	case strings.Contains(stderr, "internal error"):
		t.Fatalf("%v on %q crashed:\n%s", args, input, stderr)
	case code == exitOK, code == exitFindings && args[0] == "check":
		return out.String(), code == exitOK
	case code != exitError:
		t.Fatalf("%v on %q: exit %d\n%s", args, input, code, stderr)
	}
	if out.Len() != 0 {
		t.Fatalf("%v on %q failed but wrote to stdout:\n%s", args, input, out.String())
	}
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if !positioned.MatchString(line) {
			t.Fatalf("%v on %q: an error without file and line: %q", args, input, line)
		}
	}
	return "", false
}
