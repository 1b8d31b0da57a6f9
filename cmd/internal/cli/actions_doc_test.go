package cli

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// cobrasOwn is the action cell of a command cobra brings (help,
// completion): it has no action of krender's, nor have its subcommands.
const cobrasOwn = "cobra's own"

// actionRow is a row of docs/architecture.md's command table:
// "| `check` | `action.Check` |".
var actionRow = regexp.MustCompile("(?m)^\\| `([a-z ]+)` \\| (`([a-z/]+)\\.([A-Z][A-Za-z]*)`|" + cobrasOwn + ") \\|$")

// TestArchitectureNamesEveryAction: docs/architecture.md's table "command
// → action" has a row for every command of the tree and no other, and each
// row names a type that exists: `type NAME struct` in the named package's
// Go files. A command added, or an action renamed, fails here until the
// table says so.
func TestArchitectureNamesEveryAction(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{} // command path below krender → [dir, type], or nil for cobra's own
	for _, m := range actionRow.FindAllStringSubmatch(string(doc), -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("architecture.md: two rows for %q", m[1])
		}
		rows[m[1]] = nil
		if m[2] != cobrasOwn {
			rows[m[1]] = []string{m[3], m[4]}
		}
	}
	h := &host{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, fsys: inTree("../../.."),
		env: noEnv, mask: &masker{}}
	seen := map[string]bool{}
	var walk func(c *cobra.Command, cobras bool)
	walk = func(c *cobra.Command, cobras bool) {
		for _, sub := range c.Commands() {
			name := strings.TrimPrefix(sub.CommandPath(), "krender ")
			row, ok := rows[name]
			seen[name] = true
			if !ok && !cobras {
				t.Errorf("%q is missing from architecture.md's table of commands and their actions", sub.CommandPath())
			}
			walk(sub, cobras || ok && row == nil)
		}
	}
	walk(newRoot(h), false)
	if len(seen) < 8 {
		t.Fatalf("only %d commands found", len(seen))
	}
	for name, row := range rows {
		if !seen[name] {
			t.Errorf("architecture.md names %q, which is no command", name)
		}
		if row != nil && !declaresStruct(t, filepath.Join("../../..", row[0]), row[1]) {
			t.Errorf("architecture.md: %q's action %s.%s: no `type %s struct` in %s", name, row[0], row[1], row[1], row[0])
		}
	}
}

// declaresStruct says whether a Go file of dir (tests aside) declares
// `type name struct`.
func declaresStruct(t *testing.T, dir, name string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^type ` + name + ` struct\b`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if decl.Match(b) {
			return true
		}
	}
	return false
}
