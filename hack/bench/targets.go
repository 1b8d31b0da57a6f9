package main

import (
	"fmt"
	"strings"
	"time"
)

// verdict is one target judged against a run.
type verdict struct {
	target string // what krender promises
	detail string // what the run measured
	status string // met, missed or notMeasured
}

const (
	met         = "met"
	missed      = "MISSED"
	notMeasured = "not measured"
)

func (v verdict) String() string {
	return v.target + ": " + v.detail + " — " + v.status
}

func judge(ok bool) string {
	if ok {
		return met
	}
	return missed
}

// times is how many times faster the first time is than the second
// (other over krender's).
func times(other, kr time.Duration) float64 {
	if kr == 0 {
		return 0
	}
	return float64(other) / float64(kr)
}

// at finds the row of t tenants.
func at(rows []row, t int) (row, bool) {
	for _, r := range rows {
		if r.tenants == t {
			return r, true
		}
	}
	return row{}, false
}

// targets judges the run against what krender promises, target by target.
func targets(rows []row) []verdict {
	out := []verdict{shellTarget(rows)}
	for _, r := range rows {
		if r.kustomize.wall > 0 {
			x := times(r.kustomize.wall, r.krender.wall)
			out = append(out, verdict{fmt.Sprintf("faster than kubectl kustomize at T=%d", r.tenants),
				fmt.Sprintf("%.1f× (wall), %.1f× (cpu)", x, times(r.kustomize.cpu, r.krender.cpu)), judge(x > 1)})
		}
	}
	for _, r := range rows {
		x := times(r.krender.cpu, r.floor.cpu)
		out = append(out, verdict{fmt.Sprintf("within 3× of the parse+emit floor at T=%d", r.tenants),
			fmt.Sprintf("%.2f× (cpu), %.2f× (wall)", x, times(r.krender.wall, r.floor.wall)), judge(x <= 3)})
	}
	for _, r := range rows {
		out = append(out, checkTarget(r))
	}
	out = append(out, beforeSpeedTargets(rows)...)
	out = append(out, beforeRSSTargets(rows)...)
	if r, ok := at(rows, 500); ok {
		out = append(out, verdict{"peak RSS under 200 MB at T=500", mb(r.krender.rssKB), judge(r.krender.rssKB < 200*1024)})
	}
	return append(out, flatTarget(rows))
}

// shellTarget: at least 250 times faster than the shell pipeline at T=100,
// in wall time.
func shellTarget(rows []row) verdict {
	v := verdict{target: "≥250× faster than the shell pipeline at T=100"}
	r, ok := at(rows, 100)
	if !ok || r.shell.wall == 0 {
		v.detail, v.status = "no T=100 in this run", notMeasured
		return v
	}
	x := times(r.shell.wall, r.krender.wall)
	v.detail = fmt.Sprintf("%.0f× (wall), %.0f× (cpu)", x, times(r.shell.cpu, r.krender.cpu))
	if x < 250 {
		v.detail += fmt.Sprintf("; %.2f× short", 250/x)
	}
	v.status = judge(x >= 250)
	return v
}

// checkTarget: krender check within 1.5 times krender render's wall and CPU
// time on the same fleet.
func checkTarget(r row) verdict {
	v := verdict{target: fmt.Sprintf("krender check within 1.5× of krender render at T=%d", r.tenants)}
	if r.check.wall == 0 || r.krender.wall == 0 {
		v.detail, v.status = "check or render not measured", notMeasured
		return v
	}
	w, c := times(r.check.wall, r.krender.wall), times(r.check.cpu, r.krender.cpu)
	v.detail = fmt.Sprintf("%.2f× (wall), %.2f× (cpu)", w, c)
	v.status = judge(w <= 1.5 && c <= 1.5)
	return v
}

// beforeSpeedTargets: render at least twice as fast as the before build at
// T=100 and T=500, in wall time (CPU stated beside it).
func beforeSpeedTargets(rows []row) []verdict {
	var out []verdict
	for _, t := range []int{100, 500} {
		v := verdict{target: fmt.Sprintf("≥2× faster than the before build at T=%d", t)}
		r, ok := at(rows, t)
		switch {
		case !ok:
			v.detail, v.status = fmt.Sprintf("no T=%d in this run", t), notMeasured
		case r.before.render.wall == 0:
			v.detail, v.status = "no before build (`make bench BEFORE=<git ref>`)", notMeasured
		default:
			x := times(r.before.render.wall, r.krender.wall)
			v.detail = fmt.Sprintf("%.2f× (wall), %.2f× (cpu)", x, times(r.before.render.cpu, r.krender.cpu))
			v.status = judge(x >= 2)
		}
		out = append(out, v)
	}
	return out
}

// beforeRSSTargets: peak RSS not above the before build's, at every size,
// for render and (where the before build could check) check.
func beforeRSSTargets(rows []row) []verdict {
	var out []verdict
	for _, r := range rows {
		if r.before.render.wall == 0 {
			continue
		}
		v := verdict{target: fmt.Sprintf("peak RSS not above the before build's at T=%d", r.tenants)}
		parts := []string{fmt.Sprintf("render %s (before %s)", mb(r.krender.rssKB), mb(r.before.render.rssKB))}
		ok := r.krender.rssKB <= r.before.render.rssKB
		if r.before.check.wall > 0 {
			parts = append(parts, fmt.Sprintf("check %s (before %s)", mb(r.check.rssKB), mb(r.before.check.rssKB)))
			ok = ok && r.check.rssKB <= r.before.check.rssKB
		}
		v.detail, v.status = strings.Join(parts, ", "), judge(ok)
		out = append(out, v)
	}
	if len(out) == 0 {
		out = append(out, verdict{"peak RSS not above the before build's", "no before build (`make bench BEFORE=<git ref>`)", notMeasured})
	}
	return out
}

// flatTarget: krender's CPU time per object does not grow with the fleet,
// from the smallest size measured to the largest (600 to 30,000 objects by
// default); no size may cost more than 1.25 times the smallest's.
func flatTarget(rows []row) verdict {
	v := verdict{target: "CPU per object flat as the fleet grows"}
	if len(rows) < 2 {
		v.detail, v.status = "one size only", notMeasured
		return v
	}
	perObj := func(r row) float64 { return float64(r.krender.cpu) / float64(r.objects) }
	small, large := rows[0], rows[0]
	for _, r := range rows {
		if r.objects < small.objects {
			small = r
		}
		if r.objects > large.objects {
			large = r
		}
	}
	if perObj(small) == 0 {
		v.detail, v.status = fmt.Sprintf("no CPU time at T=%d", small.tenants), notMeasured
		return v
	}
	v.target = fmt.Sprintf("CPU per object flat from %d to %d objects (T=%d to T=%d)", small.objects, large.objects, small.tenants, large.tenants)
	worst, worstAt := 0.0, small
	for _, r := range rows {
		if x := perObj(r) / perObj(small); x > worst {
			worst, worstAt = x, r
		}
	}
	v.detail = fmt.Sprintf("at %d objects %.2f× that at %d (≤1.25 is flat)", large.objects, perObj(large)/perObj(small), small.objects)
	if worstAt.objects != large.objects && worstAt.objects != small.objects {
		v.detail += fmt.Sprintf(", at most %.2f× (T=%d)", worst, worstAt.tenants)
	}
	v.status = judge(worst <= 1.25)
	return v
}
