package subst

import (
	"math/rand/v2"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// oldInGoAction is the answer scalarContext.inGoAction must give: the
// former scan from the value's start for every reference, kept as the
// reference.
func oldInGoAction(s string, i int) bool {
	open := strings.LastIndex(s[:i], "{{")
	if open < 0 || strings.LastIndex(s[:i], "}}") > open {
		return false
	}
	return strings.Contains(s[i:], "}}")
}

// The one forward pass answers as the scan from the start did, for every
// offset of generated values dense in braces, asked in increasing order
// (as a scalar's references come), with repeats, and out of order.
func TestGoActionPassIsTheScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 4))
	alphabet := []string{"{", "}", "{{", "}}", "$A", " ", "x", "{{ $i := 1 }}", "\n"}
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
		// every offset in order, each asked once or twice
		c := newScalarContext(n)
		for i := 0; i <= len(s); i++ {
			for range 1 + rng.IntN(2) {
				if got, want := c.inGoAction(i), oldInGoAction(s, i); got != want {
					t.Fatalf("%q at %d in order: %v, the scan says %v", s, i, got, want)
				}
			}
		}
		// a few offsets, some going back
		c = newScalarContext(n)
		for range 10 {
			i := rng.IntN(len(s) + 1)
			if got, want := c.inGoAction(i), oldInGoAction(s, i); got != want {
				t.Fatalf("%q at %d out of order: %v, the scan says %v", s, i, got, want)
			}
		}
	}
}

// oldAssignedNames is the former whole-value matching, kept as the answer
// the line-by-line one must give.
func oldAssignedNames(s string) map[string]bool {
	if !strings.Contains(s, "=") && !strings.Contains(s, "export") && !strings.Contains(s, "local") &&
		!strings.Contains(s, "read") && !strings.Contains(s, "for") && !strings.Contains(s, "declare") {
		return nil
	}
	re := shellNames()
	out := map[string]bool{}
	for _, m := range re.assignment.FindAllStringSubmatch(s, -1) {
		out[m[1]] = true
	}
	for _, m := range re.forLoop.FindAllStringSubmatch(s, -1) {
		out[m[1]] = true
	}
	for _, m := range re.declaration.FindAllStringSubmatch(s, -1) {
		for _, w := range strings.Fields(m[1]) {
			name, _, _ := strings.Cut(w, "=")
			if !strings.HasPrefix(w, "-") && isName(name) {
				out[name] = true
			}
		}
	}
	return out
}

// Matching line by line finds the names matching the whole value found,
// on generated scripts dense in assignments, declarations, loops and the
// characters around them, line breaks of every kind included.
func TestAssignedNamesByLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	words := []string{"A", "B_1", "x", "=", "+=", "[i]", "[", "]", " ", "\t", "\n", "\r\n", "\r", ";", "&", "|", "(", "{", "`", ")",
		"export", "local", "readonly", "declare", "typeset", "read", "-r", "for", " in ", "unset", "$A", "${B}", "do", "#"}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(words[rng.IntN(len(words))])
		}
		s := b.String()
		got, want := assignedNames(s), oldAssignedNames(s)
		if (got == nil) != (want == nil) || len(got) != len(want) {
			t.Fatalf("%q: %v, the whole-value match %v", s, got, want)
		}
		for k := range want {
			if !got[k] {
				t.Fatalf("%q: %v, the whole-value match %v", s, got, want)
			}
		}
	}
}
