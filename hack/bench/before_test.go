package main

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// TestInterleave: the builds take turns, the first of a round changing every
// round, and each gets the median of its own runs.
func TestInterleave(t *testing.T) {
	var order strings.Builder
	walls := map[string][]int{"a": {30, 10, 20}, "b": {5, 9, 7}}
	f := func(name string) func() (usage, error) {
		i := 0
		return func() (usage, error) {
			order.WriteString(name)
			w := walls[name][i]
			i++
			return usage{wall: ms(w), cpu: ms(2 * w), rssKB: int64(w)}, nil
		}
	}
	us, err := interleave(3, f("a"), f("b"))
	if err != nil {
		t.Fatal(err)
	}
	if got := order.String(); got != "abbaab" {
		t.Errorf("order %q, want abbaab", got)
	}
	if us[0].wall != ms(20) || us[0].cpu != ms(40) || us[0].rssKB != 30 {
		t.Errorf("a: %+v, want median 20 ms wall, 40 ms CPU, largest RSS 30", us[0])
	}
	if us[1].wall != ms(7) || us[1].cpu != ms(14) || us[1].rssKB != 9 {
		t.Errorf("b: %+v, want median 7 ms wall, 14 ms CPU, largest RSS 9", us[1])
	}
	boom := errors.New("boom")
	if _, err := interleave(3, f("a"), func() (usage, error) { return usage{}, boom }); !errors.Is(err, boom) {
		t.Errorf("a failing run: err %v", err)
	}
}

// TestAlongside: without a before build only this build runs; with one,
// the before build's failure names it.
func TestAlongside(t *testing.T) {
	var ran []string
	this := func(bin string) (usage, error) { ran = append(ran, bin); return usage{wall: ms(10)}, nil }
	c := config{runs: 2, krender: "/new/krender"}
	u, b, err := alongside(c, this, nil)
	if err != nil || u.wall != ms(10) || b != (usage{}) || strings.Join(ran, " ") != "/new/krender /new/krender" {
		t.Errorf("no before build: %v %v %v, ran %v", u, b, err, ran)
	}
	ran = nil
	c.before = "/old/krender"
	before := func(bin string) (usage, error) { ran = append(ran, bin); return usage{wall: ms(30)}, nil }
	u, b, err = alongside(c, this, before)
	if err != nil || u.wall != ms(10) || b.wall != ms(30) {
		t.Errorf("with a before build: %v %v %v", u, b, err)
	}
	if got := strings.Join(ran, " "); got != "/new/krender /old/krender /old/krender /new/krender" {
		t.Errorf("ran %s", got)
	}
	failing := func(string) (usage, error) { return usage{}, errors.New("exit status 2") }
	if _, _, err := alongside(c, this, failing); err == nil || !strings.Contains(err.Error(), "before build (/old/krender): exit status 2") {
		t.Errorf("failing before build: %v", err)
	}
}

func TestBeforeMarkdown(t *testing.T) {
	u := func(wall, cpu, rssMB int) usage {
		return usage{wall: ms(wall), cpu: ms(cpu), rssKB: int64(rssMB) * 1024}
	}
	r := row{tenants: 100, objects: 6000, krender: u(500, 900, 168), check: u(1200, 2400, 170),
		before: builds{render: u(1000, 1800, 160)}}
	c := config{runs: 5, krender: "/k/krender", before: "/b/krender", beforeName: "v1.2 (abc1234)"}
	md := beforeMarkdown(c, []row{r})
	for _, want := range []string{
		"## Before and after (this build against v1.2 (abc1234), measured side by side)",
		"alternately, 5 rounds each",
		"| 100 | 6000 | render | 1.80 s | 900 ms | 1.00 s | 500 ms | 160 MB | 168 MB | 0.5000 (2.0× faster) | 0.5000 (2.0× faster) |",
		"| 100 | 6000 | check | – | 2.40 s | – | 1.20 s | – | 170 MB | – | – |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("lacks %q:\n%s", want, md)
		}
	}
	// Without a before build the section still stands, so that an earlier
	// run's table does not survive as if written by hand.
	md = beforeMarkdown(config{runs: 5}, []row{r})
	if !strings.Contains(md, "## Before and after (not measured in this run)") || strings.Contains(md, "| 100 |") {
		t.Errorf("no before build:\n%s", md)
	}
	generated := machine{}.markdown(config{runs: 5, apps: 20, sample: 10}, []row{r})
	old := "# krender benchmarks\n\n## Before and after (this build against v0.9, measured side by side)\n\nstale\n"
	if got, kept := withHandWritten(generated, old); strings.Contains(got, "stale") || len(kept) != 0 {
		t.Errorf("an earlier run's before/after table was kept: %q", kept)
	}
}

func TestBeforeRenderCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.yaml", "kind: A\n---\nkind: B\n")
	same := write("same.yaml", "kind: A\n---\nkind: B\n")
	other := write("other.yaml", "kind: A\n")
	if got := beforeRenderCheck(a, same); got != "before: render output byte-identical to this build's" {
		t.Errorf("same: %s", got)
	}
	if got := beforeRenderCheck(a, other); !strings.Contains(got, "DIFFERS") || !strings.Contains(got, "1 objects, 8 bytes (this build 2 objects, 20 bytes)") {
		t.Errorf("other: %s", got)
	}
}

// TestBeforeCheckWorks: a before build that cannot check the fleet (too
// old, or failing) is measured on render alone, and the Checks say why.
func TestBeforeCheckWorks(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		t.Helper()
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := script("old", "echo 'unknown command \"check\"' >&2; exit 2\n")
	if ok, note := beforeCheckWorks(dir, old); ok || !strings.Contains(note, "before: check not measured") || !strings.Contains(note, `unknown command "check"`) {
		t.Errorf("old build: %v %q", ok, note)
	}
	good := script("good", "echo '[{\"severity\":\"error\"}]'; exit 1\n")
	if ok, note := beforeCheckWorks(dir, good); !ok || note != "before: krender check: 1 findings (1 errors, 0 warnings, 0 notes), exit 1" {
		t.Errorf("checking build: %v %q", ok, note)
	}
}
