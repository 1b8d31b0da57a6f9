package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestChildExits(t *testing.T) {
	for _, c := range []struct {
		code string
		ok   []int
		fail bool
	}{
		{"0", nil, false},
		{"1", nil, true},
		{"1", checkExits, false},
		{"2", checkExits, true},
	} {
		_, err := childExits(t.TempDir(), nil, "", c.ok, "sh", "-c", "exit "+c.code)
		if (err != nil) != c.fail {
			t.Errorf("exit %s with ok %v: err %v, want failure %v", c.code, c.ok, err, c.fail)
		}
	}
}

func TestCountFindings(t *testing.T) {
	text := []byte(`[{"rule":"a","severity":"error"},{"rule":"b","severity":"warning"},{"rule":"c","severity":"warning"},{"rule":"d","severity":"info"}]`)
	if got, want := countFindings(text, 1), "krender check: 4 findings (1 errors, 2 warnings, 1 notes), exit 1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := countFindings(text, 0); !strings.Contains(got, "DISAGREES") {
		t.Errorf("exit 0 with an error finding: %q", got)
	}
	if got := countFindings([]byte("[]\n"), 0); got != "krender check: 0 findings (0 errors, 0 warnings, 0 notes), exit 0" {
		t.Errorf("no findings: %q", got)
	}
	if got := countFindings([]byte("nope"), 2); !strings.Contains(got, "unreadable") {
		t.Errorf("bad JSON: %q", got)
	}
}

// TestCheckRows: krender check has its row next to krender's, on stdout and
// in the report, and its ratio to krender render.
func TestCheckRows(t *testing.T) {
	u := func(ms int) usage {
		return usage{wall: time.Duration(ms) * time.Millisecond, cpu: time.Duration(2*ms) * time.Millisecond, rssKB: 1024}
	}
	r := row{tenants: 10, objects: 600, shell: u(4000), kustomize: u(1500), krender: u(100), check: u(50), serial: u(150), floor: u(120)}
	text := r.text()
	if !strings.Contains(text, "krender check ") || !strings.Contains(text, "check/render       wall 0.5000 (2.0× faster)") {
		t.Errorf("stdout table:\n%s", text)
	}
	md := machine{}.markdown(config{runs: 5, apps: 20, sample: 10}, []row{r})
	for _, want := range []string{
		"| 10 | 600 | **krender** | 100 ms |",
		"| 10 | 600 | krender check | 50 ms |",
		"check/render wall | check/render CPU |",
		"| 0.5000 (2.0× faster) | 0.5000 (2.0× faster) |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "krender check |") < strings.Index(md, "**krender** |") {
		t.Errorf("krender check's row comes before krender's")
	}
}

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
