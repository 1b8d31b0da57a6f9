package profiles

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadFiles(t *testing.T, files map[string]string, root string) (*Profile, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return LoadWith(filepath.Join(dir, root), os.ReadFile)
}

func TestExtendsMergesEachSectionByItsKey(t *testing.T) {
	p, err := loadFiles(t, map[string]string{
		"base/base.yaml": `namespace: base-ns
vars: {A: a0, B: b0}
tenants:
  t1: {vars: {X: x0, Y: y0}}
inject:
  - {name: one, fragment: frags/one.yaml}
  - {name: two, fragment: frags/two.yaml}
zones:
  z-a: {hostAliases: [{ip: 10.0.0.1, hostnames: [h.example.com]}]}
hash: {mode: annotation}
istioGuard: false
`,
		"env.yaml": `extends: base/base.yaml
vars: {B: b1, C: c1}
tenants:
  t2: {}
  t1: {vars: {Y: y1}}
inject:
  - {name: one, fragment: mine.yaml, container: app}
zones:
  z-b: {hostAliases: []}
`,
	}, "env.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Vars.Names(), ","); got != "A,B,C" {
		t.Fatalf("var order %s", got)
	}
	if v, _ := p.Vars.Lookup("B"); v != "b1" {
		t.Fatalf("B = %s", v)
	}
	if len(p.Tenants) != 2 || p.Tenants[0].Name != "t1" || p.Tenants[1].Name != "t2" {
		t.Fatalf("tenants %+v", p.Tenants)
	}
	if x, _ := p.Tenants[0].Vars.Lookup("X"); x != "x0" {
		t.Fatal("tenant vars from the base were lost")
	}
	if y, _ := p.Tenants[0].Vars.Lookup("Y"); y != "y1" {
		t.Fatal("tenant vars were not overridden")
	}
	if len(p.Inject) != 2 || p.Inject[0].Container.Value != "app" || p.Inject[1].Name.Value != "two" {
		t.Fatalf("inject entries %+v", p.Inject)
	}
	if !strings.HasSuffix(p.Inject[0].FragmentPath, "mine.yaml") || !strings.HasSuffix(filepath.ToSlash(p.Inject[1].FragmentPath), "base/frags/two.yaml") {
		t.Fatalf("fragment paths must be relative to the file that names them: %s, %s", p.Inject[0].FragmentPath, p.Inject[1].FragmentPath)
	}
	if len(p.Zones) != 2 || p.Zones[0].Name != "z-a" || p.Zones[0].HostAliases[0].IP.Pos.Line != 9 {
		t.Fatalf("zones %+v", p.Zones)
	}
	if !strings.HasSuffix(p.Zones[0].HostAliases[0].IP.Pos.File, "base.yaml") {
		t.Fatalf("positions must name the file they were written in: %v", p.Zones[0].HostAliases[0].IP.Pos)
	}
	if p.Namespace.Value != "base-ns" || p.Hash.Mode.Value != "annotation" || p.IstioGuard {
		t.Fatalf("scalar sections not inherited: %+v", p)
	}
}

func TestProfileErrors(t *testing.T) {
	cases := map[string]string{
		"vars: {1A: x}\n":                                  `p.yaml:1:8: variable name "1A" must match [A-Za-z_][A-Za-z0-9_]*`,
		"tenants:\n  Bad_Name: {}\n":                       `p.yaml:2:3: tenant name "Bad_Name" must be a DNS label`,
		"tenants:\n  t: {vars: [1]}\n":                     `p.yaml:2:13: vars must be a mapping`,
		"istioGuard: maybe\n":                              `p.yaml:1:13: expected true or false, found str "maybe"`,
		"istioGuard: maybe-not-today\n":                    `p.yaml:1:13: expected true or false, found str "maybe-n..."`,
		"istioGuard: [a]\n":                                `p.yaml:1:13: expected true or false, found seq`,
		"zones:\n  z: {hostAliases: {ip: 1}}\n":            `p.yaml:2:20: expected a list, found map`,
		"zones:\n  a: {}\n  z: {hostAlias: []}\n":          `p.yaml:3:7: unknown key "hostAlias" (did you mean hostAliases?)`,
		"inject:\n  - fragment: x.yaml\n":                  `p.yaml:2:5: inject entry needs a name`,
		"zones:\n  z: {hostAliases: [{ip: 1, host: x}]}\n": `p.yaml:2:29: unknown key "host"`,
		"namespce: x\n":                                    `p.yaml:1:1: unknown key "namespce" (did you mean namespace?)`,
		"zones:\n  z: {hostAlias: []}\n":                   `p.yaml:2:7: unknown key "hostAlias" (did you mean hostAliases?)`,
		"hash: {mode: off, refrences: []}\n":               `p.yaml:1:19: unknown key "refrences" (did you mean references?)`,
		"limits: {inputNode: 5}\n":                         `p.yaml:1:10: unknown limit "inputNode" (did you mean inputNodes?) (limits: fileBytes`,
		"substitution:\n  runtimeFields:\n    - {group: example.com, path: spec/x}\n": `p.yaml:3:7: runtime field needs a kind`,
		"substitution:\n  runtimeFields:\n    - kind: Foo\n":                          `p.yaml:3:7: runtime field needs a path (like spec/scripts/body)`,
		"substitution:\n  runtimeFields:\n    - {kind: Foo, path: spec//x}\n":         `p.yaml:3:25: path "spec//x" has an empty key`,
		"substitution:\n  runtimeFields:\n    - {kind: Foo, path: a, to: Secret}\n":   `p.yaml:3:28: unknown key "to"`,
		"substitution:\n  runtime: []\n":                                              `p.yaml:2:3: unknown key "runtime"`,
		"substitution:\n  runtimeFields: [spec/x]\n":                                  `p.yaml:2:19: expected a mapping, found str "spec/x"`,
		"- a\n":                `p.yaml:1:1: a profile must be a mapping`,
		"extends: nope.yaml\n": `p.yaml:1:10: cannot read profile`,
	}
	for body, want := range cases {
		_, err := loadFiles(t, map[string]string{"p.yaml": body}, "p.yaml")
		if err == nil {
			t.Errorf("%q: no error, want %s", body, want)
			continue
		}
		got := err.Error()
		if i := strings.Index(got, "p.yaml:"); i >= 0 {
			got = got[i:]
		}
		if !strings.HasPrefix(got, want) {
			t.Errorf("%q:\n got  %s\n want %s", body, got, want)
		}
	}
}

func TestRuntimeFieldsAddUpAcrossExtends(t *testing.T) {
	p, err := loadFiles(t, map[string]string{
		"base.yaml": `substitution:
  runtimeFields:
    - {kind: Foo, group: example.com, path: spec/scripts/body}
    - {kind: Bar, path: 'metadata/annotations/example.com\/script'}
`,
		"env.yaml": `extends: base.yaml
substitution:
  runtimeFields:
    - {kind: Foo, group: example.com, path: spec/scripts/body}
    - {kind: Baz, path: spec/template}
`,
	}, "env.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range p.Substitution.RuntimeFields {
		got = append(got, fmt.Sprintf("%s %s %q %s:%d", f.Kind.Value, f.Group.Value, f.Keys, filepath.Base(f.Pos.File), f.Pos.Line))
	}
	want := []string{
		`Foo example.com ["spec" "scripts" "body"] env.yaml:4`, // the later file's entry replaces the base's
		`Bar  ["metadata" "annotations" "example.com/script"] base.yaml:4`,
		`Baz  ["spec" "template"] env.yaml:5`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAbsolutePathsStayAbsolute(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.yaml")
	if err := os.WriteFile(base, []byte("vars: {A: a}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	frag := filepath.Join(dir, "frag.yaml")
	p, err := loadFiles(t, map[string]string{
		"sub/p.yaml": "extends: " + base + "\ninject:\n  - {name: x, fragment: " + frag + ", container: app}\n",
	}, "sub/p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Vars.Lookup("A"); v != "a" {
		t.Errorf("absolute extends not followed: A = %q", v)
	}
	if p.Inject[0].FragmentPath != frag {
		t.Errorf("fragment path %q, want %q", p.Inject[0].FragmentPath, frag)
	}
}
