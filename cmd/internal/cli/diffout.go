package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/krender/krender/action/diff"
)

// writeDiff prints a diff's Result in format: text, markdown or json.
func writeDiff(w io.Writer, format string, r *diff.Result) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	case "markdown":
		_, err := io.WriteString(w, diffMarkdown(r, markdownLimit))
		return err
	}
	_, err := io.WriteString(w, diffText(r))
	return err
}

// headline is the line a reviewer reads first: `rolls 12 workloads in 6
// tenants of 2 profiles; 1 apply refused`.
func headline(r *diff.Result) string {
	s := r.Summary
	if s.Changes == 0 {
		return "no changes"
	}
	var parts []string
	if s.Rolls > 0 {
		parts = append(parts, fmt.Sprintf("rolls %s in %s of %s", plural(s.Rolls, "workload"), plural(s.RollsTenants, "tenant"), plural(s.RollsProfiles, "profile")))
	} else {
		parts = append(parts, "rolls no workload")
	}
	if s.OnDelete > 0 {
		parts = append(parts, fmt.Sprintf("%s on delete", plural(s.OnDelete, "workload")))
	}
	if s.NextRun > 0 {
		parts = append(parts, fmt.Sprintf("%s at the next run", plural(s.NextRun, "CronJob")))
	}
	if s.Refused > 0 {
		parts = append(parts, fmt.Sprintf("%s refused", plural(s.Refused, "apply")))
	}
	parts = append(parts, fmt.Sprintf("%d added, %d removed, %d modified", s.Added, s.Removed, s.Modified))
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if what == "apply" {
		return fmt.Sprintf("%d applies", n)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// environment names a change's profile and tenant.
func environment(c diff.Change) string {
	if c.Tenant == "" {
		return c.Profile
	}
	return c.Profile + " · " + c.Tenant
}

func objectName(c diff.Change) string {
	if c.Namespace == "" {
		return c.Kind + " " + c.Name
	}
	return c.Kind + " " + c.Namespace + "/" + c.Name
}

// diffText is the Result for a terminal: grouped by profile and tenant.
func diffText(r *diff.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (base %s)\n", headline(r), r.Base)
	env := ""
	for _, c := range r.Changes {
		if e := environment(c); e != env {
			env = e
			fmt.Fprintf(&b, "\n%s\n", e)
		}
		fmt.Fprintf(&b, "  %-9s %s\n", c.Verdict(), objectName(c))
		for _, why := range c.Reasons {
			fmt.Fprintf(&b, "              %s\n", why)
		}
	}
	return b.String()
}

// markdownLimit is the size of a pull request comment (GitHub's and
// GitLab's note limit).
const markdownLimit = 65536

// diffMarkdown is the Result as a pull request comment: the headline, a
// table of the changes by environment, and each object's diff folded,
// cut to fit limit with a note where it is.
func diffMarkdown(r *diff.Result, limit int) string {
	var head strings.Builder
	fmt.Fprintf(&head, "%s\n\n", headline(r))
	fmt.Fprintf(&head, "krender diff against `%s`: %s, %s compared.\n", r.Base, plural(r.Summary.Profiles, "profile"), plural(r.Summary.Tenants, "tenant"))
	if len(r.Changes) == 0 {
		return head.String()
	}
	head.WriteString("\n| Environment | Object | Verdict | Why |\n|---|---|---|---|\n")
	var rows, details []string
	for _, c := range r.Changes {
		rows = append(rows, fmt.Sprintf("| %s | %s | **%s** | %s |\n", cell(environment(c)), cell(objectName(c)), c.Verdict(), cell(strings.Join(c.Reasons, "; "))))
		if c.Diff != "" {
			details = append(details, fmt.Sprintf("<details><summary>%s: %s</summary>\n\n```diff\n%s```\n</details>\n", cell(environment(c)), cell(objectName(c)), strings.ReplaceAll(c.Diff, "```", "` ` `")))
		}
	}
	out := head.String()
	cut := func(n int, what string) string {
		return fmt.Sprintf("\n_Cut here to fit a comment (%d characters): %d more %s. Run krender diff to see them all._\n", limit, n, what)
	}
	const reserve = 200 // room for the note
	for i, row := range rows {
		if len(out)+len(row)+reserve > limit {
			return out + cut(len(rows)-i, "rows and every diff")
		}
		out += row
	}
	out += "\n"
	for i, d := range details {
		if len(out)+len(d)+reserve > limit {
			return out + cut(len(details)-i, "diffs")
		}
		out += d
	}
	return out
}

// cell is s fit for a table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
