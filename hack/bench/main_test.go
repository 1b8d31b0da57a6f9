package main

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/krender/krender/internal/testing/fleetgen"
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
	c := config{runs: 5, apps: 20, sample: 10}
	generated := machine{}.markdown(c, []row{r}) + diffMarkdown(c, []diffRow{{tenants: 100, objects: 6000}}) + profileMarkdown(10, nil)
	got, titles := withHandWritten(generated, string(old))
	ours := map[string]bool{}
	for _, s := range sections(generated) {
		ours[s.key] = true
	}
	for _, s := range sections(string(old)) {
		if ours[s.key] { // the run's own before-and-after table, which a new run replaces
			continue
		}
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

// TestCRDRows: the check with custom resources has its row next to the
// plain check's, its ratio to it and the cost it adds per custom resource,
// on stdout and in the report, with the in-process CRD costs.
func TestCRDRows(t *testing.T) {
	u := func(ms int) usage {
		return usage{wall: time.Duration(ms) * time.Millisecond, cpu: time.Duration(2*ms) * time.Millisecond, rssKB: 1024}
	}
	r := row{tenants: 10, objects: 600, krender: u(100), check: u(200), checkCRD: u(400), customs: 200, floor: u(120)}
	text := r.text()
	for _, want := range []string{
		"  krender check +CRs     wall    400 ms",
		"check+CRs/check    wall 2.00 (2.00× slower)  cpu 2.00 (2.00× slower)",
		"per custom resource wall 1.00 ms  cpu 2.00 ms  (check +CRs less check, one CRD compile included, over 200 ServiceMonitors)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("stdout lacks %q:\n%s", want, text)
		}
	}
	m := machine{crd: crdCost{compile: 16 * time.Millisecond, validate: 1300 * time.Microsecond, compileAllocs: 44000, validateAllocs: 5200}}
	if got := m.crd.text(); !strings.Contains(got, "compile the ServiceMonitor CRD 16.00 ms (44000 allocs); validate one ServiceMonitor 1.30 ms (5200 allocs)") {
		t.Errorf("crd line: %s", got)
	}
	md := m.markdown(config{runs: 5, apps: 20, sample: 10}, []row{r})
	for _, want := range []string{
		"| 10 | 800 | krender check + custom resources | 400 ms |",
		"| 10 | 600 | krender check | 200 ms |",
		"## Custom resources in krender check",
		"| 10 | 200 | 200 ms | 400 ms | 2.00 (2.00× slower) | 2.00 (2.00× slower) | 1.00 ms | 2.00 ms |",
		"ServiceMonitor CRD takes 16.00 ms (44000 allocations)",
		"ServiceMonitor against it takes 1.30 ms (5200 allocations).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	// a row without the measurement (an older report's shape) prints no CRD lines
	if text := (row{tenants: 10, objects: 600, check: u(200)}).text(); strings.Contains(text, "+CRs") {
		t.Errorf("row without a CRD check:\n%s", text)
	}
}

func TestCRDSummary(t *testing.T) {
	f := fleetgen.Fleet{Apps: 10, Tenants: 3}
	ts := []string{"tenant-0001", "tenant-0002", "tenant-0003"}
	apps := []finding{{Rule: "etc-hosts-write", Object: "Deployment/app-01", Tenants: ts}, {Rule: "etc-hosts-write", Object: "Deployment/app-02", Tenants: ts}}
	typos := []finding{{Rule: "unknown-field", Object: "ServiceMonitor/app-05", Tenants: ts}, {Rule: "unknown-field", Object: "ServiceMonitor/app-10", Tenants: ts}}
	with := append(slices.Clone(apps), typos...)
	if got, want := crdSummary(f, 30, with, apps),
		"krender check --crds: 30 ServiceMonitors rendered, 30 validated against CRD servicemonitors.monitoring.example.com (0 crd-missing); "+
			"6 unknown-field (2 misspelled × 3 tenants), as planted; 0 crd-schema; the apps' 2 findings as without them"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// one typo found in two tenants only, a CRD missing for one, an app finding more
	short := append(slices.Clone(apps), typos[0], finding{Rule: "unknown-field", Object: "ServiceMonitor/app-10", Tenants: ts[:2]},
		finding{Rule: "crd-missing", Object: "ServiceMonitor/app-01", Tenants: ts[:1]}, finding{Rule: "unknown-field", Object: "Deployment/app-01"})
	got := crdSummary(f, 29, short, apps)
	for _, want := range []string{"29 ServiceMonitors rendered (want 30)", "28 validated", "(1 crd-missing)", "5 unknown-field, want the 6 planted — DIFFERS", "the apps' findings DIFFER"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
