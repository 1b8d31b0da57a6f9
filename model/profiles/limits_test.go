package profiles

import (
	"fmt"
	"strings"
	"testing"
)

func TestLimitsMergeAcrossExtends(t *testing.T) {
	p, err := loadFiles(t, map[string]string{
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

func TestLimitsRefused(t *testing.T) {
	for text, want := range map[string]string{
		"limits: {nodez: 1}\n":          `p.yaml:1:10: unknown limit "nodez"`,
		"limits: {nodes: 0}\n":          "p.yaml:1:17: limits.nodes must be a whole number from 1 to 10000000",
		"limits: {nodes: 1e12}\n":       "p.yaml:1:17: limits.nodes must be a whole number",
		"limits: {depth: 20000}\n":      "p.yaml:1:17: limits.depth must be a whole number from 1 to 10000",
		"limits: {depth: [1]}\n":        "p.yaml:1:17: limits.depth must be a whole number",
		"limits: [nodes]\n":             "p.yaml:1:9: limits must be a mapping",
		"limits: {fileBytes: \"12\"}\n": "p.yaml:1:21: limits.fileBytes must be a whole number",
	} {
		_, err := loadFiles(t, map[string]string{"p.yaml": text}, "p.yaml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %s", text, err, want)
		}
	}
}

// An extends chain stops at MaxExtends, at the extends line that passes it.
func TestExtendsChainIsBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("p%d.yaml", i)] = fmt.Sprintf("extends: p%d.yaml\n", i+1)
	}
	_, err := loadFiles(t, files, "p0.yaml")
	want := fmt.Sprintf("p%d.yaml:1:10: extends chain longer than %d profiles", MaxExtends-1, MaxExtends)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// A profile is held to the default limits: it is read before any profile
// could raise them.
func TestProfileAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("x:\n  a: &a [l, l, l, l, l, l, l, l, l]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		fmt.Fprintf(&b, "  %c: &%c [%s]\n", c, c, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = string(c)
	}
	b.WriteString("zones:\n  z: {hostAliases: *i}\n")
	_, err := loadFiles(t, map[string]string{"p.yaml": b.String()}, "p.yaml")
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Fatalf("got %v", err)
	}
}
