package main

import (
	"strings"
	"testing"
)

// TestWithSection: -diff-only rewrites its own section where the report has
// it, appends it where not, and leaves every other section as it was.
func TestWithSection(t *testing.T) {
	old := "# krender benchmarks\n\nintro\n\n## Results\n\n| a |\n\n## krender diff against one render (side by side)\n\nold rows\n\n## Checks\n\n- ok\n"
	sec := "\n## krender diff against one render (side by side)\n\nnew rows\n"
	got := withSection(old, sec)
	want := "# krender benchmarks\n\nintro\n\n## Results\n\n| a |\n\n## krender diff against one render (side by side)\n\nnew rows\n\n## Checks\n\n- ok\n"
	if got != want {
		t.Errorf("replaced:\n%s\nwant:\n%s", got, want)
	}
	without := strings.Replace(old, "## krender diff against one render (side by side)\n\nold rows\n\n", "", 1)
	got = withSection(without, sec)
	if !strings.HasPrefix(got, without) || !strings.HasSuffix(got, "- ok\n\n## krender diff against one render (side by side)\n\nnew rows\n") {
		t.Errorf("appended:\n%s", got)
	}
}
