package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/krender/krender/internal/testing/fleetgen"
)

// diffRow is `krender diff` of a fleet against its base beside one render
// of the head, measured alternately round by round.
type diffRow struct {
	tenants, objects int
	render, diff     usage
	checks           []string
}

// diffArgs is the diff measured: the head (the working directory) against
// a second checkout of the base beside it.
var diffArgs = []string{"diff", "--base-dir", "../base", "-p", fleetgen.Profile, fleetgen.AppsDir}

// measureDiff writes the fleet (the head) and its base (fleetgen.BaseEdits:
// two workloads roll in every tenant) side by side, and measures `krender
// diff` and `krender render` of the head alternately. Exit 1 (changes) is
// diff's success.
func measureDiff(c config, tenants int) (diffRow, error) {
	f := fleetgen.Fleet{Apps: c.apps, Tenants: tenants}
	r := diffRow{tenants: tenants, objects: f.Objects(), checks: []string{"load average when started: `" + readTrim("/proc/loadavg") + "`"}}
	dir := filepath.Join(c.work, fmt.Sprintf("diff-t%d", tenants))
	if err := os.RemoveAll(dir); err != nil {
		return r, err
	}
	files := f.Files()
	base, err := fleetgen.BaseFiles(files)
	if err != nil {
		return r, err
	}
	head, out := filepath.Join(dir, "head"), filepath.Join(dir, "out")
	if err := fleetgen.WriteFiles(head, files); err != nil {
		return r, err
	}
	if err := fleetgen.WriteFiles(filepath.Join(dir, "base"), base); err != nil {
		return r, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return r, err
	}
	fmt.Fprintf(os.Stderr, "T=%d: krender diff, alternately with krender render\n", tenants)
	renderArgs := []string{"render", "-p", fleetgen.Profile, fleetgen.AppsDir}
	diffOut := filepath.Join(out, "diff.txt")
	us, err := interleave(c.runs,
		func() (usage, error) {
			return child(head, nil, filepath.Join(out, "render.yaml"), c.krender, renderArgs...)
		},
		func() (usage, error) { return childExits(head, nil, diffOut, []int{1}, c.krender, diffArgs...) })
	if err != nil {
		return r, err
	}
	r.render, r.diff = us[0], us[1]
	r.checks = append(r.checks, diffCheck(diffOut, tenants))
	return r, nil
}

// diffCheck states whether the diff said what the base's edits do: 2
// workloads roll in every tenant.
func diffCheck(path string, tenants int) string {
	text, err := os.ReadFile(path)
	if err != nil {
		return "diff: " + err.Error()
	}
	first, _, _ := bytes.Cut(text, []byte("\n"))
	want := fmt.Sprintf("rolls %d workloads in %d tenants of 1 profile;", 2*tenants, tenants)
	if !bytes.HasPrefix(first, []byte(want)) {
		return fmt.Sprintf("diff: said %q, want %q", first, want+" …")
	}
	return fmt.Sprintf("diff: `%s`", first)
}

// diffMarkdown is the report's section on krender diff.
func diffMarkdown(c config, rows []diffRow) string {
	var b strings.Builder
	b.WriteString("\n## krender diff against one render (side by side)\n\n")
	fmt.Fprintf(&b, "`krender %s` in the fleet's directory (the head), its base a second checkout beside it: the same\n", strings.Join(diffArgs, " "))
	b.WriteString("fleet before a pull request that changes app-01's ConfigMap (a new hash) and a pod annotation of app-03's\n")
	b.WriteString("Deployment, so 2 workloads roll in every tenant, each judged by the API server's code in `krender-check`.\n")
	fmt.Fprintf(&b, "Measured alternately, round by round, with `krender %s > out` of the head; median of %d runs each.\n", "render -p "+fleetgen.Profile+" "+fleetgen.AppsDir, c.runs)
	b.WriteString("The goal: a fleet diff costs at most twice one render of the head.\n\n")
	b.WriteString("| T | objects | render wall | diff wall | diff/render wall | render CPU | diff CPU | diff/render CPU | diff peak RSS |\n|---:|---:|---:|---:|---|---:|---:|---|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.tenants, r.objects,
			dur(r.render.wall), dur(r.diff.wall), multiple(r.diff.wall, r.render.wall),
			dur(r.render.cpu), dur(r.diff.cpu), multiple(r.diff.cpu, r.render.cpu), mb(r.diff.rssKB))
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "- T=%d: at most twice one render: %s\n", r.tenants, r.goal())
		for _, c := range r.checks {
			fmt.Fprintf(&b, "- T=%d: %s\n", r.tenants, c)
		}
	}
	return b.String()
}

// goal says whether the diff cost at most twice the render, in wall and
// in CPU time.
func (r diffRow) goal() string {
	met := r.diff.wall <= 2*r.render.wall && r.diff.cpu <= 2*r.render.cpu
	word := "not met"
	if met {
		word = "met"
	}
	return fmt.Sprintf("%s (wall %s, CPU %s)", word, multiple(r.diff.wall, r.render.wall), multiple(r.diff.cpu, r.render.cpu))
}

// multiple is a over b, as a multiple.
func multiple(a, b time.Duration) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", float64(a)/float64(b))
}

// text is the progress line of one diff row.
func (r diffRow) text() string {
	return fmt.Sprintf("T=%d diff: render %s, diff %s, diff/render wall %s, CPU %s\n", r.tenants,
		dur(r.render.wall), dur(r.diff.wall), multiple(r.diff.wall, r.render.wall), multiple(r.diff.cpu, r.render.cpu))
}

// measureDiffs measures krender diff at each of c.diffSizes.
func measureDiffs(c config) ([]diffRow, error) {
	var rows []diffRow
	for _, t := range c.diffSizes {
		r, err := measureDiff(c, t)
		if err != nil {
			return nil, fmt.Errorf("diff at T=%d: %w", t, err)
		}
		fmt.Print(r.text())
		rows = append(rows, r)
	}
	return rows, nil
}

// withSection is old with its section of sec's title replaced by sec, or
// sec appended where old has none: -diff-only rewrites its section alone.
func withSection(old, sec string) string {
	key := ""
	if ss := sections(sec); len(ss) > 0 {
		key = ss[len(ss)-1].key
	}
	var b strings.Builder
	done := false
	for _, s := range sections(old) {
		if s.key == key && key != "" {
			b.WriteString(strings.TrimLeft(sec, "\n"))
			if !strings.HasSuffix(sec, "\n\n") {
				b.WriteString("\n")
			}
			done = true
			continue
		}
		b.WriteString(s.text)
	}
	if !done {
		return strings.TrimRight(b.String(), "\n") + "\n" + sec
	}
	return strings.TrimRight(b.String(), "\n") + "\n" // the last section: no blank line at the end
}

// runDiffOnly measures krender diff alone and rewrites its section of the
// report, every other section kept as it is.
func runDiffOnly(c config) error {
	rows, err := measureDiffs(c)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(c.out)
	if err != nil {
		return err
	}
	return os.WriteFile(c.out, []byte(withSection(string(old), diffMarkdown(c, rows))), 0o644)
}
