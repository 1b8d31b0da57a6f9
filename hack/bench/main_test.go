package main

import (
	"os"
	"strings"
	"testing"
)

func TestWithHandWritten(t *testing.T) {
	generated := "# krender benchmarks\n\nintro\n\n## Results\n\nnew\n\n## Where krender's time goes (pprof, T=10)\n\nnew profile\n"
	old := "# krender benchmarks\n\nold intro\n\n## Results\n\nold\n\n## Before and after (by hand)\n\nnotes\n```\n## not a heading\n```\n\n" +
		"## Where krender's time goes (pprof, T=100)\n\nold profile\n\n## Another note\n\nmore\n"
	got, titles := withHandWritten(generated, old)
	want := generated + "\n## Before and after (by hand)\n\nnotes\n```\n## not a heading\n```\n\n## Another note\n\nmore\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Join(titles, "|") != "Before and after (by hand)|Another note" {
		t.Errorf("titles %q", titles)
	}
	if got, titles := withHandWritten(generated, ""); got != generated || titles != nil {
		t.Errorf("no old report: %q %q", got, titles)
	}
	if got, _ := withHandWritten(generated, generated); got != generated {
		t.Errorf("a generated report kept something of itself:\n%s", got)
	}
}

// TestCommittedReportKeepsItsNotes: regenerating BENCHMARKS.md keeps the
// sections written into it by hand, and only those.
func TestCommittedReportKeepsItsNotes(t *testing.T) {
	old, err := os.ReadFile("../../BENCHMARKS.md")
	if err != nil {
		t.Skip(err)
	}
	r := row{tenants: 10, objects: 600}
	generated := machine{}.markdown(config{runs: 5, apps: 20, sample: 10}, []row{r}) + profileMarkdown(10, nil)
	got, titles := withHandWritten(generated, string(old))
	for _, s := range sections(string(old)) {
		if strings.HasPrefix(s.title, "Before and after") && !strings.Contains(got, strings.TrimRight(s.text, "\n")) {
			t.Errorf("section %q lost", s.title)
		}
	}
	for _, title := range titles {
		if !strings.HasPrefix(title, "Before and after") {
			t.Errorf("kept %q, which make bench writes itself", title)
		}
	}
	if len(titles) == 0 {
		t.Errorf("no hand-written section kept from BENCHMARKS.md")
	}
}
