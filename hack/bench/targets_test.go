package main

import (
	"strings"
	"testing"
)

// sized is a row of t tenants (60 objects each) whose tools took the given
// wall times in ms, CPU twice that, and the given peak RSS in MB.
func sized(t int, krender, check, shell, before int, rss, beforeRSS int) row {
	u := func(wall, mb int) usage {
		if wall == 0 {
			return usage{}
		}
		return usage{wall: ms(wall), cpu: ms(2 * wall), rssKB: int64(mb) * 1024}
	}
	return row{tenants: t, objects: 60 * t, krender: u(krender, rss), check: u(check, rss), shell: u(shell, 50),
		kustomize: u(50*krender, 60), floor: u(krender, rss), before: builds{render: u(before, beforeRSS), check: u(before*2, beforeRSS)}}
}

func verdictOf(t *testing.T, vs []verdict, prefix string) verdict {
	t.Helper()
	var found []verdict
	for _, v := range vs {
		if v.target == prefix {
			return v
		}
		if strings.HasPrefix(v.target, prefix) {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d targets start %q in %v", len(found), prefix, vs)
	}
	return found[0]
}

func TestTargetsMet(t *testing.T) {
	// CPU per object: 100 ms / 600, 1000 ms / 6000, 5500 ms / 30000 (1.10×).
	rows := []row{sized(10, 50, 70, 5000, 150, 80, 90), sized(100, 500, 700, 130000, 1100, 160, 160), sized(500, 2750, 4000, 700000, 6000, 180, 190)}
	vs := targets(rows)
	for _, v := range vs {
		if v.status != met {
			t.Errorf("%s", v)
		}
	}
	if got := verdictOf(t, vs, "≥250× faster than the shell").String(); got != "≥250× faster than the shell pipeline at T=100: 260× (wall), 260× (cpu) — met" {
		t.Errorf("shell: %s", got)
	}
	if got := verdictOf(t, vs, "≥2× faster than the before build at T=100").detail; got != "2.20× (wall), 2.20× (cpu)" {
		t.Errorf("before at T=100: %s", got)
	}
	if got := verdictOf(t, vs, "CPU per object flat").String(); got != "CPU per object flat from 600 to 30000 objects (T=10 to T=500): at 30000 objects 1.10× that at 600 (≤1.25 is flat) — met" {
		t.Errorf("flat: %s", got)
	}
	if got := verdictOf(t, vs, "peak RSS not above the before build's at T=100").detail; got != "render 160 MB (before 160 MB), check 160 MB (before 160 MB)" {
		t.Errorf("equal RSS: %s", got)
	}
	if n := strings.Count(strings.Join(strings.Fields(summary(config{out: "x"}, rows, nil)), " "), "— met"); n != len(vs) {
		t.Errorf("summary has %d met of %d", n, len(vs))
	}
}

func TestTargetsMissed(t *testing.T) {
	rows := []row{
		sized(10, 50, 75, 5000, 150, 80, 90),
		sized(100, 500, 700, 100000, 900, 170, 160), // 200× the shell; 1.8× the before build; more RSS
		sized(250, 1650, 2000, 400000, 4000, 150, 160),
		sized(500, 2750, 4000, 700000, 6000, 180, 190),
	}
	rows[2].check.cpu = rows[2].krender.cpu * 16 / 10 // check 1.6× render in CPU only
	rows[3].before.check.rssKB = 170 * 1024           // check above the before build's at T=500
	vs := targets(rows)
	for prefix, want := range map[string]string{
		"≥250× faster than the shell":                          "≥250× faster than the shell pipeline at T=100: 200× (wall), 200× (cpu); 1.25× short — MISSED",
		"≥2× faster than the before build at T=100":            "≥2× faster than the before build at T=100: 1.80× (wall), 1.80× (cpu) — MISSED",
		"≥2× faster than the before build at T=500":            "≥2× faster than the before build at T=500: 2.18× (wall), 2.18× (cpu) — met",
		"peak RSS not above the before build's at T=100":       "peak RSS not above the before build's at T=100: render 170 MB (before 160 MB), check 170 MB (before 160 MB) — MISSED",
		"peak RSS not above the before build's at T=500":       "peak RSS not above the before build's at T=500: render 180 MB (before 190 MB), check 180 MB (before 170 MB) — MISSED",
		"krender check within 1.5× of krender render at T=250": "krender check within 1.5× of krender render at T=250: 1.21× (wall), 1.60× (cpu) — MISSED",
		"krender check within 1.5× of krender render at T=10":  "krender check within 1.5× of krender render at T=10: 1.50× (wall), 1.50× (cpu) — met",
		// 3300 ms / 15000 objects is 1.32× 100 ms / 600, though T=500 is flat
		"CPU per object flat": "CPU per object flat from 600 to 30000 objects (T=10 to T=500): at 30000 objects 1.10× that at 600 (≤1.25 is flat), at most 1.32× (T=250) — MISSED",
	} {
		if got := verdictOf(t, vs, prefix).String(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// TestTargetsNotMeasured: tiny sizes and no before build leave the targets
// that need them unjudged, and say so, rather than passing or failing them.
func TestTargetsNotMeasured(t *testing.T) {
	rows := []row{sized(2, 20, 25, 1000, 0, 60, 0)}
	vs := targets(rows)
	for prefix, want := range map[string]string{
		"≥250× faster than the shell":               "no T=100 in this run",
		"≥2× faster than the before build at T=100": "no T=100 in this run",
		"peak RSS not above the before build's":     "no before build (`make bench BEFORE=<git ref>`)",
		"CPU per object flat":                       "one size only",
	} {
		if v := verdictOf(t, vs, prefix); v.status != notMeasured || v.detail != want {
			t.Errorf("%s", v)
		}
	}
	rows = append(rows, sized(100, 500, 600, 130000, 0, 60, 0))
	if v := verdictOf(t, targets(rows), "≥2× faster than the before build at T=100"); v.status != notMeasured || !strings.Contains(v.detail, "no before build") {
		t.Errorf("%s", v)
	}
}
