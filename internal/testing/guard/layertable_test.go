package guard

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krender/krender/internal/layers"
)

var update = flag.Bool("update", false, "rewrite the layer table in docs/architecture.md")

// TestDocMatchesTable holds the layer table of docs/architecture.md to
// layers.Table; -update writes it there.
func TestDocMatchesTable(t *testing.T) {
	path := filepath.Join(Root(t), "docs", "architecture.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start, end, ok := layerTable(doc)
	if !ok {
		t.Fatalf("%s has no layer table (a line %q)", path, strings.TrimSpace(layerTableHeader))
	}
	if got, want := doc[start:end], layers.Markdown(); got != want {
		if !*update {
			t.Fatalf("%s: the layer table differs from layers.Table; go test ./internal/testing/guard -run TestDocMatchesTable -update writes it:\n%s", path, want)
		}
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const layerTableHeader = "| Layer | Folders | Does |\n"

// layerTable is where doc's layer table starts and ends (after its last
// row's newline), if it has one.
func layerTable(doc string) (start, end int, ok bool) {
	start = strings.Index(doc, layerTableHeader)
	if start < 0 {
		return 0, 0, false
	}
	end = strings.Index(doc[start:], "\n\n")
	if end < 0 {
		return start, len(doc), true
	}
	return start, start + end + 1, true
}

// TestLayerTablePlanted: a copy with a row changed, or one row short, is
// told apart from layers.Markdown; the copy itself is not.
func TestLayerTablePlanted(t *testing.T) {
	want := layers.Markdown()
	rows := strings.SplitAfter(want, "\n")
	for _, c := range []struct {
		table string
		same  bool
	}{
		{want, true},
		{strings.Replace(want, "`lint`", "`lint`, `render`", 1), false},
		{strings.Join(rows[:len(rows)-2], ""), false},
	} {
		doc := "# Architecture\n\n" + c.table + "\nAfter the table.\n"
		start, end, ok := layerTable(doc)
		if !ok || (doc[start:end] == want) != c.same {
			t.Errorf("table %q read as %q, same as layers.Table: want %v", c.table, doc[start:end], c.same)
		}
	}
}
