package loader

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestHashSectionsMergeAcrossExtends(t *testing.T) {
	p, err := loadProfileFiles(t, map[string]string{
		"base.yaml": `hash:
  mode: annotation
  references:
    - {kind: Widget, path: spec/secretName, to: Secret}
    - {kind: Gadget, group: example.com, path: spec/config, to: ConfigMap}
`,
		"env.yaml": `extends: base.yaml
hash:
  references:
    - {kind: Gadget, group: example.com, path: spec/config, to: Secret}
    - {kind: Gizmo, path: spec/cm, to: ConfigMap}
`,
	}, "env.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash.Mode.Value != "annotation" {
		t.Errorf("mode %q: the base's mode must stay when the child sets none", p.Hash.Mode.Value)
	}
	var got []string
	for _, r := range p.Hash.References {
		got = append(got, fmt.Sprintf("%s->%s@%s:%d:%d", r.Kind.Value, r.To.Value, filepath.Base(r.To.Pos.File), r.To.Pos.Line, r.To.Pos.Col))
	}
	want := "Widget->Secret@base.yaml:4:49,Gadget->Secret@env.yaml:4:65,Gizmo->ConfigMap@env.yaml:5:40"
	if strings.Join(got, ",") != want {
		t.Errorf("references:\n got %s\nwant %s", strings.Join(got, ","), want)
	}
}

// TestHashGCMergesAcrossExtends: a base's hash.gc holds until a child sets
// it, and a child may turn it off.
func TestHashGCMergesAcrossExtends(t *testing.T) {
	for _, c := range []struct {
		child string
		want  bool
	}{
		{"extends: base.yaml\nhash: {mode: suffix}\n", true},
		{"extends: base.yaml\nhash: {gc: false}\n", false},
	} {
		p, err := loadProfileFiles(t, map[string]string{"base.yaml": "hash: {gc: true}\n", "env.yaml": c.child}, "env.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Hash.GC != nil && *p.Hash.GC; got != c.want {
			t.Errorf("%q: gc %v, want %v", c.child, got, c.want)
		}
	}
}
