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
	start := strings.Index(doc, "| Layer | Folders | Does |\n")
	if start < 0 {
		t.Fatalf("%s has no layer table (a line \"| Layer | Folders | Does |\")", path)
	}
	end := start + strings.Index(doc[start:], "\n\n") + 1
	if end <= start {
		end = len(doc)
	}
	if got, want := doc[start:end], layers.Markdown(); got != want {
		if !*update {
			t.Fatalf("%s: the layer table differs from layers.Table; go test ./internal/layers -update writes it:\n%s", path, want)
		}
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
