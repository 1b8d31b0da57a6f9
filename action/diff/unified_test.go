package diff

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every hunk's header agrees with the lines around it: the new start is
// the old start moved by what earlier hunks added or removed, and applying
// the hunks to old gives new.
func TestUnifiedHunkStarts(t *testing.T) {
	var old []string
	for i := range 40 {
		old = append(old, fmt.Sprintf("line %d", i+1))
	}
	for _, c := range []struct {
		name string
		edit func([]string) []string
	}{
		{"two nearby edits joined, then a far one", func(l []string) []string {
			l = append([]string(nil), l...)
			l = append(l[:4], append([]string{"added a", "added b"}, l[4:]...)...)
			l[10] = "changed"
			l = append(l[:14], append([]string{"added c"}, l[14:]...)...)
			l[38] = "changed far"
			return l
		}},
		{"removals before a far edit", func(l []string) []string {
			l = append([]string(nil), l...)
			l = append(l[:2], l[5:]...)
			l[6] = "changed"
			l[33] = "changed far"
			return l
		}},
		{"insert at the top and the end", func(l []string) []string {
			return append(append([]string{"top"}, l...), "end")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			newLines := c.edit(old)
			text := unifiedText("a", "b", strings.Join(old, "\n")+"\n", strings.Join(newLines, "\n")+"\n")
			if got := apply(t, old, text); strings.Join(got, "\n") != strings.Join(newLines, "\n") {
				t.Errorf("the hunks do not turn old into new:\n%s", text)
			}
		})
	}
}

var header = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// apply applies a unified diff to old, trusting the headers' line
// numbers for the new file: a wrong new start shows as a context line that
// is not where the header says.
func apply(t *testing.T, old []string, text string) []string {
	t.Helper()
	var out []string
	next := 0 // the next old line not yet copied
	for l := range strings.Lines(text) {
		l = strings.TrimSuffix(l, "\n")
		if m := header.FindStringSubmatch(l); m != nil {
			from, _ := strconv.Atoi(m[1])
			to, _ := strconv.Atoi(m[3])
			if m[2] == "0" {
				from++
			}
			if m[4] == "0" {
				to++
			}
			out = append(out, old[next:from-1]...)
			next = from - 1
			if len(out) != to-1 {
				t.Fatalf("%s: the new file is at line %d here", l, len(out)+1)
			}
			continue
		}
		if l == "" || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
			continue
		}
		switch l[0] {
		case ' ':
			out = append(out, old[next])
			next++
		case '-':
			next++
		case '+':
			out = append(out, l[1:])
		}
	}
	return append(out, old[next:]...)
}
