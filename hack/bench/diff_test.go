package main

import (
	"strings"
	"testing"
	"time"
)

// TestWithSection: -diff-only rewrites its own section where the report has
// it, appends it where not, and leaves every other section as it was; the
// report ends with one line break.
func TestWithSection(t *testing.T) {
	old := "# krender benchmarks\n\nintro\n\n## Results\n\n| a |\n\n## krender diff against one render (side by side)\n\nold rows\n\n## Checks\n\n- ok\n"
	sec := "\n## krender diff against one render (side by side)\n\nnew rows\n"
	got := withSection(old, sec)
	want := "# krender benchmarks\n\nintro\n\n## Results\n\n| a |\n\n## krender diff against one render (side by side)\n\nnew rows\n\n## Checks\n\n- ok\n"
	if got != want {
		t.Errorf("replaced:\n%s\nwant:\n%s", got, want)
	}
	last := strings.Replace(old, "\n\n## Checks\n\n- ok\n", "\n", 1)
	if got := withSection(last, sec); got != strings.Replace(want, "\n\n## Checks\n\n- ok\n", "\n", 1) {
		t.Errorf("replaced as the last section:\n%q", got)
	}
	without := strings.Replace(old, "## krender diff against one render (side by side)\n\nold rows\n\n", "", 1)
	got = withSection(without, sec)
	if !strings.HasPrefix(got, without) || !strings.HasSuffix(got, "- ok\n\n## krender diff against one render (side by side)\n\nnew rows\n") {
		t.Errorf("appended:\n%s", got)
	}
}

// TestDiffGoal: the goal is met where the diff takes at most twice the
// render's wall and CPU time, both.
func TestDiffGoal(t *testing.T) {
	for _, c := range []struct {
		wall, cpu time.Duration
		want      string
	}{
		{200, 200, "met (wall 2.00×, CPU 2.00×)"},
		{150, 201, "not met (wall 1.50×, CPU 2.01×)"},
		{201, 150, "not met (wall 2.01×, CPU 1.50×)"},
	} {
		r := diffRow{render: usage{wall: 100, cpu: 100}, diff: usage{wall: c.wall, cpu: c.cpu}}
		if got := r.goal(); got != c.want {
			t.Errorf("%v wall, %v CPU: %q, want %q", c.wall, c.cpu, got, c.want)
		}
	}
}
