package profiles

import (
	"fmt"
	"strings"
	"testing"
)

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
		_, err := decodeOne("p.yaml", text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %s", text, err, want)
		}
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
	_, err := decodeOne("p.yaml", b.String())
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Fatalf("got %v", err)
	}
}
