package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/files/filesys"
	"github.com/krender/krender/internal/testing/testtool"
	"github.com/krender/krender/kube/kubeapi"
	"github.com/krender/krender/model/profiles"
)

// loadProfileFiles writes files into a directory of their own and loads the
// profile root among them, following its extends chain.
func loadProfileFiles(t *testing.T, files map[string]string, root string) (*profiles.Profile, error) {
	t.Helper()
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, files)
	return Profile(filesys.OS, nil, filepath.Join(dir, root))
}

func TestExtendsMergesEachSectionByItsKey(t *testing.T) {
	p, err := loadProfileFiles(t, map[string]string{
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

func TestRuntimeFieldsAddUpAcrossExtends(t *testing.T) {
	p, err := loadProfileFiles(t, map[string]string{
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
	p, err := loadProfileFiles(t, map[string]string{
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

func TestLimitsMergeAcrossExtends(t *testing.T) {
	p, err := loadProfileFiles(t, map[string]string{
		"base.yaml": "limits: {nodes: 300000, depth: 50}\n",
		"env.yaml":  "extends: base.yaml\nlimits: {depth: 60, objects: 5}\n",
	}, "env.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l := p.Limits.OrDefault()
	if l.Nodes != 300000 || l.Depth != 60 || l.Objects != 5 {
		t.Fatalf("limits %+v", p.Limits)
	}
}

// An extends chain stops at MaxExtends, at the extends line that passes it.
func TestExtendsChainIsBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("p%d.yaml", i)] = fmt.Sprintf("extends: p%d.yaml\n", i+1)
	}
	_, err := loadProfileFiles(t, files, "p0.yaml")
	want := fmt.Sprintf("p%d.yaml:1:10: extends chain longer than %d profiles", MaxExtends-1, MaxExtends)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %s", err, want)
	}
}

func TestKubeVersionLaterFileOverrides(t *testing.T) {
	files := map[string]string{
		"base.yaml": "kubeVersion: \"1.29\"\n",
		"env.yaml":  "extends: base.yaml\nnamespace: x\nkubeVersion: v1.33.4\n",
		"same.yaml": "extends: base.yaml\n",
		"flt.yaml":  "kubeVersion: 1.30\n", // a YAML float; its text is what counts
		"none.yaml": "vars: {}\n",
	}
	for root, want := range map[string]struct {
		v          kubeapi.Version
		text, file string
		line       int
	}{
		"env.yaml":  {kubeapi.Version{Major: 1, Minor: 33}, "v1.33.4", "env.yaml", 3},
		"same.yaml": {kubeapi.Version{Major: 1, Minor: 29}, "1.29", "base.yaml", 1},
		"flt.yaml":  {kubeapi.Version{Major: 1, Minor: 30}, "1.30", "flt.yaml", 1},
		"none.yaml": {},
	} {
		p, err := loadProfileFiles(t, files, root)
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		kv := p.KubeVersion
		if kv.Version != want.v || kv.Value != want.text || kv.Pos.Line != want.line || want.file != "" && filepath.Base(kv.Pos.File) != want.file {
			t.Errorf("%s: kubeVersion %+v, want %s (%q) at %s:%d", root, kv, want.v, want.text, want.file, want.line)
		}
	}
}

// An extends line naming a file that cannot be read fails at that line.
func TestExtendsUnreadable(t *testing.T) {
	want := `p.yaml:1:10: cannot read profile`
	_, err := loadProfileFiles(t, map[string]string{"p.yaml": "extends: nope.yaml\n"}, "p.yaml")
	if err == nil {
		t.Fatalf("no error, want %s", want)
	}
	got := err.Error()
	if i := strings.Index(got, "p.yaml:"); i >= 0 {
		got = got[i:]
	}
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
