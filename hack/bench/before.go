package main

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/krender/krender/internal/testing/fleetgen"
)

// builds is what the before build (-before) measured on one fleet, run
// alternately with this build's render and check.
type builds struct {
	render, check usage
}

// interleave runs each of fs once a round for n rounds, in turn, the order
// reversed every other round (A B, B A, A B, ...): builds measured against
// each other share the machine's noise, and neither always runs first. It
// returns each one's median wall and CPU time and largest peak RSS.
func interleave(n int, fs ...func() (usage, error)) ([]usage, error) {
	runs := make([][]usage, len(fs))
	for round := range max(n, 1) {
		for k := range fs {
			i := k
			if round%2 == 1 {
				i = len(fs) - 1 - k
			}
			u, err := fs[i]()
			if err != nil {
				return nil, err
			}
			runs[i] = append(runs[i], u)
		}
	}
	out := make([]usage, len(fs))
	for i, us := range runs {
		out[i] = medianOf(us)
	}
	return out, nil
}

// medianOf keeps the median wall and CPU time and the largest peak RSS.
func medianOf(us []usage) usage {
	var walls, cpus []time.Duration
	var rss int64
	for _, u := range us {
		walls, cpus, rss = append(walls, u.wall), append(cpus, u.cpu), max(rss, u.rssKB)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return usage{wall: walls[len(walls)/2], cpu: cpus[len(cpus)/2], rssKB: rss}
}

// alongside measures this build's run and, given a before build, the same
// command line of the before build, alternately; it returns this build's
// usage and the before build's (zero without one).
func alongside(c config, this, before func(bin string) (usage, error)) (usage, usage, error) {
	fs := []func() (usage, error){func() (usage, error) { return this(c.krender) }}
	if before != nil {
		fs = append(fs, func() (usage, error) {
			u, err := before(c.before)
			if err != nil {
				err = fmt.Errorf("before build (%s): %w", c.before, err)
			}
			return u, err
		})
	}
	us, err := interleave(c.runs, fs...)
	if err != nil {
		return usage{}, usage{}, err
	}
	if len(us) == 1 {
		return us[0], usage{}, nil
	}
	return us[0], us[1], nil
}

// beforeRenderCheck compares the before build's output with this build's:
// a difference means the two builds did not do the same work.
func beforeRenderCheck(stream, beforeStream string) string {
	a, err := os.ReadFile(stream)
	if err != nil {
		return "before: " + err.Error()
	}
	b, err := os.ReadFile(beforeStream)
	if err != nil {
		return "before: " + err.Error()
	}
	if bytes.Equal(a, b) {
		return "before: render output byte-identical to this build's"
	}
	return fmt.Sprintf("before: render output DIFFERS from this build's: %d objects, %d bytes (this build %d objects, %d bytes)",
		countObjects(b), len(b), countObjects(a), len(a))
}

// countObjects counts the documents of a rendered stream by their kind lines.
func countObjects(text []byte) int {
	return bytes.Count(text, []byte("\nkind: ")) + bytes.Count(text[:min(len(text), 6)], []byte("kind: "))
}

// beforeCheckWorks runs the before build's check once, unmeasured, with
// --format json: a build too old to check (or to check this fleet) is
// measured on render alone, and the report says why.
func beforeCheckWorks(dir, before string) (bool, string) {
	text, code, err := checkJSON(dir, before, fleetgen.AppsDir)
	if err != nil {
		return false, "before: check not measured: " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	return true, "before: " + countFindings(text, code)
}

// beforeMarkdown is the section comparing the two builds. Without a before
// build it says how to get one, so that a table from an earlier run is not
// left standing beside numbers it was not measured with.
func beforeMarkdown(c config, rows []row) string {
	var b strings.Builder
	if c.before == "" {
		b.WriteString("\n## Before and after (not measured in this run)\n\n")
		b.WriteString("`make bench BEFORE=<git ref>` builds krender at that ref into `.cache/bench/before/` and measures it here\n")
		b.WriteString("side by side with this build; `-before PATH` names a krender binary directly.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "\n## Before and after (this build against %s, measured side by side)\n\n", c.beforeName)
	fmt.Fprintf(&b, "The two builds run alternately, %d rounds each (which of them goes first changes every round), on the same\n", c.runs)
	b.WriteString("fleets and profile; medians of wall and CPU time, largest peak RSS. *before* is ")
	if c.beforeName != c.before {
		fmt.Fprintf(&b, "%s, ", c.beforeName)
	}
	fmt.Fprintf(&b, "`%s`; *after* is the build\nmeasured above, `%s`. The ratios are after's time over before's.\n\n", c.before, c.krender)
	b.WriteString("| T | objects | command | before CPU | after CPU | before wall | after wall | before peak RSS | after peak RSS | wall after/before | CPU after/before |\n")
	b.WriteString("|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, r := range rows {
		line := func(command string, before, after usage) {
			if before.wall == 0 {
				fmt.Fprintf(&b, "| %d | %d | %s | – | %s | – | %s | – | %s | – | – |\n", r.tenants, r.objects, command, dur(after.cpu), dur(after.wall), mb(after.rssKB))
				return
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.tenants, r.objects, command,
				dur(before.cpu), dur(after.cpu), dur(before.wall), dur(after.wall), mb(before.rssKB), mb(after.rssKB),
				ratio(after.wall, before.wall), ratio(after.cpu, before.cpu))
		}
		line("render", r.before.render, r.krender)
		line("check", r.before.check, r.check)
	}
	return b.String()
}
