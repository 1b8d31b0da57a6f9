package main

import "strings"

// withHandWritten returns the generated report followed by every section of
// the old one that make bench does not write itself, and those sections'
// titles: notes written by hand (such as a before/after comparison of two
// builds) survive a new run. A section runs from a "## " heading to the
// next; it is generated when the new report has a heading with the same
// title, compared up to " (" so that "Where krender's time goes (pprof,
// T=100)" matches at any size. Kept sections follow the generated ones, in
// their old order, unchanged.
func withHandWritten(generated, old string) (string, []string) {
	ours := map[string]bool{}
	for _, s := range sections(generated) {
		ours[s.key] = true
	}
	report := generated
	var titles []string
	for _, s := range sections(old) {
		if s.key == "" || ours[s.key] {
			continue
		}
		report = strings.TrimRight(report, "\n") + "\n\n" + strings.TrimRight(s.text, "\n") + "\n"
		titles = append(titles, s.title)
	}
	return report, titles
}

type section struct {
	title, key string // key is "" for the text before the first heading
	text       string // the heading line through the line before the next heading
}

// sections cuts markdown at its "## " headings, outside fenced code blocks.
func sections(md string) []section {
	var out []section
	cur := section{}
	fenced := false
	for _, line := range strings.SplitAfter(md, "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(strings.TrimSpace(trimmed), "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(trimmed, "## ") {
			if cur.text != "" {
				out = append(out, cur)
			}
			title := strings.TrimSpace(strings.TrimPrefix(trimmed, "## "))
			key, _, _ := strings.Cut(title, " (")
			cur = section{title: title, key: strings.TrimSpace(key)}
		}
		cur.text += line
	}
	if cur.text != "" {
		out = append(out, cur)
	}
	return out
}
